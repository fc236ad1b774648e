import type { ActionFunctionArgs } from '@remix-run/cloudflare'
import { proofError, proofOf } from '~/features/sign-in/second-factor.server'
import { requireUser } from '~/lib/auth.server'
import { readForm } from '~/lib/form.server'

/**
 * The options of a new passkey of the signed-in user, for the security page's script
 * (app/features/sign-in/passkeys.ts), once the proof the form carries (a current code or the password) is
 * accepted: asked before the authenticator is, so a refusal leaves nothing in it. JSON `{options}` or
 * `{error}`.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireUser(request, context)
  const proof = proofOf(await readForm(request))
  // JSON, with the session's cookie when its tokens were refreshed on the way.
  const answer = async (body: unknown, status = 200) => Response.json(body, { status, headers: await auth.headers() })
  if (!proof) return answer({ options: null, error: { key: 'mfa.proof.needed' } }, 400)
  const result = await auth.settle(auth.api.rest.bd.mfa.passkeys.options.$post({ json: proof }))
  if (result.ok) return answer({ options: result.data, error: null })
  return answer({ options: null, error: proofError(result) }, 400)
}
