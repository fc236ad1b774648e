import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data } from '@remix-run/cloudflare'
import type { Auth } from '~/lib/auth.server'
import { formFailure, readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle } from '~/lib/title'
import { createUserFormSchema } from '../../../worker-api/contract/organisation/user-admin'
import { structureChoice, structureChoices } from './structure-choices.server'

/** What the form typed before it asked for a structure's functions (without JavaScript), to show it again. */
const KEPT = ['mail', 'confirmation', 'nom', 'prenom', 'admin', 'fonction', 'dateDebut', 'dateFin'] as const
export type UserFormValues = Record<(typeof KEPT)[number], string>

/**
 * What the create-user form needs (spec §2 logged mode, §4): the admin's structures, the chosen one and its functions.
 * The structure comes from the `posted` form, else `?structure=`, else the route's `preset`, which must be in scope.
 */
export async function userFormData(request: Request, auth: Auth, preset: number | null, posted?: FormData) {
  const url = new URL(request.url).searchParams
  const asked = posted ? Number(posted.get('structure')) : url.has('structure') ? Number(url.get('structure')) : preset
  const wanted = asked !== null && Number.isSafeInteger(asked) && asked > 0 ? asked : null
  // The route's structure is read apart only when another is chosen (without JavaScript, posted).
  const presetApart = preset !== null && preset !== wanted
  // The functions are asked for alongside the structures; a structure outside the scope answers none.
  const [{ choices, chosen, refused }, presetRead, fonctions, t] = await Promise.all([
    structureChoices(auth, posted ?? url, wanted),
    presetApart ? structureChoice(auth, preset) : null,
    wanted ? auth.settle(auth.api.rest.bd.fonction.structure[':id'].$get({ param: { id: wanted } })) : null,
    i18nServer.getFixedT(request),
  ])
  // The route's structure must be in the scope: an unknown one is a 404, one outside it a 403, as every admin page.
  const presetCheck = preset === null ? null : (presetRead ?? { found: chosen, refused })
  if (presetCheck && !presetCheck.found) {
    const unknown = presetCheck.refused === 404
    throw new Response(unknown ? 'NOT_FOUND' : 'FORBIDDEN', { status: unknown ? 404 : 403 })
  }
  const structureId = chosen?.id ?? null
  return {
    ...choices,
    structureId,
    fonctions: structureId && fonctions?.ok ? fonctions.data : [],
    preset: presetCheck?.found ?? null,
    values: Object.fromEntries(KEPT.map((name) => [name, String(posted?.get(name) ?? '')])) as UserFormValues,
    constraint: getZodConstraint(createUserFormSchema),
    title: pageTitle(t, t('userCreate.title')),
  }
}

/**
 * The create-user form's post: Save (`intent=user`), or, without JavaScript, "show functions"
 * (`intent=fonctions`): the form again, for the structure chosen and with what was typed.
 */
export async function userFormAction(request: Request, auth: Auth, preset: number | null) {
  const form = await readForm(request)
  if (form.get('intent') !== 'fonctions') return createUser(request, form, auth)
  const reloaded = await userFormData(request, auth, preset, form)
  return data({ ...reloaded, intent: 'fonctions' as const }, { headers: await auth.headers() })
}

/**
 * Saves the create-user form (POST rest/bd/utilisateur, spec §3), bound to this site (`domain`). An address taken is
 * said on the mail field and, as spec §8 wants in logged creation, on the form with the address. Success goes to the
 * access page (spec §2) with a notice that links to the new user's profile.
 */
async function createUser(request: Request, form: FormData, auth: Auth) {
  const submission = parseWithZod(form, { schema: createUserFormSchema })
  if (submission.status !== 'success') return formFailure('user', submission, { headers: await auth.headers() })
  const { mail, nom, prenom, admin, structure, fonction, dateDebut, dateFin } = submission.value
  const result = await auth.settle(
    auth.api.rest.bd.utilisateur.$post({
      json: {
        mail,
        nom,
        prenom,
        admin,
        actif: true,
        domain: new URL(request.url).origin,
        poste: { structure: { id: structure }, fonction: { id: fonction }, dateDebut, dateFin },
      },
    }),
  )
  if (!result.ok) {
    return formFailure('user', submission, {
      failure: result,
      fallback: 'errors.saveFailed',
      onField: { MAIL_ALREADY_USED: 'mail' },
      nestedIn: 'poste',
      withAttribute: true,
      headers: await auth.headers(),
    })
  }
  const { id, mail: created, prenom: first, nom: last } = result.data
  return auth.redirectWithToast('/pages/user/acces', {
    type: 'success',
    key: 'userCreate.created',
    values: { mail: created },
    link: { to: `/pages/admin/detail/user/${id}`, key: 'userCreate.openProfile', values: { name: `${first} ${last}` } },
  })
}
