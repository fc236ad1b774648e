import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createElement, Fragment, type ReactNode, Suspense } from 'react'
import { describe, expect, it } from 'vitest'

/**
 * patches/react-dom+18.3.1.patch: the Worker renders pages with react-dom's web-streams build, which
 * encoded every string of a page on its own (thousands of TextEncoder calls a page, an eighth of a
 * signed-in page's CPU) and sent it 512 bytes at a time. Patched, the renderer gathers the strings of
 * each write and encodes them once. These tests fail when the patch stops applying.
 */
const require = createRequire(import.meta.url)
const reactDom = (file: string) => require.resolve('react-dom/package.json').replace('package.json', file)
type Render = (node: ReactNode) => Promise<ReadableStream<Uint8Array> & { allReady: Promise<void> }>
const builds: [string, Render][] = ['production.min', 'development'].map((build) => [
  build,
  require(reactDom(`cjs/react-dom-server.browser.${build}.js`)).renderToReadableStream,
])

async function chunksOf(stream: ReadableStream<Uint8Array>) {
  const chunks: Uint8Array[] = []
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk)
  return chunks
}

const text = (chunks: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks))

/** A list as long as an administration page's. */
const rows = Array.from({ length: 400 }, (_, i) =>
  createElement('li', { key: i, className: 'row' }, `Ligne ${i} — élève « ${'é'.repeat(i % 5)} » & <suite>`),
)

describe('server render (patched react-dom)', () => {
  for (const [build, renderToReadableStream] of builds) {
    it(`writes a page in one chunk per write, its text whole (${build})`, async () => {
      const stream = await renderToReadableStream(createElement('ul', null, rows))
      await stream.allReady
      const chunks = await chunksOf(stream)
      // Unpatched: a chunk every 512 bytes, about fifty for this page.
      expect(chunks.length).toBe(1)
      const html = text(chunks)
      expect(html.length).toBeGreaterThan(20_000)
      expect(html).toContain('<li class="row">Ligne 399 — élève « éééé » &amp; &lt;suite&gt;</li>')
    })

    it(`streams what waits in a later write, in order (${build})`, async () => {
      let resolve = () => {}
      const later = new Promise<void>((done) => {
        resolve = done
      })
      let ready = false
      function Slow(): ReactNode {
        if (!ready)
          throw later.then(() => {
            ready = true
          })
        return createElement('p', null, 'arrivé ✓')
      }
      const stream = await renderToReadableStream(
        createElement(
          Fragment,
          null,
          createElement('h1', null, 'Accès'),
          createElement(Suspense, { fallback: createElement('span', null, 'attente') }, createElement(Slow)),
        ),
      )
      const reading = chunksOf(stream)
      resolve()
      const chunks = await reading
      expect(chunks.length).toBeGreaterThan(1)
      const html = text(chunks)
      expect(html.indexOf('<h1>Accès</h1>')).toBe(0)
      expect(html).toContain('attente')
      expect(html).toContain('<p>arrivé ✓</p>')
    })
  }

  it('is the installed version the patch was written for, in both builds', () => {
    expect((JSON.parse(readFileSync(reactDom('package.json'), 'utf8')) as { version: string }).version).toBe('18.3.1')
    const production = readFileSync(reactDom('cjs/react-dom-server.browser.production.min.js'), 'utf8')
    expect(production).toContain('function p(a,b){l+=b}')
    const development = readFileSync(reactDom('cjs/react-dom-server.browser.development.js'), 'utf8')
    expect(development).toContain('pendingText += chunk')
  })
})
