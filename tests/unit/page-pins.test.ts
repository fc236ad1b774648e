import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ADMIN_MENU, USER_MENU } from '~/lib/menu'
import { ADMIN_MENU_PAGES } from '../e2e/menu-pages.mjs'

/**
 * Every page is pinned where a page must be: its round trips in the request-cost test, and its address in the browser
 * tests that walk the screens (accessibility and widths, JavaScript on and off). The pages are read from the routes
 * themselves (a route module with a loader and a component under /pages), so a new page nobody pinned fails here, as
 * an operation missing from the authorisation matrix fails there. A page is pinned by any address its route matches.
 */

const root = path.resolve(__dirname, '..', '..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

/** Remix's flat routes: `pages.admin.demandes.$id.tsx` is /pages/admin/demandes/:id (`_index` its folder's page). */
function routePattern(file: string): RegExp {
  const segments = file
    .replace(/\.tsx$/, '')
    .split('.')
    .filter((segment) => segment !== '_index')
    .map((segment) => (segment.startsWith('$') ? '[^/?#]+' : segment.replace(/_$/, '')))
  return new RegExp(`^/${segments.join('/')}(?:[?#].*)?$`)
}

const routeFiles = readdirSync(path.join(root, 'app', 'routes'))
/** A layout: the frame of the routes named after it (pages.tsx of every page under /pages), pinned through them. */
const isLayout = (file: string) =>
  routeFiles.some((other) => other !== file && other.endsWith('.tsx') && other.startsWith(file.replace(/\.tsx$/, '.')))

/** The route modules that render a page under /pages (a resource route, a redirect, a layout or the catch-all is none). */
const pages = routeFiles
  .filter((file) => file.startsWith('pages') && file.endsWith('.tsx') && file !== 'pages.$.tsx' && !isLayout(file))
  .filter((file) => {
    const source = read(path.join('app', 'routes', file))
    return /export (async )?function loader|export const loader/.test(source) && /export default/.test(source)
  })
  .map((file) => ({ file, pattern: routePattern(file) }))

/** The addresses a file names: literals and templates starting with /pages, an interpolated id read as `1`. */
function addresses(file: string): string[] {
  const found = read(file).matchAll(/['`](\/pages[^'`\s]*)['`]/g)
  return [...found].map(([, address]) => (address ?? '').replace(/\$\{[^}]*\}/g, '1'))
}

// The request-cost test reads the menu's pages besides those its tables pin (withMenu).
const costed = [...[...ADMIN_MENU, ...USER_MENU].map((item) => item.to), ...addresses('tests/api/request-cost.test.ts')]
const walked = [
  // support.mjs's ADMIN_SCREENS start with the menu's pages.
  ...ADMIN_MENU_PAGES,
  ...addresses('tests/e2e/support.mjs'),
  ...addresses('tests/e2e/accessibility.test.mjs'),
  ...addresses('tests/e2e/accessibility-screens.test.mjs'),
  ...addresses('tests/e2e/widths.test.mjs'),
]

const unpinned = (list: string[]) =>
  pages.filter(({ pattern }) => !list.some((address) => pattern.test(address))).map(({ file }) => file)

describe('every page is pinned', () => {
  it('finds the pages from the routes (the menu’s among them)', () => {
    expect(pages.length).toBeGreaterThan(20)
    for (const item of [...ADMIN_MENU, ...USER_MENU]) {
      expect(
        pages.some(({ pattern }) => pattern.test(item.to)),
        item.to,
      ).toBe(true)
    }
  })

  it('has its round trips in the request-cost test', () => {
    expect(unpinned(costed)).toEqual([])
  })

  it('is walked by the accessibility and width tests, the menu’s as the menu lists them', () => {
    expect(ADMIN_MENU_PAGES).toEqual(ADMIN_MENU.map((item) => item.to))
    expect(unpinned(walked)).toEqual([])
  })
})
