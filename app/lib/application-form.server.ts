import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data } from '@remix-run/cloudflare'
import { type ApplicationIcon, applicationFormSchema, GRANTS_MAX } from '../../worker-api/contract/catalogue'
import { type ApplicationFormValues, GRANTS_FIELD, type Grant, grantsFrom } from './application-grants'
import type { requireAdmin } from './auth.server'
import { formFailure, readForm } from './form.server'
import { i18nServer } from './i18n.server'
import { pageTitle } from './title'

type Auth = Awaited<ReturnType<typeof requireAdmin>>

/** An application id of a URL, or the 404 page for a path segment that is not one. */
export function applicationId(value: string | undefined): number {
  const id = Number(value)
  if (!Number.isSafeInteger(id) || id < 1) throw new Response('NOT_FOUND', { status: 404 })
  return id
}

/**
 * What the application form needs (root administrators): the application (when editing), the
 * structures, and the functions of the one being looked at to choose grants from. That structure
 * comes from the form when it posted itself to show another one's functions (without JavaScript,
 * what is typed and chosen then shown again), else from the URL (`?structure=`).
 */
export async function applicationFormData(request: Request, auth: Auth, id: number | null, posted?: FormData) {
  const url = new URL(request.url).searchParams
  const asked = Number(posted ? posted.get('structure') : url.get('structure'))
  const wanted = Number.isSafeInteger(asked) && asked > 0 ? asked : null
  const [application, structures, fonctions, t] = await Promise.all([
    // One more than a form may send: an application granted by more keeps its grants (`grantsKept`).
    id === null
      ? null
      : auth.expect(auth.api.rest.bd.application[':id'].$get({ param: { id }, query: { fonctionsMax: GRANTS_MAX } })),
    auth.expect(auth.api.rest.bd.structure.user.me.$get({ query: {} })),
    wanted ? auth.settle(auth.api.rest.bd.fonction.structure[':id'].$get({ param: { id: wanted } })) : null,
    i18nServer.getFixedT(request),
  ])
  const structure = structures.find((s) => s.id === wanted) ?? null
  const values: ApplicationFormValues = posted
    ? {
        libelle: String(posted.get('libelle') ?? ''),
        icone: String(posted.get('icone') ?? ''),
        url: String(posted.get('url') ?? ''),
        actif: posted.get('actif') === 'on',
      }
    : {
        libelle: application?.libelle ?? '',
        icone: application?.icone ?? '',
        url: application?.url ?? '',
        actif: application?.actif ?? true,
      }
  const grantsKept = application && application.nbFonctions > GRANTS_MAX ? application.nbFonctions : null
  const grants: Grant[] =
    grantsKept !== null
      ? []
      : posted
        ? grantsFrom(posted.getAll('fonctions'), posted.getAll('choix'))
        : (application?.fonctions.map(({ id, libelle, structure }) => ({ id, libelle, structure })) ?? [])
  const title = application ? t('applications.editTitle', { libelle: application.libelle }) : t('applications.newTitle')
  return {
    application: application ? { id: application.id, libelle: application.libelle } : null,
    values,
    grants,
    grantsKept,
    structures: grantsKept !== null ? [] : structures.map(({ id, nom }) => ({ id, nom })),
    structure: structure ? { id: structure.id, nom: structure.nom } : null,
    fonctions: structure && fonctions?.ok ? fonctions.data.map(({ id, libelle }) => ({ id, libelle })) : [],
    constraint: getZodConstraint(applicationFormSchema),
    title: pageTitle(t, title),
  }
}

/**
 * The application form's post: Save (`intent=application`), or, without JavaScript, "show its
 * functions" (`intent=fonctions`): the form again, for the structure chosen, with what was typed and chosen.
 */
export async function applicationFormAction(request: Request, auth: Auth, id: number | null) {
  const form = await readForm(request)
  if (form.get('intent') !== 'fonctions') return saveApplication(form, auth, id)
  const reloaded = await applicationFormData(request, auth, id, form)
  return data({ ...reloaded, intent: 'fonctions' as const }, { headers: await auth.headers() })
}

/**
 * Saves the form (POST or PUT rest/bd/application): the name taken lands on its field, an unknown
 * function (deleted meanwhile) on the grants; success goes back to the catalogue with a notice.
 */
async function saveApplication(form: FormData, auth: Auth, id: number | null) {
  const submission = parseWithZod(form, { schema: applicationFormSchema })
  if (submission.status !== 'success') return formFailure('application', submission, { headers: await auth.headers() })
  const { libelle, icone, url, actif, fonctions } = submission.value
  const json = {
    libelle,
    icone: icone as ApplicationIcon,
    url,
    actif,
    fonctions: fonctions.map((fonction) => ({ id: fonction })),
  }
  // Granted by more functions than a form may send: the form did not list them, they stay as they are.
  const kept = form.get(GRANTS_FIELD) === 'kept'
  const result =
    id === null
      ? await auth.settle(auth.api.rest.bd.application.$post({ json: { ...json, protocole: 'CODE' } }))
      : await auth.settle(
          auth.api.rest.bd.application.$put({ json: kept ? { ...json, id, fonctions: undefined } : { ...json, id } }),
        )
  if (!result.ok) {
    return formFailure('application', submission, {
      failure: result,
      fallback: 'errors.saveFailed',
      onField: { APPLICATION_LIBELLE_ALREADY_USED: 'libelle' },
      headers: await auth.headers(),
    })
  }
  return auth.redirectWithToast('/pages/admin/applications', {
    type: 'success',
    key: id === null ? 'applications.created' : 'applications.saved',
    values: { libelle: result.data.libelle },
  })
}
