import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { requireAdmin } from '~/lib/auth.server'
import { passedThrough } from '~/lib/download.server'
import { logFilters } from './pages.admin.listeLogs'

/**
 * The history's export (the screen's "Exporter" link): the API's CSV of the entries the screen's
 * filters select, passed through as it streams, with the session's rotated tokens if any. A failure
 * goes back to the screen with 'Echec de la récupération des données'.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const url = new URL(request.url)
  const back = `/pages/admin/listeLogs${url.search}`
  const filters = logFilters(url.searchParams)
  if (!filters.valid) return auth.redirectWithToast(back, { type: 'error', key: 'logs.invalidRange' })
  return passedThrough(auth, await auth.api.rest.bd.logs.export.$get({ query: filters.query }), back)
}
