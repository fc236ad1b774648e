import { type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { newBinding } from '~/features/federation/binding.server'
import { publicApi, read } from '~/lib/api.server'
import { safeRedirect } from '~/lib/safe-redirect'

/**
 * "Continuer avec <fournisseur>": starts the code flow at the provider and sends the browser there, bound to it by a
 * cookie; the provider sends it back to /login/fournisseur/retour. An unknown or switched-off provider, or too many
 * attempts: back to the sign-in page, saying so.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const id = Number(params.id)
  const redirectTo = safeRedirect(url.searchParams.get('redirect'), '')
  const mail = (url.searchParams.get('mail') ?? '').trim().slice(0, 254)
  const back = (reason: string) => {
    const query = new URLSearchParams({ fournisseur: reason })
    if (redirectTo) query.set('redirect', redirectTo)
    return redirect(`/login?${query}`)
  }
  if (!Number.isSafeInteger(id) || id <= 0) throw back('inconnu')
  const binding = await newBinding(request)
  const result = await read(
    publicApi(request, context).rest.public.bd.fournisseur[':id'].debut.$post({
      param: { id },
      json: {
        navigateur: binding.value,
        ...(redirectTo ? { redirection: redirectTo } : {}),
        ...(mail ? { mail } : {}),
      },
    }),
  )
  if (!result.ok) throw back(result.status === 429 ? 'attente' : result.status === 404 ? 'inconnu' : 'erreur')
  throw redirect(result.data.url, { headers: { 'Set-Cookie': binding.setCookie, 'Cache-Control': 'no-store' } })
}
