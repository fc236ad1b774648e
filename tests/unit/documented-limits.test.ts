import { describe, expect, it } from 'vitest'
import { missingSecrets } from '../../worker-api/env'
import { withBoundedBody } from '../../worker-api/lib/security-headers'
import { newRecoveryCodes } from '../../worker-api/lib/totp'

/*
 * The numbers README.md and SECURITY.md state that a pure function decides, each pinned by the number the document
 * states, written out: a test that took it from the code's constant would follow a change of the code instead of
 * catching it. tests/api/documented-limits.test.ts pins those the API decides.
 */

describe('recovery codes (README, "Second factor")', () => {
  it('are ten, of 16 letters and digits each', () => {
    const codes = newRecoveryCodes()
    expect(codes).toHaveLength(10)
    for (const code of codes) expect(code.replaceAll('-', '')).toMatch(/^[a-z0-9]{16}$/)
  })
})

describe('secrets (README, "Configuration")', () => {
  const complete = {
    JWT_SECRET: 'j'.repeat(32),
    SESSION_SECRET: 's'.repeat(32),
    PASSWORD_PEPPER: 'p'.repeat(32),
    CAPTCHA_HMAC_KEY: 'c'.repeat(32),
  }

  it('are 32 characters at least: 32 pass, 31 are named', () => {
    expect(missingSecrets(complete)).toEqual([])
    for (const name of Object.keys(complete)) {
      expect(missingSecrets({ ...complete, [name]: 'x'.repeat(31) })).toEqual([name])
    }
  })
})

describe('a form\'s body to the UI (SECURITY.md, "What is enforced where")', () => {
  const postOf = (body: string) =>
    new Request('https://portail.example.org/login', { method: 'POST', body, duplex: 'half' } as RequestInit)

  it('is 64 KiB at most: 65 536 bytes pass, 65 537 are refused', async () => {
    expect(await withBoundedBody(postOf('x'.repeat(65_536)))).not.toBeNull()
    expect(await withBoundedBody(postOf('x'.repeat(65_537)))).toBeNull()
  })
})
