import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { structureChoices } from '~/features/organisation/structure-choices.server'
import { requireAdmin } from '~/lib/auth.server'

/** The structures of the admin's scope matching a search, for a structure choice's combobox (its fetcher). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const { choices } = await structureChoices(auth, new URL(request.url).searchParams, null)
  return data(choices, { headers: await auth.headers() })
}
