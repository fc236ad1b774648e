import type { ActionFunctionArgs } from '@remix-run/cloudflare'
import { publicApi, read } from '~/lib/api.server'
import { loginMessage } from '~/lib/api-errors'
import { readForm } from '~/lib/form.server'

/**
 * The options of a passkey sign-in, for the login page's script (app/features/sign-in/passkeys.ts): passwordless,
 * or the second step's with its `challenge`. JSON `{options}` or `{error}`, never a page.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readForm(request)
  const challenge = String(form.get('challenge') ?? '').slice(0, 100)
  const result = await read(
    publicApi(request, context).rest.public.bd.login.passkey.options.$post({ json: challenge ? { challenge } : {} }),
  )
  if (result.ok) return Response.json({ options: result.data, error: null })
  return Response.json({ options: null, error: loginMessage(result) }, { status: result.status })
}
