import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { publicApi, read } from '~/lib/api.server'
import { mailProblem } from '../../worker-api/contract/mail-rules'

/**
 * The registration form's mail check (spec §4 public registration flow; GET
 * rest/public/bd/utilisateur/mail?mail=, limited per client), for its fetcher: as
 * pages.admin.user.mail answers the create-user form. A check that could not be made (`failed`)
 * blocks nothing: the registration answers MAIL_ALREADY_USED anyway.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const asked = new URL(request.url).searchParams.get('mail')?.trim() ?? ''
  // Only a well-formed address is asked about (spec §5, §9): the form says what is wrong with another.
  if (mailProblem(asked)) {
    return data({ mail: null, actif: null, asked, failed: true }, { status: 400 })
  }
  const result = await read(
    publicApi(request, context).rest.public.bd.utilisateur.mail.$get({ query: { mail: asked } }),
  )
  if (!result.ok) return data({ mail: null, actif: null, asked, failed: true }, { status: result.status })
  return { mail: result.data.mail, actif: result.data.actif, asked, failed: false }
}
