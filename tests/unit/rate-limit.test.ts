import { describe, expect, it } from 'vitest'
import { clientKey, oidcClientAddressCounter, UNKNOWN_CLIENT } from '../../worker-api/services/core/rate-limit'

describe('clientKey: what a client is counted under', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7')
    expect(clientKey(' 203.0.113.7 ')).toBe('203.0.113.7')
  })

  it('groups IPv6 addresses by /64, however they are written', () => {
    const key = clientKey('2001:db8:1:2::1')
    expect(key).toBe('2001:db8:1:2::/64')
    expect(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key)
    expect(clientKey('2001:DB8:1:2:a:b:c:d')).toBe(key)
    expect(clientKey('2001:db8:1:3::1')).not.toBe(key)
  })

  it('counts an IPv4-mapped IPv6 address as the IPv4 one', () => {
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
  })

  it('puts a missing or unusable address under one shared key', () => {
    for (const ip of [null, undefined, '', 'garbage', '999.1.1.1', '1.2.3.4, 5.6.7.8', 'x'.repeat(500)]) {
      expect(clientKey(ip)).toBe(UNKNOWN_CLIENT)
    }
  })
})

describe('oidcClientAddressCounter: a client’s failures counted per address', () => {
  it('keys by the client and the address as clientKey counts it, apart from the client’s own budget', () => {
    const within = (clientId: string, ip: string | null) => oidcClientAddressCounter('failure', clientId, ip, 10).within
    expect(within('cs-1', '2001:db8:1:2::1')).toBe(within('cs-1', '2001:db8:1:2::ffff'))
    expect(within('cs-1', '2001:db8:1:2::1')).toContain("'failure:oidc:cs-1:2001:db8:1:2::/64'")
    expect(within('cs-1', '203.0.113.7')).not.toBe(within('cs-1', '203.0.113.8'))
    expect(within('cs-1', '203.0.113.7')).not.toBe(within('cs-2', '203.0.113.7'))
    expect(within('cs-1', null)).toContain(`:${UNKNOWN_CLIENT}'`)
  })
})
