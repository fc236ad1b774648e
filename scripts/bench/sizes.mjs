// What each page ships, and the Worker: sizes read from the build, not measured under load.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { quietEnv, root } from '../local.mjs'
import { bin } from './context.mjs'

/** The client manifest Remix wrote (entry and routes, with the chunks each imports). */
function clientManifest() {
  const dir = path.join(root, 'build', 'client', 'assets')
  const file = readdirSync(dir).find((name) => /^manifest-.*\.js$/.test(name))
  const text = readFileSync(path.join(dir, file), 'utf8')
  return JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1))
}

const gzipKiB = (files) =>
  [...files].reduce((sum, file) => sum + gzipSync(readFileSync(path.join(root, 'build', 'client', file))).length, 0) /
  1024

/** The French words a page fetches as JSON as it starts (app/lib/words.server.ts), gzip KiB. */
export async function wordsKiB() {
  const { build } = await import('esbuild')
  const bundled = await build({
    entryPoints: [path.join(root, 'app', 'locales', 'fr.ts')],
    bundle: true,
    format: 'esm',
    write: false,
  })
  const { fr } = await import(
    `data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`
  )
  return gzipSync(JSON.stringify(fr)).length / 1024
}

/** The gzip JavaScript and CSS of every page, heaviest first, and the framework's floor they all share. */
export function shipped() {
  const manifest = clientManifest()
  const floorFiles = new Set([manifest.entry.module, ...manifest.entry.imports])
  const ancestry = (id) => {
    const chain = []
    for (let route = manifest.routes[id]; route; route = manifest.routes[route.parentId]) chain.unshift(route)
    return chain
  }
  // Pages, not resource routes: the route modules with a component.
  const source = (id) =>
    ['tsx', 'ts'].map((ext) => path.join(root, 'app', `${id}.${ext}`)).find((file) => existsSync(file))
  const pages = Object.values(manifest.routes).filter((route) =>
    /export default/.test(readFileSync(source(route.id) ?? path.join(root, 'app', 'root.tsx'), 'utf8')),
  )
  const floorKiB = gzipKiB(floorFiles)
  return {
    floorKiB,
    pages: pages
      .map((route) => {
        const js = new Set(floorFiles)
        const css = new Set()
        for (const r of ancestry(route.id)) {
          js.add(r.module)
          for (const file of r.imports ?? []) js.add(file)
          for (const file of r.css ?? []) css.add(file)
        }
        return { path: route.path ?? route.id, id: route.id, jsKiB: gzipKiB(js), cssKiB: gzipKiB(css) }
      })
      .sort((a, b) => b.jsKiB - a.jsKiB),
  }
}

/** The Worker's upload size as `wrangler deploy --dry-run` reports it, bundled into `scratch`. */
export function workerSize(scratch) {
  const outdir = path.join(scratch, 'worker')
  const output = execFileSync(bin('wrangler'), ['deploy', '--dry-run', '--outdir', outdir], {
    cwd: root,
    env: quietEnv,
    encoding: 'utf8',
  })
  const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output)
  return match ? { raw: Number(match[1]), gzip: Number(match[2]) } : null
}
