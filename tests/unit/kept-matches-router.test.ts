import { describe, expect, it } from 'vitest'
import { KEPT_MATCHES, KeptMatchesRouter } from '../../worker-api/lib/kept-matches-router'

/** The handlers a match answers, with the params each was given. */
function matched(router: KeptMatchesRouter<string>, method: string, path: string) {
  const [handlers, stash] = router.match(method, path)
  return handlers.map(([handler, params]) => {
    const values = Object.fromEntries(
      Object.entries(params).map(([name, value]) => [name, stash ? stash[value as number] : value]),
    )
    return [handler, values]
  })
}

describe('KeptMatchesRouter', () => {
  it("matches a word and an id at the same level (the spec's paths), the first time as when kept", () => {
    const router = new KeptMatchesRouter<string>()
    router.add('ALL', '*', 'middleware')
    router.add('GET', '/rest/bd/session/liste', 'list')
    router.add('DELETE', '/rest/bd/session/:id', 'end')
    router.add('GET', '/rest/bd/utilisateur/:id', 'user')
    for (let time = 0; time < 2; time++) {
      expect(matched(router, 'GET', '/rest/bd/session/liste')).toEqual([
        ['middleware', {}],
        ['list', {}],
      ])
      expect(matched(router, 'DELETE', '/rest/bd/session/abc')).toEqual([
        ['middleware', {}],
        ['end', { id: 'abc' }],
      ])
      expect(matched(router, 'GET', '/rest/bd/utilisateur/42')).toEqual([
        ['middleware', {}],
        ['user', { id: '42' }],
      ])
      expect(matched(router, 'GET', '/rest/bd/utilisateur/43')).toEqual([
        ['middleware', {}],
        ['user', { id: '43' }],
      ])
      expect(matched(router, 'POST', '/rest/bd/session/liste')).toEqual([['middleware', {}]])
    }
  })

  it('keeps 1000 matches at most (README), the newest, and still matches every path', () => {
    expect(KEPT_MATCHES).toBe(1000)
    const router = new KeptMatchesRouter<string>()
    router.add('GET', '/rest/bd/utilisateur/:id', 'user')
    for (let id = 1; id <= KEPT_MATCHES + 50; id++) {
      expect(matched(router, 'GET', `/rest/bd/utilisateur/${id}`)).toEqual([['user', { id: String(id) }]])
    }
    expect(router.size).toBe(KEPT_MATCHES)
    expect(matched(router, 'GET', '/rest/bd/utilisateur/1')).toEqual([['user', { id: '1' }]])
  })

  it('matches a path of more than 256 characters without keeping it', () => {
    const router = new KeptMatchesRouter<string>()
    router.add('GET', '/rest/bd/utilisateur/:id', 'user')
    const long = 'x'.repeat(300)
    expect(matched(router, 'GET', `/rest/bd/utilisateur/${long}`)).toEqual([['user', { id: long }]])
    expect(router.size).toBe(0)
    expect(matched(router, 'GET', '/rest/bd/utilisateur/7')).toEqual([['user', { id: '7' }]])
    expect(router.size).toBe(1)
  })

  it('forgets what it kept when a route is added', () => {
    const router = new KeptMatchesRouter<string>()
    router.add('GET', '/rest/bd/session/:id', 'end')
    expect(matched(router, 'GET', '/rest/bd/session/liste')).toEqual([['end', { id: 'liste' }]])
    router.add('GET', '/rest/bd/session/liste', 'list')
    expect(matched(router, 'GET', '/rest/bd/session/liste').map(([handler]) => handler)).toContain('list')
  })
})
