import { getZodConstraint } from '@conform-to/zod/v4'
import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { UNLINK_INTENT } from '~/features/federation/linked-providers'
import { apiMessage, type Message } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import { focusFragment, formReply, readForm, replyTo, submitted } from '~/lib/form.server'
import { idParam } from '~/lib/id-param'
import { pageTitle } from '~/lib/title'
import { pathWithout } from '~/lib/url'
import { profileSchema } from '../../../worker-api/contract/organisation/user'
import { saveIdentity } from './identity.server'
import type { DemotionShown } from './stopping-accounts'
import { stoppingAccounts } from './stopping-accounts.server'

type Args = Pick<LoaderFunctionArgs, 'request' | 'context' | 'params'>

/**
 * Spec §2 admin/detail/user/{idUser} and admin/user/detail/{idUser}: a user as an administrator sees
 * them (`modification` decides what is editable), with the applications their posts open today and
 * later — the launcher's own answer, so the panel shows exactly what a delegation grants. Reached from
 * a structure (`?structure=`), the breadcrumb names it. A post's deletion being confirmed (`?confirmer=poste`) reads
 * the service accounts acting for the user, which ending an administrator's last current post stops.
 */
export async function adminProfileLoader({ request, context, params }: Args) {
  const id = idParam(params.idUser)
  const asked = Number(new URL(request.url).searchParams.get('structure'))
  const structure = Number.isSafeInteger(asked) && asked > 0 ? asked : null
  const search = new URL(request.url).searchParams
  const endingPost = search.get('confirmer') === 'poste' ? Number(search.get('id')) : null
  const {
    auth,
    data: [{ sessions, fournisseurs, ...user }, access, via, stopping],
    t,
  } = await requireAdmin(request, context, {
    read: (auth) =>
      Promise.all([
        // With their sessions (null for a user the administrator does not manage: the list is not shown); one's own are
        // ended from one's own profile, so not read here.
        auth.expect(
          auth.api.rest.bd.utilisateur[':id'].$get({
            param: { id },
            query: id === auth.user.id ? {} : { sessions: 'true' },
          }),
        ),
        auth.expect(
          auth.api.rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: id }, query: { futurs: 'true' } }),
        ),
        structure
          ? auth.settle(auth.api.rest.bd.structure[':id'].$get({ param: { id: structure } }))
          : Promise.resolve(null),
        endingPost && Number.isSafeInteger(endingPost) && endingPost > 0
          ? stoppingAccounts(auth, id, endingPost)
          : Promise.resolve(null),
      ]),
  })
  return data(
    {
      user,
      self: id === auth.user.id,
      applications: access.accesApplication.map((a) => a.application),
      upcoming: access.accesFuturs ?? [],
      structure: via?.ok ? { id: via.data.id, nom: via.data.nom } : null,
      sessions: sessions ?? null,
      fournisseurs: fournisseurs ?? null,
      stopping,
      constraint,
      title: pageTitle(t, `${user.prenom} ${user.nom}`),
    },
    { headers: await auth.headers() },
  )
}

/** The identity form's rules, checked on the server only. */
const constraint = getZodConstraint(profileSchema)

export type AdminProfileIntent =
  | 'profile'
  | 'flags'
  | 'poste'
  | 'invitation'
  | 'sessions'
  | 'mfa-reset'
  | typeof UNLINK_INTENT

/**
 * The admin profile's forms: identity (the profile call), the active and admin switches (one call per
 * flag that changed), a post's deletion (after its confirmation), a new invitation and the end of
 * every session of the user (after its confirmation).
 */
export async function adminProfileAction({ request, context, params }: Args) {
  const auth = await requireAdmin(request, context)
  const id = idParam(params.idUser)
  const form = await readForm(request)
  const intent = String(form.get('intent')) as AdminProfileIntent
  const back = pathWithout(request.url, ['confirmer', 'id'])
  const fail = async (error: Message) => formReply(intent, submitted(form).reply(), error, await auth.headers())
  const done = (key: string, values?: Record<string, string>) =>
    auth.redirectWithToast(`${back}${focusFragment(form)}`, { type: 'success', key, values })

  if (intent === 'profile') {
    const identity = await saveIdentity(auth, id, form)
    if ('failed' in identity) return identity.failed
    if (identity.mailPending) return done('adminProfile.mailConfirmationSent', { mail: identity.mailPending })
    return done('adminProfile.saved')
  }

  if (intent === 'flags') {
    const before = { actif: form.get('wasActif') === 'true', admin: form.get('wasAdmin') === 'true' }
    const after = { actif: form.get('actif') === 'on', admin: form.get('admin') === 'on' }
    // Demoting an administrator stops the service accounts acting for them: said first, then done once confirmed.
    if (before.admin && !after.admin && form.get('confirme') !== 'oui') {
      const stopping = await stoppingAccounts(auth, id)
      if (stopping && stopping.total > 0) {
        return replyTo<'flags', DemotionShown>('flags', form, { shown: { stopping }, headers: await auth.headers() })
      }
    }
    // The admin flag first: an administrator's state cannot change, a former one's can.
    if (after.admin !== before.admin) {
      const result = await auth.settle(auth.api.rest.bd.utilisateur.admin.$put({ json: { id, admin: after.admin } }))
      if (!result.ok) return fail(apiMessage(result, 'errors.updateFailed'))
    }
    if (after.actif !== before.actif && form.has('wasActif')) {
      const result = await auth.settle(auth.api.rest.bd.utilisateur.state.$put({ json: { id, actif: after.actif } }))
      if (!result.ok) return fail(apiMessage(result, 'errors.updateFailed'))
    }
    return done('adminProfile.flagsSaved')
  }

  if (intent === 'poste') {
    const poste = Number(form.get('id'))
    if (!Number.isSafeInteger(poste) || poste < 1) return fail({ key: 'errors.technical' })
    const result = await auth.settle(auth.api.rest.bd.poste.suppression[':id'].$delete({ param: { id: poste } }))
    if (!result.ok) return fail(apiMessage(result, 'adminProfile.posteDeleteFailed'))
    return done('adminProfile.posteDeleted', { poste: String(form.get('libelle') ?? '') })
  }

  if (intent === 'invitation') {
    const result = await auth.settle(auth.api.rest.bd.utilisateur[':id'].invitation.$post({ param: { id } }))
    if (!result.ok) return fail(apiMessage(result, 'errors.updateFailed'))
    return done('adminProfile.invitationSent')
  }
  if (intent === 'sessions') {
    const result = await auth.settle(auth.api.rest.bd.utilisateur[':id'].sessions.$delete({ param: { id } }))
    if (!result.ok) return fail(apiMessage(result, 'sessions.endFailed'))
    return done('sessions.allEnded', { name: String(form.get('name') ?? '') })
  }
  if (intent === UNLINK_INTENT) {
    const fournisseurId = Number(form.get('fournisseur'))
    if (!Number.isSafeInteger(fournisseurId) || fournisseurId < 1) return fail({ key: 'errors.technical' })
    const result = await auth.settle(
      auth.api.rest.bd.utilisateur[':id'].fournisseurs[':fournisseurId'].$delete({ param: { id, fournisseurId } }),
    )
    if (!result.ok) return fail(apiMessage(result, 'errors.updateFailed'))
    return done('fournisseurLiens.removed')
  }
  if (intent === 'mfa-reset') {
    const result = await auth.settle(auth.api.rest.bd.utilisateur[':id'].mfa.$delete({ param: { id } }))
    if (!result.ok) return fail(apiMessage(result, 'errors.updateFailed'))
    return done('mfa.reset.done', { name: String(form.get('name') ?? '') })
  }
  return fail({ key: 'errors.technical' })
}
