import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { type AgnosticRouteObject, matchRoutes } from '@remix-run/router'
import { describe, expect, it } from 'vitest'

/**
 * patches/@remix-run+router+1.23.4.patch: on the server, a route tree is flattened and ranked once,
 * not on every match (Remix v2 matches a document request's path three times), and a route path's
 * pattern is compiled once. These tests fail when the patch stops applying (a new version of
 * @remix-run/router, a patch left out of the install).
 */

/** A route tree that counts how often its paths are read: flattening reads each route's path. */
function countedTree() {
  const counter = { reads: 0 }
  const route = (id: string, path: string | undefined, children?: AgnosticRouteObject[]) =>
    ({
      id,
      get path() {
        counter.reads++
        return path
      },
      ...(path === undefined ? { index: true } : {}),
      ...(children ? { children } : {}),
    }) as AgnosticRouteObject
  const routes = [
    route('root', '', [
      route('home', undefined),
      route('login', 'login'),
      route('pages', 'pages', [
        route('user', 'user/acces'),
        route('structure', 'admin/user/structure/:idStructure'),
        route('splat', '*'),
      ]),
    ]),
  ]
  return { routes, counter }
}

const idsOf = (matches: ReturnType<typeof matchRoutes>) => matches?.map((match) => match.route.id) ?? null

describe('route matching (patched @remix-run/router)', () => {
  it('flattens and ranks a route tree once, however often and whatever it is matched against', () => {
    const { routes, counter } = countedTree()
    expect(idsOf(matchRoutes(routes, '/pages/user/acces'))).toEqual(['root', 'pages', 'user'])
    const afterFirst = counter.reads
    expect(afterFirst).toBeGreaterThan(0)
    expect(idsOf(matchRoutes(routes, '/pages/admin/user/structure/4'))).toEqual(['root', 'pages', 'structure'])
    expect(idsOf(matchRoutes(routes, '/login'))).toEqual(['root', 'login'])
    expect(idsOf(matchRoutes(routes, '/'))).toEqual(['root', 'home'])
    expect(idsOf(matchRoutes(routes, '/pages/anything/else'))).toEqual(['root', 'pages', 'splat'])
    expect(matchRoutes(routes, '/pages/admin/user/structure/4')?.at(-1)?.params).toMatchObject({ idStructure: '4' })
    expect(counter.reads).toBe(afterFirst)
  })

  it('flattens another tree of its own: the cache is per tree, not global', () => {
    const first = countedTree()
    const second = countedTree()
    matchRoutes(first.routes, '/login')
    expect(second.counter.reads).toBe(0)
    expect(idsOf(matchRoutes(second.routes, '/login'))).toEqual(['root', 'login'])
    expect(second.counter.reads).toBeGreaterThan(0)
  })

  it('is the installed version the patch was written for, in both of its builds', () => {
    const require = createRequire(import.meta.url)
    const manifest = require.resolve('@remix-run/router/package.json')
    expect((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version).toBe('1.23.4')
    for (const build of ['router.js', 'router.cjs.js']) {
      const source = readFileSync(manifest.replace('package.json', `dist/${build}`), 'utf8')
      expect(source, build).toContain('rankedBranchesCache')
      expect(source, build).toContain('compiledPaths')
    }
  })
})
