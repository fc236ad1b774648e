import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
// The published development values, read from the file itself so that the test follows it.
import devVarsExample from '../../.dev.vars.example?raw'
import worker from '../../server'
import { db } from './helpers'

afterEach(() => {
  vi.restoreAllMocks()
})

const HTTP = 'http://localhost:8787'
const HTTPS = 'https://localhost:8787'
const HSTS = 'max-age=63072000; includeSubDomains'
const API_CSP = "default-src 'none'; frame-ancestors 'none'"
const SECRETS = ['JWT_SECRET', 'SESSION_SECRET', 'PASSWORD_PEPPER', 'CAPTCHA_HMAC_KEY'] as const

type Overrides = { [K in keyof typeof env]?: (typeof env)[K] | undefined }

/** The test Worker's bindings with some settings changed (`undefined`: the setting is absent). */
function envWith(overrides: Overrides = {}): typeof env {
  const changed: Record<string, unknown> = { ...env, ...overrides }
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete changed[key]
  return changed as unknown as typeof env
}

/** One request through the real Worker entry, its body read and its after-response work awaited. */
async function visit(url: string, init: RequestInit = {}, overrides: Overrides = {}) {
  const ctx = createExecutionContext()
  const response = await worker.fetch(new Request(url, init), envWith(overrides), ctx)
  const body = await response.text()
  await waitOnExecutionContext(ctx)
  return { response, body }
}

/** Fires a cron trigger at the real Worker entry and waits for the work it scheduled. */
async function fireCron(cron: string, overrides: Overrides = {}) {
  const ctx = createExecutionContext()
  const controller = { cron, scheduledTime: Date.now(), noRetry() {} } as ScheduledController
  await worker.scheduled(controller, envWith(overrides), ctx)
  await waitOnExecutionContext(ctx)
}

/** The nonce the CSP allows scripts with (nothing else but 'self'), or null. */
function cspNonce(response: Response): string | null {
  const csp = response.headers.get('Content-Security-Policy') ?? ''
  return /(?:^|; )script-src 'self' 'nonce-([^']+)'(?:;|$)/.exec(csp)?.[1] ?? null
}

/** The `nonce` attribute of every <script> tag of a page (null for a tag without one). */
function scriptNonces(html: string): (string | null)[] {
  return [...html.matchAll(/<script\b[^>]*>/g)].map((tag) => /\bnonce="([^"]*)"/.exec(tag[0])?.[1] ?? null)
}

/** KEY="value" lines of a dotenv file. */
function dotenv(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^([A-Z_][A-Z0-9_]*)="([^"]*)"\s*$/gm)].map((m) => [m[1], m[2]]))
}

describe('UI pages served by the Worker', () => {
  it('carry a CSP whose script nonce is exactly the one on every <script> tag of the page', async () => {
    const { response, body } = await visit(`${HTTP}/login`)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toContain('text/html')
    const nonce = cspNonce(response)
    // 16 random bytes, base64.
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/)
    const nonces = scriptNonces(body)
    // Remix's inline scripts (the route context, the module bootstrap) are there and all carry it.
    expect(body).toMatch(/<script\b[^>]*\bnonce="[^"]+"[^>]*>[^<]+<\/script>/)
    expect(nonces.length).toBeGreaterThan(0)
    expect(new Set(nonces)).toEqual(new Set([nonce]))
  })

  it('lock the page down: no sniffing, no framing, a referrer policy, no caching, nothing but self', async () => {
    const { response } = await visit(`${HTTP}/login`)
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(response.headers.get('X-Frame-Options')).toBe('DENY')
    expect(response.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin')
    expect(response.headers.get('Cache-Control')).toBe('private, no-store')
    const csp = response.headers.get('Content-Security-Policy') ?? ''
    for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) {
      expect(csp.split('; ')).toContain(directive)
    }
  })

  it('get a fresh nonce with every response', async () => {
    const first = cspNonce((await visit(`${HTTP}/login`)).response)
    const second = cspNonce((await visit(`${HTTP}/login`)).response)
    expect(first).not.toBeNull()
    expect(second).not.toBeNull()
    expect(second).not.toBe(first)
  })

  it('send Strict-Transport-Security over https only', async () => {
    const secure = await visit(`${HTTPS}/login`)
    expect(secure.response.status).toBe(200)
    expect(secure.response.headers.get('Strict-Transport-Security')).toBe(HSTS)
    const plain = await visit(`${HTTP}/login`)
    expect(plain.response.headers.get('Strict-Transport-Security')).toBeNull()
  })

  it('send no referrer from a page whose URL carries a token (the password reset link)', async () => {
    const { response, body } = await visit(`${HTTP}/renewPassword/anything`)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toContain('text/html')
    expect(response.headers.get('Referrer-Policy')).toBe('no-referrer')
    expect(new Set(scriptNonces(body))).toEqual(new Set([cspNonce(response)]))
  })

  it('keep their data requests (single fetch .data) out of every cache too', async () => {
    const { response } = await visit(`${HTTP}/login.data`)
    expect(response.status).toBe(200)
    expect(response.headers.get('X-Remix-Response')).toBe('yes')
    expect(response.headers.get('Cache-Control')).toBe('private, no-store')
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')

    // A protected page's data without a session: the redirect to sign-in is not cached either.
    const guarded = await visit(`${HTTP}/pages/user/acces.data?_routes=routes%2Fpages.user.acces`)
    expect(guarded.body).toContain('/login?redirect=%2Fpages%2Fuser%2Facces')
    expect(guarded.response.headers.get('Cache-Control')).toBe('private, no-store')
  })
})

describe('form posts to the UI', () => {
  it('refuses a body larger than a form sends (413) before Remix reads it, and serves an ordinary one', async () => {
    const form = (size: number) => new URLSearchParams({ identifiant: 'x'.repeat(size), motDePasse: 'y' }).toString()
    // Host as a browser sends it: Remix compares it with Origin before running an action.
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: HTTP, Host: 'localhost:8787' }
    const large = await visit(`${HTTP}/login`, { method: 'POST', headers, body: form(70 * 1024) })
    expect(large.response.status).toBe(413)
    const ordinary = await visit(`${HTTP}/login`, { method: 'POST', headers, body: form(10) })
    expect(ordinary.response.status).toBe(400)
    // A failed form's one answer (400), read intact: the identifier typed comes back, the captcha is asked for.
    expect(ordinary.body).toContain('value="xxxxxxxxxx"')
    expect(ordinary.body).toContain('Veuillez cocher la case du captcha')
  })
})

describe('API answers through the Worker', () => {
  const cases = [
    { path: '/portail-backend/rest/public/health', status: 200 },
    { path: '/portail-backend/rest/bd/nothing', status: 401 },
    { path: '/portail-backend/openapi.json', status: 200 },
  ]
  for (const { path, status } of cases) {
    it(`${path} (${status}) is not sniffed, framed, cached or given a referrer`, async () => {
      const { response } = await visit(`${HTTP}${path}`)
      expect(response.status).toBe(status)
      expect(response.headers.get('Content-Type')).toContain('application/json')
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')
      expect(response.headers.get('X-Frame-Options')).toBe('DENY')
      expect(response.headers.get('Content-Security-Policy')).toBe(API_CSP)
      expect(response.headers.get('Cache-Control')).toBe('no-store')
      expect(response.headers.get('Referrer-Policy')).toBe('no-referrer')
      expect(response.headers.get('Strict-Transport-Security')).toBeNull()
    })
  }

  it('adds Strict-Transport-Security to API answers over https', async () => {
    const { response } = await visit(`${HTTPS}/portail-backend/rest/public/health`)
    expect(response.status).toBe(200)
    expect(response.headers.get('Strict-Transport-Security')).toBe(HSTS)
  })
})

describe('a misconfigured Worker', () => {
  const requests: [string, RequestInit?][] = [
    [`${HTTP}/login`],
    [`${HTTP}/login.data`],
    [`${HTTP}/portail-backend/rest/public/health`],
    [`${HTTP}/portail-backend/openapi.json`],
    [
      `${HTTP}/portail-backend/rest/public/bd/login`,
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' },
    ],
  ]

  /** Asserts every request answers 503 without a word of the configuration; returns what was logged. */
  async function expectRefused(overrides: Overrides) {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    for (const [url, init] of requests) {
      const { response, body } = await visit(url, init, overrides)
      expect({ url, status: response.status }).toEqual({ url, status: 503 })
      for (const word of [...SECRETS, 'ENVIRONMENT', 'dev-only', 'characters']) expect(body).not.toContain(word)
    }
    expect(errors).toHaveBeenCalled()
    return errors.mock.calls.map((args) => args.map(String).join(' ')).join('\n')
  }

  it('answers 503 to every request without JWT_SECRET, and names it in the log only', async () => {
    const logged = await expectRefused({ JWT_SECRET: undefined })
    expect(logged).toContain('JWT_SECRET')
  })

  it('answers 503 with a JWT_SECRET of 31 characters, without writing its value to the log', async () => {
    const short = 'x'.repeat(31)
    const logged = await expectRefused({ JWT_SECRET: short })
    expect(logged).toContain('JWT_SECRET')
    expect(logged).not.toContain(short)
  })

  it('serves with a JWT_SECRET of exactly 32 characters', async () => {
    const errors = vi.spyOn(console, 'error')
    const overrides = { JWT_SECRET: 'y'.repeat(32) }
    expect((await visit(`${HTTP}/login`, {}, overrides)).response.status).toBe(200)
    expect((await visit(`${HTTP}/portail-backend/rest/public/health`, {}, overrides)).response.status).toBe(200)
    expect(errors).not.toHaveBeenCalled()
  })

  const published = dotenv(devVarsExample)

  it('reads the four published development secrets of .dev.vars.example', () => {
    for (const key of SECRETS) expect(published[key]?.length ?? 0).toBeGreaterThanOrEqual(32)
  })

  const withPublished = (environment: string): Overrides => ({
    ENVIRONMENT: environment,
    ...Object.fromEntries(SECRETS.map((key) => [key, published[key]])),
  })

  it('refuses, in production, the published development values and names each of them in the log', async () => {
    const logged = await expectRefused(withPublished('production'))
    for (const key of SECRETS) expect(logged).toContain(key)
  })

  it('serves with the same values in development', async () => {
    const errors = vi.spyOn(console, 'error')
    const overrides = withPublished('development')
    expect((await visit(`${HTTP}/login`, {}, overrides)).response.status).toBe(200)
    expect((await visit(`${HTTP}/portail-backend/rest/public/health`, {}, overrides)).response.status).toBe(200)
    expect(errors).not.toHaveBeenCalled()
  })

  it('serves in production with secrets of its own', async () => {
    const { response } = await visit(`${HTTP}/login`, {}, { ENVIRONMENT: 'production' })
    expect(response.status).toBe(200)
  })
})

describe('scheduled (the cron triggers)', () => {
  const EVERY_MINUTE = '* * * * *'
  const HOURLY = '17 * * * *'
  const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString()

  /** A mail whose first attempt failed, due again at `dueAt`. */
  async function failedMail(dueAt: string) {
    const { id } = await db()
      .insertInto('outbox')
      .values({
        utilisateur_id: null,
        to_address: 'someone@example.test',
        subject: 'Sujet',
        html: '<p>Bonjour</p>',
        text: 'Bonjour',
        kind: 'OTHER',
        attempts: 1,
        next_attempt_at: dueAt,
        last_error: 'Provider unavailable',
        sent_at: null,
        locked_until: null,
        provider_message_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    return id
  }

  const mail = (id: number) =>
    db().selectFrom('outbox').select(['sent_at', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow()

  async function expiredCaptcha(signature: string) {
    await db()
      .insertInto('captcha_used')
      .values({ signature, expires_at: ago(60) })
      .execute()
  }
  const captchaKept = async (signature: string) =>
    (await db().selectFrom('captcha_used').select('signature').where('signature', '=', signature).execute()).length ===
    1

  it('every minute, delivers the mail that is due, leaves the mail not yet due, and purges nothing', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    const due = await failedMail(ago(30))
    const notYet = await failedMail(ago(-600))
    await expiredCaptcha('minute-cron')

    await fireCron(EVERY_MINUTE)

    const delivered = await mail(due)
    expect(delivered.sent_at).not.toBeNull()
    expect(delivered.attempts).toBe(2)
    expect(await mail(notYet)).toEqual({ sent_at: null, attempts: 1 })
    expect(await captchaKept('minute-cron')).toBe(true)
  })

  it("every hour, purges what has expired and leaves the mail to the minute's trigger that fires with it (25 a minute at :17 too)", async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    const due = await failedMail(ago(30))
    await expiredCaptcha('hourly-cron')

    await fireCron(HOURLY)

    expect(await captchaKept('hourly-cron')).toBe(false)
    expect(await mail(due)).toEqual({ sent_at: null, attempts: 1 })
    await fireCron(EVERY_MINUTE)
    expect((await mail(due)).attempts).toBe(2)
  })

  it('does nothing on a misconfigured Worker, and says why in the log', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    const due = await failedMail(ago(30))
    await expiredCaptcha('misconfigured-cron')

    await fireCron(HOURLY, { JWT_SECRET: undefined })

    expect(await mail(due)).toEqual({ sent_at: null, attempts: 1 })
    expect(await captchaKept('misconfigured-cron')).toBe(true)
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('JWT_SECRET'))
  })
})
