import { env } from 'cloudflare:test'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { missingSecrets } from '../../worker-api/env'
import { backgroundContext } from '../../worker-api/lib/context'
import { sha256Hex } from '../../worker-api/lib/crypto'
import {
  type MailProvider,
  mailConfigProblem,
  type OutgoingMail,
  RESEND_ENDPOINT,
} from '../../worker-api/lib/mail/providers'
import { PASSWORD_RESET_TTL_HOURS } from '../../worker-api/services/core/mail-tokens'
import { deliverOutbox, MAX_ATTEMPTS, queueMail, RETRY_DELAYS_SECONDS } from '../../worker-api/services/core/outbox'
import { purgeExpired } from '../../worker-api/services/maintenance'
import { call, createOrganisation, createUser, db, ORIGIN, post, solvedCaptcha } from './helpers'

beforeAll(createOrganisation)
afterEach(async () => {
  vi.restoreAllMocks()
  await env.DB.prepare('DROP TRIGGER IF EXISTS outbox_down').run()
  // deliverOutbox without ids takes every due mail: each test starts with an empty outbox.
  await db().deleteFrom('outbox').execute()
})

const FORGOT = '/rest/public/bd/password/forgot/'
const FROM = 'Portail <portail@example.org>'
const resendEnv = { MAIL_PROVIDER: 'resend', RESEND_API_KEY: 're_test', MAIL_FROM: FROM }

const mailOf = (user: { login: string }) => `${user.login}@example.test`

async function forgot(mail: string, init: Parameters<typeof call>[1] = {}) {
  return post(FORGOT, { mail, domain: ORIGIN, captcha: await solvedCaptcha() }, init)
}

const outboxOf = (userId: number) =>
  db().selectFrom('outbox').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()
const mailTokensOf = (userId: number) =>
  db().selectFrom('mail_token').selectAll().where('utilisateur_id', '=', userId).execute()
const outboxRow = (id: number) => db().selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

const later = (from: Date | string, seconds: number) => new Date(new Date(from).getTime() + seconds * 1000)

/** A mail queued the way services do, due now. */
async function queued(kind: 'PASSWORD_RESET' | 'MAIL_CHANGED' = 'MAIL_CHANGED', now = new Date()) {
  const user = await createUser()
  const { id } = await queueMail(
    db(),
    { subject: 'Sujet', html: '<p>Bonjour</p>', text: 'Bonjour', to: mailOf(user), userId: user.id, kind },
    now,
  ).executeTakeFirstOrThrow()
  return { id, user }
}

/** A provider that records what it is given and answers as `outcome` says. */
function testProvider(outcome: (mail: OutgoingMail) => Promise<{ messageId: string | null }>) {
  const sent: OutgoingMail[] = []
  const provider: MailProvider = {
    name: 'test',
    async send(mail) {
      sent.push(mail)
      // Awaited here, so a rejection is never momentarily unhandled (workerd reports those).
      return await outcome(mail)
    },
  }
  return { provider, sent }
}

type ResendCall = { url: string; method: string | undefined; headers: Headers; body: Record<string, unknown> }

/** Resend's HTTP API is the boundary we cannot reach offline: stubbed, same HTTP contract. */
function stubResend(answer: () => Response) {
  const calls: ResendCall[] = []
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    calls.push({
      url: String(input),
      method: init?.method,
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
    })
    return answer()
  })
  return calls
}

describe('the mail is written with its token, or neither is', () => {
  it('keeps no token when the outbox insert fails, leaving an earlier link working (and the answer unchanged)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const user = await createUser()
    expect((await forgot(mailOf(user))).status).toBe(204)
    const [earlier] = await mailTokensOf(user.id)

    await env.DB.prepare(
      "CREATE TRIGGER outbox_down BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'outbox down'); END",
    ).run()
    // The mail is written after the answer (its timing must not tell whether the address exists),
    // so the answer stays 204; the failure is logged.
    const response = await forgot(mailOf(user))
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    await env.DB.prepare('DROP TRIGGER outbox_down').run()
    expect(logged.mock.calls.some(([message]) => String(message).includes('Background work failed'))).toBe(true)

    // Only the first request's token: the failed one left none, and did not cancel the earlier link.
    expect(await mailTokensOf(user.id)).toEqual([earlier])
    expect(earlier?.used_at).toBeNull()
  })
})

describe('delivery through Resend (MAIL_PROVIDER=resend, fetch stubbed)', () => {
  it('survives an outage: retried after 60 s, delivered exactly once with one idempotency key, then redacted', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    let up = false
    const calls = stubResend(() =>
      up
        ? Response.json({ id: 're_1' })
        : new Response('{"message":"Service unavailable"}', {
            status: 503,
            headers: { 'Content-Type': 'application/json' },
          }),
    )
    const user = await createUser()
    const response = await forgot(mailOf(user), { env: resendEnv })
    expect(response.status).toBe(204)

    const [failed] = await outboxOf(user.id)
    expect(failed).toMatchObject({ attempts: 1, sent_at: null, locked_until: null, provider_message_id: null })
    expect(failed?.last_error).toContain('503')
    const retryIn = Date.parse(failed!.next_attempt_at) - Date.parse(failed!.created_at)
    expect(retryIn).toBeGreaterThanOrEqual(60_000)
    expect(retryIn).toBeLessThan(65_000)
    expect(calls).toHaveLength(1)
    // The mail the provider will get still carries a working link.
    const link = /\/renewPassword\/([A-Za-z0-9_-]+)/.exec(String(calls[0]?.body.text))
    expect(link).not.toBeNull()

    const cron = { ...env, ...resendEnv }
    expect(await deliverOutbox(backgroundContext(cron), { now: later(failed!.next_attempt_at, -1) })).toEqual({
      sent: 0,
      failed: 0,
    })
    expect(calls).toHaveLength(1)

    up = true
    expect(await deliverOutbox(backgroundContext(cron), { now: later(failed!.next_attempt_at, 1) })).toEqual({
      sent: 1,
      failed: 0,
    })
    const [delivered] = await outboxOf(user.id)
    expect(delivered).toMatchObject({
      attempts: 2,
      provider_message_id: 're_1',
      last_error: null,
      locked_until: null,
      html: '',
      text: '',
    })
    expect(delivered?.sent_at).not.toBeNull()

    expect(calls).toHaveLength(2)
    const [first, success] = calls as [ResendCall, ResendCall]
    expect(success.url).toBe(RESEND_ENDPOINT)
    expect(success.method).toBe('POST')
    expect(success.headers.get('Authorization')).toBe('Bearer re_test')
    expect(success.headers.get('Content-Type')).toBe('application/json')
    expect(success.headers.get('Idempotency-Key')).toBeTruthy()
    expect(success.headers.get('Idempotency-Key')).toBe(first.headers.get('Idempotency-Key'))
    expect(Object.keys(success.body).sort()).toEqual(['from', 'html', 'subject', 'text', 'to'])
    expect(success.body).toMatchObject({
      from: FROM,
      to: [mailOf(user)],
      subject: 'Réinitialisation de votre mot de passe',
    })
    expect(success.body.text).toBe(first.body.text)
    expect(String(success.body.text)).toContain(`${ORIGIN}/renewPassword/${link?.[1]}`)
    expect(String(success.body.html)).toContain(`href="${ORIGIN}/renewPassword/${link?.[1]}"`)
    // The link works; the outbox no longer holds it, only its hash remains in mail_token.
    expect((await call(`/rest/public/bd/password/token/${link?.[1]}`)).status).toBe(200)
    const [token] = await mailTokensOf(user.id)
    expect(token?.token_hash).toBe(await sha256Hex(link?.[1] as string))

    // Exactly once: later runs find nothing to send.
    expect(await deliverOutbox(backgroundContext(cron), { now: later(failed!.next_attempt_at, 3600) })).toEqual({
      sent: 0,
      failed: 0,
    })
    expect(calls).toHaveLength(2)
  })

  it('gives each mail its own idempotency key', async () => {
    const calls = stubResend(() => Response.json({ id: 're_x' }))
    const a = await createUser()
    const b = await createUser()
    expect((await forgot(mailOf(a), { env: resendEnv })).status).toBe(204)
    expect((await forgot(mailOf(b), { env: resendEnv })).status).toBe(204)
    expect(calls).toHaveLength(2)
    expect(calls[0]?.headers.get('Idempotency-Key')).not.toBe(calls[1]?.headers.get('Idempotency-Key'))
  })

  it('records a network failure like an error answer, for a retry', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('network down'))
    const user = await createUser()
    expect((await forgot(mailOf(user), { env: resendEnv })).status).toBe(204)
    const [row] = await outboxOf(user.id)
    expect(row).toMatchObject({ attempts: 1, sent_at: null, last_error: 'network down' })
  })
})

describe('deliverOutbox', () => {
  it('sends a due mail once to two concurrent senders (the request and the cron)', async () => {
    const now = new Date()
    const { id } = await queued('MAIL_CHANGED', now)
    const { provider, sent } = testProvider(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      return { messageId: 'm-1' }
    })
    const results = await Promise.all([
      deliverOutbox(backgroundContext(env), { ids: [id], provider, now }),
      deliverOutbox(backgroundContext(env), { provider, now }),
    ])
    expect(sent.map((mail) => mail.id)).toEqual([id])
    expect(results.reduce((total, r) => total + r.sent, 0)).toBe(1)
    expect(await outboxRow(id)).toMatchObject({ attempts: 1, provider_message_id: 'm-1', locked_until: null })
  })

  it('leaves a mail leased by another sender alone until the lease runs out', async () => {
    const now = new Date()
    const { id } = await queued('MAIL_CHANGED', now)
    await db()
      .updateTable('outbox')
      .set({ attempts: 1, locked_until: later(now, 30).toISOString() })
      .where('id', '=', id)
      .execute()
    const { provider, sent } = testProvider(async () => ({ messageId: null }))
    expect(await deliverOutbox(backgroundContext(env), { provider, now: later(now, 29) })).toEqual({
      sent: 0,
      failed: 0,
    })
    expect(sent).toEqual([])
    expect(await deliverOutbox(backgroundContext(env), { provider, now: later(now, 31) })).toEqual({
      sent: 1,
      failed: 0,
    })
    expect(sent.map((mail) => mail.id)).toEqual([id])
  })

  it('hands the provider the stored mail', async () => {
    const now = new Date()
    const { id, user } = await queued('MAIL_CHANGED', now)
    const { provider, sent } = testProvider(async () => ({ messageId: null }))
    await deliverOutbox(backgroundContext(env), { provider, now })
    expect(sent).toEqual([
      {
        id,
        createdAt: now.toISOString(),
        to: mailOf(user),
        subject: 'Sujet',
        html: '<p>Bonjour</p>',
        text: 'Bonjour',
      },
    ])
  })

  it('retries a failing provider with the RETRY_DELAYS_SECONDS backoff and stops after MAX_ATTEMPTS', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    let now = new Date()
    const { id } = await queued('MAIL_CHANGED', now)
    const { provider, sent } = testProvider(async () => {
      throw new Error('provider exploded')
    })
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await deliverOutbox(backgroundContext(env), { provider, now })).toEqual({ sent: 0, failed: 1 })
      const row = await outboxRow(id)
      const delay = RETRY_DELAYS_SECONDS[Math.min(attempt, RETRY_DELAYS_SECONDS.length) - 1] as number
      expect({ attempt, attempts: row.attempts, next: row.next_attempt_at, error: row.last_error }).toEqual({
        attempt,
        attempts: attempt,
        next: later(now, delay).toISOString(),
        error: 'provider exploded',
      })
      // Nothing happens before the mail is due again.
      expect(await deliverOutbox(backgroundContext(env), { provider, now: later(now, delay - 1) })).toEqual({
        sent: 0,
        failed: 0,
      })
      now = later(now, delay)
    }
    expect(sent).toHaveLength(MAX_ATTEMPTS)

    // Given up: no further attempt, however late, and the mail keeps its content for inspection.
    const { provider: working, sent: none } = testProvider(async () => ({ messageId: 'late' }))
    expect(await deliverOutbox(backgroundContext(env), { provider: working, now: later(now, 365 * 86_400) })).toEqual({
      sent: 0,
      failed: 0,
    })
    expect(none).toEqual([])
    const row = await outboxRow(id)
    expect(row.attempts).toBe(MAX_ATTEMPTS)
    expect(row.sent_at).toBeNull()
    expect(row.text).toBe('Bonjour')
  })

  it("blanks a delivered reset mail's body for a real provider but keeps other mails", async () => {
    const now = new Date()
    const reset = await queued('PASSWORD_RESET', now)
    const notice = await queued('MAIL_CHANGED', now)
    const { provider } = testProvider(async () => ({ messageId: 'ok' }))
    expect(await deliverOutbox(backgroundContext(env), { provider, now })).toEqual({ sent: 2, failed: 0 })
    expect(await outboxRow(reset.id)).toMatchObject({ html: '', text: '' })
    expect(await outboxRow(notice.id)).toMatchObject({ html: '<p>Bonjour</p>', text: 'Bonjour' })
  })

  it('does nothing for an empty list of ids', async () => {
    await queued('MAIL_CHANGED')
    const { provider, sent } = testProvider(async () => ({ messageId: null }))
    expect(await deliverOutbox(backgroundContext(env), { ids: [], provider })).toEqual({ sent: 0, failed: 0 })
    expect(sent).toEqual([])
  })
})

describe('purgeExpired (hourly cron) and the outbox', () => {
  it('deletes mail older than 30 days, delivered or not, and keeps younger mail', async () => {
    const now = new Date()
    const old = await queued('MAIL_CHANGED', later(now, -31 * 86_400))
    const young = await queued('MAIL_CHANGED', later(now, -29 * 86_400))
    const deleted = await purgeExpired(backgroundContext(env), now)
    expect(deleted.mails).toBe(1)
    const ids = (await db().selectFrom('outbox').select('id').execute()).map((r) => r.id)
    expect(ids).toContain(young.id)
    expect(ids).not.toContain(old.id)
  })
})

describe('the mail configuration', () => {
  const base = { ...env, MAIL_PROVIDER: undefined, RESEND_API_KEY: undefined, MAIL_FROM: undefined }

  it('names what resend lacks, or an unknown provider, without stopping the portal', () => {
    expect(mailConfigProblem({ ...base, MAIL_PROVIDER: 'resend' })).toContain('RESEND_API_KEY and MAIL_FROM')
    expect(mailConfigProblem({ ...base, MAIL_PROVIDER: 'resend', RESEND_API_KEY: 're_x' })).toContain('MAIL_FROM')
    expect(mailConfigProblem({ ...base, MAIL_PROVIDER: 'smtp' })).toContain('Unknown MAIL_PROVIDER "smtp"')
    expect(mailConfigProblem({ ...base, ...resendEnv })).toBeNull()
    expect(mailConfigProblem({ ...base, MAIL_PROVIDER: 'log' })).toBeNull()
    expect(mailConfigProblem(base)).toBeNull()
    // Sign-in and every other screen keep working: mail waits in the outbox instead.
    expect(missingSecrets({ ...base, MAIL_PROVIDER: 'resend' })).toEqual([])
  })

  it('says so at the health endpoint', async () => {
    const healthy = await call('/rest/public/health')
    expect(await healthy.json()).toMatchObject({ status: 'ok', mail: 'ok' })
    const unconfigured = await call('/rest/public/health', { env: { MAIL_PROVIDER: 'resend', RESEND_API_KEY: '' } })
    expect(await unconfigured.json()).toMatchObject({ status: 'ok', mail: 'unconfigured' })
  })
})

describe('a reset mail that cannot be delivered while its link lives', () => {
  it('is given up once the link has expired: never sent, its token dropped', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const now = new Date()
    const { id } = await queued('PASSWORD_RESET', now)
    const failing = testProvider(async () => {
      throw new Error('down')
    })
    expect(await deliverOutbox(backgroundContext(env), { provider: failing.provider, now })).toEqual({
      sent: 0,
      failed: 1,
    })
    const working = testProvider(async () => ({ messageId: 'late' }))
    const past = later(now, PASSWORD_RESET_TTL_HOURS * 3600 + 1)
    expect(await deliverOutbox(backgroundContext(env), { provider: working.provider, now: past })).toEqual({
      sent: 0,
      failed: 0,
    })
    expect(working.sent).toEqual([])
    const row = await outboxRow(id)
    expect(row).toMatchObject({ sent_at: null, attempts: MAX_ATTEMPTS, html: '', text: '' })
    expect(row.last_error).toBe('Link expired before delivery')
  })

  it('is still delivered late while the link lives', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const now = new Date()
    const { id } = await queued('PASSWORD_RESET', now)
    const failing = testProvider(async () => {
      throw new Error('down')
    })
    await deliverOutbox(backgroundContext(env), { provider: failing.provider, now })
    const working = testProvider(async () => ({ messageId: 'in-time' }))
    const stillLive = later(now, PASSWORD_RESET_TTL_HOURS * 3600 - 60)
    expect(await deliverOutbox(backgroundContext(env), { provider: working.provider, now: stillLive })).toEqual({
      sent: 1,
      failed: 0,
    })
    expect((await outboxRow(id)).provider_message_id).toBe('in-time')
  })
})

describe('a misconfigured provider', () => {
  it('keeps the mail queued with the reason, never falls back to the log provider', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const send = vi.spyOn(globalThis, 'fetch')
    const user = await createUser()
    expect((await forgot(mailOf(user), { env: { MAIL_PROVIDER: 'resend', RESEND_API_KEY: '' } })).status).toBe(204)
    const [queued] = await outboxOf(user.id)
    expect(queued).toMatchObject({ sent_at: null, attempts: 1 })
    expect(queued?.last_error).toContain('RESEND_API_KEY')
    expect(queued?.html).not.toBe('')
    expect(send).not.toHaveBeenCalled()
  })
})
