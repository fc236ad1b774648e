import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { requireAdmin } from '~/lib/auth.server'

/** The structure form's name check (spec §5, GET structure/nom/{nom}), for its fetcher. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const asked = new URL(request.url).searchParams.get('nom')?.trim() ?? ''
  if (asked.length < 1 || asked.length > 200) return data({ nom: null, asked }, { status: 400 })
  const { nom } = await auth.expect(
    auth.api.rest.bd.structure.nom[':nom'].$get({ param: { nom: encodeURIComponent(asked) } }),
  )
  return data({ nom, asked }, { headers: await auth.headers() })
}
