import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { toAccessPage } from '~/lib/auth.server'

/** An unknown path under /pages (spec §2). */
export const loader = ({ request, context }: LoaderFunctionArgs) => toAccessPage(request, context)
