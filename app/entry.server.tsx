import type { AppLoadContext, EntryContext } from '@remix-run/cloudflare'
import { RemixServer } from '@remix-run/react'
import { createInstance } from 'i18next'
import { isbot } from 'isbot'
import { renderToReadableStream } from 'react-dom/server'
import { I18nextProvider, initReactI18next } from 'react-i18next'
import { i18nConfig, resources } from './lib/i18n'
import { i18nServer } from './lib/i18n.server'
import { NonceProvider } from './lib/nonce'

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? ''
  const instance = createInstance()
  await instance.use(initReactI18next).init({ ...i18nConfig, lng: await i18nServer.getLocale(request), resources })

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
