import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createCookie } from '@remix-run/cloudflare'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

/**
 * patches/@remix-run+server-runtime+2.17.5.patch: reading a signed cookie (the browser session, on
 * every page) went through a character-by-character copy of escape() that ran a regular expression
 * on each character; patched, it is one pass of one expression, with the same output.
 */
const cookie = createCookie('portail-session', { secrets: ['a secret of thirty-two characters!'] })

async function roundTrip(value: unknown) {
  const header = await cookie.serialize(value)
  return cookie.parse(header.split(';')[0] ?? '')
}

describe('signed cookies (patched @remix-run/server-runtime)', () => {
  it('give back what they were given, whatever its characters', async () => {
    const session = {
      accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl-_',
      user: { id: 42, login: 'élodie.ça', nom: 'Ñúñez «Ça» ✓ 𝄞', prenom: "L'Hôte & <fils>", admin: false },
    }
    expect(await roundTrip(session)).toEqual(session)
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await roundTrip(value)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
      { numRuns: 200 },
    )
  })

  it('is the installed version the patch was written for, in both builds', () => {
    const require = createRequire(import.meta.url)
    const manifest = require.resolve('@remix-run/server-runtime/package.json')
    expect((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version).toBe('2.17.5')
    for (const build of ['dist/cookies.js', 'dist/esm/cookies.js']) {
      expect(readFileSync(manifest.replace('package.json', build), 'utf8'), build).toContain(
        'replace(/[^\\w*+\\-./@]/g',
      )
    }
  })
})
