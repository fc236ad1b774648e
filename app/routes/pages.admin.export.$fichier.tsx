import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { requireAdmin } from '~/lib/auth.server'
import { passedThrough } from '~/lib/download.server'
import { IMPORT_TYPES } from '../../worker-api/contract/bulk/bulk'

const FILES = IMPORT_TYPES.map((type) => `${type}.csv` as const)
type ExportFile = (typeof FILES)[number]

/** The administrator's scope in the import's format (the import page's export links), as the API streams it. */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const fichier = params.fichier as ExportFile
  if (!FILES.includes(fichier)) throw new Response('Not found', { status: 404 })
  const response = await auth.api.rest.bd.export[':fichier'].$get({ param: { fichier } })
  return passedThrough(auth, response, '/pages/admin/import')
}
