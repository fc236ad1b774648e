import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { requireAdmin } from '~/lib/auth.server'
import { passedThrough } from '~/lib/download.server'
import { idParam } from '~/lib/id-param'

/** The API's name of the file (a path of the typed client, not a word to translate). */
const ERRORS_FILE = 'erreurs.csv'

/** An import's errors as CSV (the page's download link): the API's file, passed through as it streams. */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const id = idParam(params.id)
  const response = await auth.api.rest.bd.import[':id'][ERRORS_FILE].$get({ param: { id } })
  return passedThrough(auth, response, `/pages/admin/import/${id}`)
}
