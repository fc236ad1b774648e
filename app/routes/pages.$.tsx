import { redirect } from '@remix-run/cloudflare'

/** Spec §2: the access page is the fallback for unknown paths. */
export const loader = () => redirect('/pages/user/acces')
