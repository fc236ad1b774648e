import { redirect } from '@remix-run/cloudflare'

export const loader = () => redirect('/pages/user/acces')
