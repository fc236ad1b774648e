import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { STRUCTURE_SEARCH } from '~/features/organisation/structure-choice'
import { structureChoices, structureSearch } from '~/features/organisation/structure-choices.server'
import { requireAdmin } from '~/lib/auth.server'

/** The structures of the admin's scope matching a search, for a structure choice's combobox (its fetcher). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const recherche = structureSearch(new URL(request.url).searchParams.get(STRUCTURE_SEARCH))
  const { choices } = await structureChoices(auth, recherche, null)
  return data(choices, { headers: await auth.headers() })
}
