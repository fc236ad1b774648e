import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { type AgnosticRouteObject, createStaticHandler, matchRoutes } from '@remix-run/router'
import { createStaticRouter } from 'react-router-dom/server'
import { describe, expect, it } from 'vitest'

/**
 * patches/@remix-run+router+1.23.4.patch: on the server, a route tree is flattened and ranked once,
 * not on every match, a route path's pattern is compiled once, and a path is matched against a tree
 * once (Remix v2 matches a document request's path six times, and each of its parents for the
 * partial manifest). patches/@remix-run+react+2.17.5.patch and react-router-dom+6.30.6.patch keep the
 * render's route trees from one request to the next, so that these caches serve them too. These tests
 * fail when a patch stops applying (a new version, a patch left out of the install).
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

  it('answers a path again from what it matched, each caller with matches of its own', () => {
    const { routes } = countedTree()
    const first = matchRoutes(routes, '/pages/admin/user/structure/4')
    const again = matchRoutes(routes, '/pages/admin/user/structure/4')
    expect(again).toEqual(first)
    expect(again).not.toBe(first)
    // The matches of one answer share their parameters, as an unpatched match gives them.
    expect(new Set(again?.map((match) => match.params)).size).toBe(1)
    // A caller changing its answer changes nobody else's.
    if (first?.[0]) {
      ;(first[0].params as Record<string, string>).idStructure = '9'
      first[0].pathname = '/elsewhere'
    }
    expect(matchRoutes(routes, '/pages/admin/user/structure/4')?.map((m) => [m.pathname, m.params])).toEqual(
      again?.map((m) => [m.pathname, m.params]),
    )
    expect(matchRoutes(routes, '/pages/admin/user/structure/5')?.at(-1)?.params).toEqual({ idStructure: '5' })
    expect(matchRoutes(routes, '/nowhere')).toBeNull()
    expect(matchRoutes(routes, '/nowhere')).toBeNull()
  })

  it("converts a render's route tree to data routes once, whatever the request", async () => {
    const { routes } = countedTree()
    const { query } = createStaticHandler(routes)
    const contexts = await Promise.all(
      ['/pages/user/acces', '/login'].map((path) => query(new Request(`http://localhost${path}`))),
    )
    const [one, two] = contexts.map((context) => {
      if (context instanceof Response) throw new Error('no static context')
      return createStaticRouter(routes, context)
    })
    expect(two?.routes).toBe(one?.routes)
    expect(one?.state.matches.map((match) => match.route.id)).toEqual(['root', 'pages', 'user'])
    expect(two?.state.matches.map((match) => match.route.id)).toEqual(['root', 'login'])
    // Its matches name the data routes the render uses.
    expect(one?.state.matches.at(-1)?.route).toBe(one?.routes[0]?.children?.[2]?.children?.[0])
  })

  it('are the installed versions the patches were written for, in every build the server may load', () => {
    const require = createRequire(import.meta.url)
    const patched = [
      {
        name: '@remix-run/router',
        version: '1.23.4',
        builds: ['dist/router.js', 'dist/router.cjs.js'],
        marks: ['rankedBranchesCache', 'compiledPaths', 'matchesCache'],
      },
      {
        name: '@remix-run/react',
        version: '2.17.5',
        builds: ['dist/server.js', 'dist/esm/server.js'],
        marks: ['serverRoutesCache'],
      },
      { name: 'react-router-dom', version: '6.30.6', builds: ['server.js', 'server.mjs'], marks: ['dataRoutesCache'] },
    ]
    for (const { name, version, builds, marks } of patched) {
      const manifest = require.resolve(`${name}/package.json`)
      expect((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version, name).toBe(version)
      for (const build of builds) {
        const source = readFileSync(manifest.replace('package.json', build), 'utf8')
        for (const mark of marks) expect(source, `${name}/${build}`).toContain(mark)
      }
    }
  })
})
