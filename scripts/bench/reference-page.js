// The floor of a server-rendered page on the portal's stack, for `npm run bench`: Remix v2 and React
// render a small document whose loader makes one D1 round trip (`SELECT 1`) — no session, no
// translation, no layout. A portal page does all this and its own work.
import { createRequestHandler } from '@remix-run/cloudflare'
import { Links, Meta, RemixServer, Scripts, useLoaderData } from '@remix-run/react'
import { createElement as h } from 'react'
import { renderToReadableStream } from 'react-dom/server'

function Page() {
  const { status } = useLoaderData()
  return h(
    'html',
    { lang: 'fr' },
    h('head', null, h('meta', { charSet: 'utf-8' }), h(Meta), h(Links)),
    h('body', null, h('main', null, h('h1', null, 'Portail'), h('p', null, status)), h(Scripts)),
  )
}

const build = {
  mode: 'production',
  basename: '/',
  publicPath: '/build/',
  assetsBuildDirectory: 'build',
  isSpaMode: false,
  future: { v3_singleFetch: true },
  entry: {
    module: {
      async default(request, status, headers, context) {
        const body = await renderToReadableStream(h(RemixServer, { context, url: request.url }))
        headers.set('Content-Type', 'text/html; charset=utf-8')
        return new Response(body, { status, headers })
      },
    },
  },
  routes: {
    root: {
      id: 'root',
      path: 'page',
      module: {
        default: Page,
        async loader({ context }) {
          await context.DB.prepare('SELECT 1').first()
          return { status: 'ok' }
        },
      },
    },
  },
  assets: {
    url: '/build/manifest.js',
    version: '1',
    entry: { module: '/build/entry.js', imports: [] },
    routes: {
      root: {
        id: 'root',
        path: 'page',
        module: '/build/root.js',
        imports: [],
        hasAction: false,
        hasLoader: true,
        hasClientAction: false,
        hasClientLoader: false,
        hasErrorBoundary: false,
      },
    },
  },
}

const handle = createRequestHandler(build, 'production')

/** The page, with the D1 binding as the loader's context. */
export const referencePage = (request, env) => handle(request, env)
