import { vitePlugin as remix, cloudflareDevProxyVitePlugin as remixCloudflareDevProxy } from '@remix-run/dev'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig } from 'vite'
import tsconfigPaths from 'vite-tsconfig-paths'

declare module '@remix-run/cloudflare' {
  interface Future {
    v3_singleFetch: true
  }
}

let devApi: { fetch: (...args: never[]) => unknown } | undefined

export default defineConfig({
  plugins: [
    // Under `remix vite:dev`, the API instance the Worker would otherwise give Remix.
    remixCloudflareDevProxy({
      getLoadContext: async ({ context }) => {
        devApi ??= (await import('./worker-api/app')).createApp()
        return { ...context, api: devApi } as never
      },
    }),
    remix({
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
    tailwindcss(),
    tsconfigPaths(),
  ],
  ssr: { resolve: { conditions: ['workerd', 'worker', 'browser'] } },
  build: {
    target: 'es2022',
    // The captcha worker must stay a same-origin file: CSP (worker-src 'self') refuses data: URLs.
    assetsInlineLimit: (file) => (file.includes('altcha') ? false : undefined),
  },
})
