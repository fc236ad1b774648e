import type { AppLoadContext, EntryContext } from '@remix-run/cloudflare'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToReadableStream } from 'react-dom/server'
import { I18nextProvider } from 'react-i18next'
import { i18nFor, i18nServer } from './lib/i18n.server'
import { NonceProvider } from './lib/nonce'

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? ''
  const instance = await i18nFor(await i18nServer.getLocale(request))

  let status = responseStatusCode
  const started = performance.now()
  const body = await renderToReadableStream(
    <I18nextProvider i18n={instance}>
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} nonce={nonce} />
      </NonceProvider>
    </I18nextProvider>,
    {
      signal: request.signal,
      nonce,
      onError(error: unknown) {
        status = 500
        console.error(error)
      },
    },
  )
  if (isbot(request.headers.get('user-agent') || '')) await body.allReady
  if (loadContext.meter) loadContext.meter.renderMs += performance.now() - started

  responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
  return new Response(body, { headers: responseHeaders, status })
}
