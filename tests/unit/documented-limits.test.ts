import { describe, expect, it } from 'vitest'
import { storageState } from '../../worker-api/contract/history/storage'
import { samlServiceProviderInputSchema } from '../../worker-api/contract/saml/saml'
import { missingSecrets } from '../../worker-api/env'
import { parseSpMetadata } from '../../worker-api/lib/saml/sp-metadata'
import type { SamlInputError } from '../../worker-api/lib/saml/xml'
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

describe('a SAML service provider (README, "SAML 2.0")', () => {
  const acs = (n: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        `<md:AssertionConsumerService index="${i}" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example.test/acs${i}"/>`,
    ).join('')
  const metadata = (services: string, padding = '') =>
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example.test"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${services}</md:SPSSODescriptor><!--${padding}--></md:EntityDescriptor>`
  const refusal = (xml: string) => {
    try {
      parseSpMetadata(xml)
      return 'accepted'
    } catch (error) {
      return (error as SamlInputError).reason
    }
  }

  it('has 10 assertion consumer services at most', () => {
    expect(refusal(metadata(acs(10)))).toBe('accepted')
    expect(refusal(metadata(acs(11)))).toBe('TOO_LARGE')
  })

  it('has metadata of 64 KiB at most: 65 536 characters pass, 65 537 are refused', () => {
    const bare = metadata(acs(1)).length
    expect(refusal(metadata(acs(1), 'x'.repeat(65_536 - bare)))).toBe('accepted')
    expect(refusal(metadata(acs(1), 'x'.repeat(65_537 - bare)))).toBe('TOO_LARGE')
  })

  const typed = {
    entityId: 'https://sp.example.test',
    assertionConsumerServices: ['https://sp.example.test/acs'],
  }
  it('is typed with 4 certificates and 12 attributes at most', () => {
    expect(samlServiceProviderInputSchema.safeParse({ ...typed, certificates: Array(4).fill('c') }).success).toBe(true)
    expect(samlServiceProviderInputSchema.safeParse({ ...typed, certificates: Array(5).fill('c') }).success).toBe(false)
    const attributes = (n: number) => Array.from({ length: n }, (_, i) => ({ source: 'mail', nom: `a${i}` }))
    expect(samlServiceProviderInputSchema.safeParse({ ...typed, attributes: attributes(12) }).success).toBe(true)
    expect(samlServiceProviderInputSchema.safeParse({ ...typed, attributes: attributes(13) }).success).toBe(false)
  })
})

describe('the database\'s size (README, "Ten years of history")', () => {
  it('is ok below 5 GB, attention from 5 GB, critique from 8 GB', () => {
    expect(storageState(4_999_999_999)).toBe('ok')
    expect(storageState(5_000_000_000)).toBe('attention')
    expect(storageState(7_999_999_999)).toBe('attention')
    expect(storageState(8_000_000_000)).toBe('critique')
  })
})
