import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { SEARCH } from '~/features/history/archive-search'
import { requireAdmin } from '~/lib/auth.server'
import { passedThrough } from '~/lib/download.server'
import { searchIdOf } from './pages.admin.listeLogs'

/**
 * What a search of the archived months found, as the history's CSV (the screen's "Exporter ce qui a été trouvé" link):
 * the API's file passed through as it streams. A search gone (past its day) goes back to the screen, said so.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const url = new URL(request.url)
  const id = searchIdOf(url.searchParams)
  const back = `/pages/admin/listeLogs${id ? `?${SEARCH}=${id}` : ''}`
  if (!id) return auth.redirectWithToast(back, { type: 'error', key: 'logs.archive.gone' })
  return passedThrough(auth, await auth.api.rest.bd.logs.recherches[':id'].export.$get({ param: { id } }), back)
}
