import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { requireAdmin } from '~/lib/auth.server'
import { mailProblem } from '../../worker-api/contract/mail-rules'

/**
 * The create-user form's mail check (spec §4, §5; GET rest/public/bd/utilisateur/mail?mail=), for
 * its fetcher: the address as an account holds it and whether that account is active, both null
 * when it is free. A check that could not be made (`failed`: too many in a minute, say) blocks
 * nothing: the save answers MAIL_ALREADY_USED anyway.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const asked = new URL(request.url).searchParams.get('mail')?.trim() ?? ''
  // Only a well-formed address is asked about (spec §5, §9): the form says what is wrong with another.
  if (mailProblem(asked)) {
    return data({ mail: null, actif: null, asked, failed: true }, { status: 400 })
  }
  const result = await auth.settle(auth.api.rest.public.bd.utilisateur.mail.$get({ query: { mail: asked } }))
  const headers = await auth.headers()
  if (!result.ok) return data({ mail: null, actif: null, asked, failed: true }, { status: result.status, headers })
  return data({ mail: result.data.mail, actif: result.data.actif, asked, failed: false }, { headers })
}
