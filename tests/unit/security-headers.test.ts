import { describe, expect, it } from 'vitest'
import { missingSecrets } from '../../worker-api/env'
import { isSameOriginWrite, securityHeaders } from '../../worker-api/lib/security-headers'

const html = () => new Response('<p>x</p>', { headers: { 'Content-Type': 'text/html; charset=utf-8' } })

describe('security headers (DESIGN §3)', () => {
  it('sets a nonce-based CSP and the usual headers on pages', () => {
    const headers = securityHeaders(html(), { nonce: 'abc', https: true, path: '/login' }).headers
    const csp = headers.get('Content-Security-Policy') ?? ''
    for (const directive of [
      "default-src 'self'",
      "script-src 'self' 'nonce-abc'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
    ]) {
      expect(csp).toContain(directive)
    }
    expect(csp).not.toContain('challenges.cloudflare.com')
    expect(headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(headers.get('Strict-Transport-Security')).toMatch(/max-age=\d+/)
  })

  it('allows Turnstile only when it is the captcha, and no HSTS over plain HTTP', () => {
    const headers = securityHeaders(html(), { nonce: 'n', https: false, path: '/login', turnstile: true }).headers
    expect(headers.get('Content-Security-Policy')).toContain(
      "script-src 'self' 'nonce-n' https://challenges.cloudflare.com",
    )
    expect(headers.get('Strict-Transport-Security')).toBeNull()
  })

  it('keeps token-bearing pages out of the Referer header', () => {
    expect(securityHeaders(html(), { nonce: 'n', https: true, path: '/launch' }).headers.get('Referrer-Policy')).toBe(
      'no-referrer',
    )
  })
})

describe('required secrets', () => {
  const complete = {
    JWT_SECRET: 'j'.repeat(32),
    SESSION_SECRET: 's'.repeat(32),
    PASSWORD_PEPPER: 'p'.repeat(32),
    CAPTCHA_HMAC_KEY: 'c'.repeat(32),
  }
  it('names the missing or short ones, and the Turnstile keys when Turnstile is chosen', () => {
    expect(missingSecrets(complete)).toEqual([])
    expect(missingSecrets({ ...complete, JWT_SECRET: 'short' })).toEqual(['JWT_SECRET'])
    expect(missingSecrets({ ...complete, CAPTCHA_PROVIDER: 'turnstile' })).toEqual([
      'TURNSTILE_SITE_KEY',
      'TURNSTILE_SECRET_KEY',
    ])
  })
})

describe('same-origin writes (DESIGN §3)', () => {
  const post = (headers: Record<string, string>) =>
    new Request('https://portail.example.org/login', { method: 'POST', headers })
  it('accepts the own origin, and Origin null only when the browser says same-origin', () => {
    expect(isSameOriginWrite(post({ Origin: 'https://portail.example.org' }))).toBe(true)
    expect(isSameOriginWrite(post({ Origin: 'null', 'Sec-Fetch-Site': 'same-origin' }))).toBe(true)
    expect(isSameOriginWrite(post({}))).toBe(true)
    expect(isSameOriginWrite(new Request('https://portail.example.org/login'))).toBe(true)
  })
  it('refuses other origins and an unexplained Origin null', () => {
    expect(isSameOriginWrite(post({ Origin: 'https://evil.example' }))).toBe(false)
    expect(isSameOriginWrite(post({ Origin: 'null' }))).toBe(false)
    expect(isSameOriginWrite(post({ Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }))).toBe(false)
  })
})
