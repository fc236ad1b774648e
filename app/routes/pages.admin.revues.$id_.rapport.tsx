import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { requireAdmin } from '~/lib/auth.server'
import { passedThrough } from '~/lib/download.server'
import { idParam } from '~/lib/id-param'

/** The API's name of the file (a path of the typed client, not a word to translate). */
const REPORT_FILE = 'rapport.csv'

/** A campaign's report as CSV (the campaign page's link), as the API streams it. */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.id)
  const auth = await requireAdmin(request, context)
  const response = await auth.api.rest.bd.revue[':id'][REPORT_FILE].$get({ param: { id } })
  return passedThrough(auth, response, `/pages/admin/revues/${id}`)
}
