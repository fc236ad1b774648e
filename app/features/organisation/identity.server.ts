import { parseWithZod } from '@conform-to/zod/v4'
import type { Auth } from '~/lib/auth.server'
import { formFailure } from '~/lib/form.server'
import type { BusinessCode } from '../../../worker-api/contract/errors'
import { type ProfileInput, profileSchema } from '../../../worker-api/contract/organisation/user'

/**
 * Saves `IdentityForm` (PUT rest/bd/utilisateur/{id}, spec §5): the saved user and the new address awaiting its
 * confirmation, if any; or the form's failed reply, in the page's words where `messages` has some.
 */
export async function saveIdentity(
  auth: Auth,
  id: number,
  form: FormData,
  messages: Partial<Record<BusinessCode, string>> = {},
) {
  const submission = parseWithZod(form, { schema: profileSchema })
  if (submission.status !== 'success') {
    return { failed: formFailure('profile', submission, { headers: await auth.headers() }) }
  }
  const json: ProfileInput = submission.value
  const result = await auth.settle(auth.api.rest.bd.utilisateur[':id'].$put({ param: { id }, json }))
  if (!result.ok) {
    const failed = formFailure('profile', submission, {
      failure: result,
      fallback: 'errors.updateFailed',
      onField: { MAIL_ALREADY_USED: 'mail' },
      messages,
      headers: await auth.headers(),
    })
    return { failed }
  }
  // A new address waits for the link sent to it (the API says so with mailEnAttente).
  const { mail, mailEnAttente } = result.data
  const asked = json.mail.toLowerCase()
  const waiting = mailEnAttente?.toLowerCase() === asked && mail.toLowerCase() !== asked ? mailEnAttente : null
  return { saved: result.data, mailPending: waiting }
}
