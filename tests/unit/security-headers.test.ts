import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { configurationProblems, DEVELOPMENT_ONLY_MARKER, missingSecrets } from '../../worker-api/env'
import {
  apiHeaders,
  isSameOriginWrite,
  MAX_FORM_BYTES,
  securityHeaders,
  withBoundedBody,
} from '../../worker-api/lib/security-headers'

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

  it('keeps pages and their data out of every cache', () => {
    expect(
      securityHeaders(html(), { nonce: 'n', https: true, path: '/pages/user/me' }).headers.get('Cache-Control'),
    ).toBe('private, no-store')
    const data = new Response('[]', { headers: { 'Content-Type': 'text/x-script' } })
    expect(
      securityHeaders(data, { nonce: 'n', https: true, path: '/pages/user/me.data' }).headers.get('Cache-Control'),
    ).toBe('private, no-store')
  })

  it('gives API answers nosniff, no framing, no referrer and no caching, unless the route chose', () => {
    const headers = new Headers({ 'Content-Type': 'application/json' })
    apiHeaders(headers, true)
    expect(Object.fromEntries(headers)).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    expect(headers.get('Strict-Transport-Security')).toMatch(/max-age=\d+/)
    const own = new Headers({ 'Content-Security-Policy': "frame-ancestors 'self'", 'Cache-Control': 'max-age=60' })
    apiHeaders(own, false)
    expect(own.get('Content-Security-Policy')).toBe("frame-ancestors 'self'")
    expect(own.get('X-Frame-Options')).toBeNull()
    expect(own.get('Cache-Control')).toBe('max-age=60')
    expect(own.get('Strict-Transport-Security')).toBeNull()
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

describe('a configuration the Worker refuses to serve with', () => {
  const production = {
    ENVIRONMENT: 'production',
    JWT_SECRET: 'j'.repeat(32),
    SESSION_SECRET: 's'.repeat(32),
    PASSWORD_PEPPER: 'p'.repeat(32),
    CAPTCHA_HMAC_KEY: 'c'.repeat(32),
  }
  const example = readFileSync(path.join(import.meta.dirname, '../../.dev.vars.example'), 'utf8')
  const published = Object.fromEntries(
    [...example.matchAll(/^([A-Z_]+)=(?:"(.*)"|'(.*)')$/gm)].map(([, key, a, b]) => [
      key as string,
      (a ?? b) as string,
    ]),
  )

  it('marks every secret of .dev.vars.example as development-only', () => {
    for (const key of [
      'JWT_SECRET',
      'SESSION_SECRET',
      'PASSWORD_PEPPER',
      'CAPTCHA_HMAC_KEY',
      'FOURNISSEUR_SECRET_KEY',
      'WEBHOOK_SECRET_KEY',
    ]) {
      expect(published[key], key).toMatch(new RegExp(`^${DEVELOPMENT_ONLY_MARKER}`))
    }
    // The signing key is a JWK: the marker is a member of its own.
    expect(JSON.parse(published.OIDC_SIGNING_KEY as string).note).toMatch(new RegExp(`^${DEVELOPMENT_ONLY_MARKER}`))
  })

  it('names the published development values outside development, and accepts them in development', () => {
    expect(configurationProblems(production)).toEqual([])
    const withDevValues = { ...production, ...published, ENVIRONMENT: 'production' }
    const problems = configurationProblems(withDevValues)
    const keys = [
      'JWT_SECRET',
      'SESSION_SECRET',
      'PASSWORD_PEPPER',
      'CAPTCHA_HMAC_KEY',
      'OIDC_SIGNING_KEY',
      // The keys that seal partners' and webhooks' secrets: a published one would open them all.
      'FOURNISSEUR_SECRET_KEY',
      'WEBHOOK_SECRET_KEY',
    ]
    for (const key of keys) {
      expect(problems.some((problem) => problem.startsWith(`${key} holds a published development-only value`))).toBe(
        true,
      )
    }
    expect(configurationProblems({ ...withDevValues, ENVIRONMENT: undefined })).toHaveLength(keys.length)
    expect(configurationProblems({ ...withDevValues, ENVIRONMENT: 'development' })).toEqual([])
  })

  it('names a rate or work factor that is no whole number: it would limit nothing', () => {
    expect(
      configurationProblems({ ...production, LOGIN_RATE_PER_MINUTE: '30', CAPTCHA_MAX_NUMBER: ' 50000 ' }),
    ).toEqual([])
    expect(
      configurationProblems({ ...production, LOGIN_RATE_PER_MINUTE: '30/min', FORGOT_RATE_PER_MINUTE: 'five' }),
    ).toEqual(['FORGOT_RATE_PER_MINUTE must be a whole number', 'LOGIN_RATE_PER_MINUTE must be a whole number'])
    for (const value of ['', '-1', '2.5', '1e3']) {
      expect(configurationProblems({ ...production, CLIENT_LOG_RATE_PER_MINUTE: value }), value).toEqual([
        'CLIENT_LOG_RATE_PER_MINUTE must be a whole number',
      ])
    }
  })

  it('names a pepper keyring it cannot read', () => {
    const retired = `1:${'o'.repeat(32)}`
    expect(
      configurationProblems({ ...production, PASSWORD_PEPPER_ID: '2', PASSWORD_PEPPERS_RETIRED: retired }),
    ).toEqual([])
    expect(configurationProblems({ ...production, PASSWORD_PEPPER_ID: 'no spaces' })).toEqual([
      'PASSWORD_PEPPER_ID must be 1 to 16 letters, digits, "-" or "_"',
    ])
    expect(
      configurationProblems({ ...production, PASSWORD_PEPPER_ID: '2', PASSWORD_PEPPERS_RETIRED: '1:short' }),
    ).toEqual(['PASSWORD_PEPPERS_RETIRED must be "id:secret" pairs, secrets of 32+ characters'])
    expect(configurationProblems({ ...production, PASSWORD_PEPPERS_RETIRED: retired })).toEqual([
      'PASSWORD_PEPPER_ID names a retired pepper',
    ])
  })

  it('names missing secrets in words', () => {
    expect(configurationProblems({ ...production, JWT_SECRET: 'short' })).toEqual([
      'JWT_SECRET is missing or shorter than 32 characters',
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
  it('refuses a post without Origin that the browser says comes from another site', () => {
    expect(isSameOriginWrite(post({ 'Sec-Fetch-Site': 'cross-site' }))).toBe(false)
    expect(isSameOriginWrite(post({ 'Sec-Fetch-Site': 'same-site' }))).toBe(false)
    expect(isSameOriginWrite(post({ 'Sec-Fetch-Site': 'same-origin' }))).toBe(true)
  })
})

describe('the size of what a form may send to the UI', () => {
  const postOf = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request('https://portail.example.org/login', { method: 'POST', body, headers, duplex: 'half' } as RequestInit)

  it('passes a form of ordinary size on, body intact', async () => {
    const form = new URLSearchParams({ identifiant: 'agent', motDePasse: 'Agent1234' })
    const bounded = await withBoundedBody(postOf(form))
    expect(await bounded?.text()).toBe(form.toString())
  })

  it('refuses a body over the limit, announced or streamed without a length', async () => {
    expect(await withBoundedBody(postOf('x'.repeat(MAX_FORM_BYTES + 1)))).toBeNull()
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(4096)))
        controller.close()
      },
    })
    expect(await withBoundedBody(postOf(stream))).toBeNull()
    expect(await withBoundedBody(postOf('z'.repeat(MAX_FORM_BYTES)))).not.toBeNull()
  })

  it('leaves requests without a body alone', async () => {
    const get = new Request('https://portail.example.org/login')
    expect(await withBoundedBody(get)).toBe(get)
  })
})
