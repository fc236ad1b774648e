import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ACCESS_TOKEN_TTL_SECONDS,
  CHECKED_TOKENS_KEPT,
  signAccessToken,
  verifyAccessToken,
} from '../../worker-api/lib/jwt'

const SECRET = 'test-only-secret-0123456789abcdef'
const claims = { sub: '7', admin: false, domain: 'http://localhost', sid: 'family-1' }

afterEach(() => vi.useRealTimers())

describe('verifyAccessToken, which keeps the tokens it checked', () => {
  it(`accepts a token for ${ACCESS_TOKEN_TTL_SECONDS} s, checked again or not, and refuses it past its last second`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const issued = Date.UTC(2026, 10, 27, 9, 0, 0)
    vi.setSystemTime(issued)
    const token = await signAccessToken(SECRET, claims)
    expect(await verifyAccessToken(SECRET, token)).toEqual(claims)
    vi.setSystemTime(issued + ACCESS_TOKEN_TTL_SECONDS * 1000 + 999)
    expect(await verifyAccessToken(SECRET, token)).toEqual(claims)
    vi.setSystemTime(issued + (ACCESS_TOKEN_TTL_SECONDS + 1) * 1000)
    expect(await verifyAccessToken(SECRET, token)).toBeNull()
    // Refused again once forgotten, and a token never checked before is refused the same way.
    expect(await verifyAccessToken(SECRET, token)).toBeNull()
    vi.setSystemTime(issued)
    const other = await signAccessToken(SECRET, { ...claims, sid: 'family-2' })
    vi.setSystemTime(issued + (ACCESS_TOKEN_TTL_SECONDS + 1) * 1000)
    expect(await verifyAccessToken(SECRET, other)).toBeNull()
  })

  it('refuses a token whose payload or signature was changed, after the genuine one was accepted', async () => {
    const token = await signAccessToken(SECRET, claims)
    expect(await verifyAccessToken(SECRET, token)).toEqual(claims)
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const admin = btoa(JSON.stringify({ ...JSON.parse(atob(payload)), admin: true })).replace(/=+$/, '')
    expect(await verifyAccessToken(SECRET, `${header}.${admin}.${signature}`)).toBeNull()
    // The first character: the last one of 43 carries two bits no byte holds, and may decode the same.
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`
    expect(await verifyAccessToken(SECRET, `${header}.${payload}.${flipped}`)).toBeNull()
    expect(await verifyAccessToken(SECRET, token)).toEqual(claims)
  })

  it('refuses a genuine token with anything after its signature, or of more than 4096 characters', async () => {
    const token = await signAccessToken(SECRET, claims)
    expect(await verifyAccessToken(SECRET, token)).toEqual(claims)
    expect(await verifyAccessToken(SECRET, `${token}.x`)).toBeNull()
    expect(await verifyAccessToken(SECRET, `${token}.${'A'.repeat(5000)}`)).toBeNull()
    const padded = await signAccessToken(SECRET, { ...claims, domain: `https://${'a'.repeat(3000)}.example` })
    expect(padded.length).toBeGreaterThan(4096)
    expect(await verifyAccessToken(SECRET, padded)).toBeNull()
  })

  it('refuses a token accepted under one secret when checked under another', async () => {
    const token = await signAccessToken(SECRET, claims)
    expect(await verifyAccessToken(SECRET, token)).toEqual(claims)
    expect(await verifyAccessToken(`${SECRET}-rotated`, token)).toBeNull()
  })

  it('keeps the latest 1000 checked tokens (README), and still checks every token past them', async () => {
    expect(CHECKED_TOKENS_KEPT).toBe(1000)
    const tokens = await Promise.all(
      Array.from({ length: CHECKED_TOKENS_KEPT + 5 }, (_, index) =>
        signAccessToken(SECRET, { ...claims, sid: `family-${index}` }),
      ),
    )
    for (const token of tokens) expect((await verifyAccessToken(SECRET, token))?.sid).toMatch(/^family-/)
    expect(await verifyAccessToken(SECRET, tokens[0] as string)).toEqual({ ...claims, sid: 'family-0' })
  })

  it('gives claims no caller can change for the next request', async () => {
    const token = await signAccessToken(SECRET, claims)
    const first = await verifyAccessToken(SECRET, token)
    expect(() => {
      ;(first as { admin: boolean }).admin = true
    }).toThrow(TypeError)
    expect((await verifyAccessToken(SECRET, token))?.admin).toBe(false)
  })
})
