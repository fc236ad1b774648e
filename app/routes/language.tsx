import { type ActionFunctionArgs, redirect } from '@remix-run/cloudflare'
import { readForm } from '~/lib/form.server'
import { languages } from '~/lib/i18n'
import { languageCookieFor } from '~/lib/i18n.server'
import { safeRedirect } from '~/lib/safe-redirect'

/** The language switch: remembers the choice and goes back to the page it was made on. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request)
  const lng = String(form.get('lng'))
  const target = safeRedirect(form.get('redirectTo'), '/login')
  if (!(languages as readonly string[]).includes(lng)) return redirect(target)
  return redirect(target, { headers: { 'Set-Cookie': await languageCookieFor(request).serialize(lng) } })
}

export const loader = () => redirect('/login')
