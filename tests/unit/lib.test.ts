import { describe, expect, it } from 'vitest'
import { fromFormDate, fromWireDate, todayIso, toWireDate } from '../../worker-api/contract/dates'
import { requestOrigin, sameDomain } from '../../worker-api/lib/domain'
import { logTypeForApplication, logTypeForName } from '../../worker-api/lib/log-types'
import { hashPassword, PBKDF2_ITERATIONS, pepperKeyring, verifyPassword } from '../../worker-api/lib/password'

describe('password hashing', () => {
  it('stays within the production Workers PBKDF2 limit', () => {
    expect(PBKDF2_ITERATIONS).toBeLessThanOrEqual(100_000)
  })

  const ring = (secret: string, id = '1', retired: Record<string, string> = {}) => ({
    current: { id, secret },
    retired,
  })

  it('hashes self-describingly (cost and pepper id), verifies, and depends on the pepper', async () => {
    const hash = await hashPassword('Secret12', { id: '1', secret: 'pepper-a' })
    expect(hash).toMatch(/^pbkdf2-sha512\$100000\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/)
    expect(await verifyPassword('Secret12', hash, ring('pepper-a'))).toEqual({ ok: true, needsRehash: false })
    expect((await verifyPassword('Secret13', hash, ring('pepper-a'))).ok).toBe(false)
    expect((await verifyPassword('Secret12', hash, ring('pepper-b'))).ok).toBe(false)
  })

  it('flags hashes of another cost for upgrade and rejects the unknown-user dummy', async () => {
    const cheap = await hashPassword('Secret12', { id: '1', secret: 'p' }, 1000)
    expect(await verifyPassword('Secret12', cheap, ring('p'))).toEqual({ ok: true, needsRehash: true })
    expect((await verifyPassword('anything', null, ring('p'))).ok).toBe(false)
    expect((await verifyPassword('anything', 'garbage', ring('p'))).ok).toBe(false)
  })

  it('rotates the pepper: old hashes verify with the retired one and are flagged for a new hash', async () => {
    const old = await hashPassword('Secret12', { id: '1', secret: 'old-pepper' })
    const rotated = ring('new-pepper', '2', { '1': 'old-pepper' })
    expect(await verifyPassword('Secret12', old, rotated)).toEqual({ ok: true, needsRehash: true })
    expect((await verifyPassword('Wrong123', old, rotated)).ok).toBe(false)
    const renewed = await hashPassword('Secret12', rotated.current)
    expect(renewed.split('$')[2]).toBe('2')
    expect(await verifyPassword('Secret12', renewed, rotated)).toEqual({ ok: true, needsRehash: false })
    // A hash whose pepper is no longer configured never verifies.
    expect((await verifyPassword('Secret12', old, ring('new-pepper', '2'))).ok).toBe(false)
  })

  it('reads the hashes written before pepper ids as made with pepper "1"', async () => {
    const legacy = (await hashPassword('Secret12', { id: '1', secret: 'p' })).replace('$1$', '$')
    expect(legacy.split('$')).toHaveLength(4)
    expect(await verifyPassword('Secret12', legacy, ring('p'))).toEqual({ ok: true, needsRehash: false })
    expect(await verifyPassword('Secret12', legacy, ring('q', '2', { '1': 'p' }))).toEqual({
      ok: true,
      needsRehash: true,
    })
  })

  it('builds the keyring from the configuration', () => {
    expect(
      pepperKeyring({ PASSWORD_PEPPER: 'now', PASSWORD_PEPPER_ID: 'k3', PASSWORD_PEPPERS_RETIRED: 'k1:a,k2:b c' }),
    ).toEqual({ current: { id: 'k3', secret: 'now' }, retired: { k1: 'a', k2: 'b' } })
    expect(pepperKeyring({ PASSWORD_PEPPER: 'now' })).toEqual({ current: { id: '1', secret: 'now' }, retired: {} })
  })
})

describe("the organisation's calendar", () => {
  it('counts days in Paris time, winter and summer', () => {
    expect(todayIso(new Date('2026-03-01T22:59:00Z'))).toBe('2026-03-01')
    expect(todayIso(new Date('2026-03-01T23:00:00Z'))).toBe('2026-03-02')
    expect(todayIso(new Date('2026-07-01T21:59:00Z'))).toBe('2026-07-01')
    expect(todayIso(new Date('2026-07-01T22:00:00Z'))).toBe('2026-07-02')
  })
})

describe('wire dates', () => {
  it('converts between ISO and dd/MM/yyyy and rejects impossible dates', () => {
    expect(toWireDate('2026-02-03')).toBe('03/02/2026')
    expect(fromWireDate('03/02/2026')).toBe('2026-02-03')
    expect(fromWireDate('31/02/2026')).toBeNull()
    expect(fromWireDate('2026-02-03')).toBeNull()
  })

  it('reads a day from a form as a date input gives it, or as typed without one', () => {
    expect(fromFormDate('2026-02-03')).toBe('2026-02-03')
    expect(fromFormDate('03/02/2026')).toBe('2026-02-03')
    expect(fromFormDate('2026-02-31')).toBeNull()
    expect(fromFormDate('2026-2-3')).toBeNull()
    expect(fromFormDate('20260203')).toBeNull()
  })
})

describe('domains', () => {
  it('compares hosts, treating the loopback names as one machine', () => {
    expect(sameDomain('http://localhost:8787', 'http://127.0.0.1:9000')).toBe(true)
    expect(sameDomain('https://portail.example.org', 'https://portail.example.org:443')).toBe(true)
    expect(sameDomain('https://portail.example.org', 'https://autre.example.org')).toBe(false)
    expect(sameDomain('not a url', 'http://localhost')).toBe(false)
  })

  it('takes the site the request reached, never a client-supplied Origin header', () => {
    const spoofed = new Request('http://a.test/x', { headers: { Origin: 'http://b.test' } })
    expect(requestOrigin(spoofed)).toBe('http://a.test')
    expect(requestOrigin(new Request('https://a.test:8443/x'))).toBe('https://a.test:8443')
  })
})

describe('log types (spec §9)', () => {
  it('maps application names and sign-in/out', () => {
    expect(logTypeForApplication('Yard dangereux')).toBe('APPLI_YARD')
    expect(logTypeForApplication('Module Rendez vous')).toBe('APPLI_MODRDV')
    expect(logTypeForApplication('Pesage')).toBe('APPLI_PESAGE')
    expect(logTypeForApplication('Facturation')).toBe('APPLICATION')
    expect(logTypeForName('CONNEXION')).toBe('CONNEXION')
    expect(logTypeForName('DECONNEXION')).toBe('DECONNEXION')
  })

  it('gives any other name, even one every object inherits, the APPLICATION type', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(logTypeForName(name)).toBe('APPLICATION')
    }
  })
})
