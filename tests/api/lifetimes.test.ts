import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { backgroundContext } from '../../worker-api/lib/context'
import { ACCESS_TOKEN_TTL_SECONDS } from '../../worker-api/lib/jwt'
import type { MailProvider } from '../../worker-api/lib/mail/providers'
import { LAUNCH_CODE_TTL_SECONDS } from '../../worker-api/services/catalogue/access'
import { deliverOutbox, queueMail } from '../../worker-api/services/core/outbox'
import {
  REFRESH_ABSOLUTE_SECONDS,
  REFRESH_IDLE_SECONDS,
  REUSE_GRACE_SECONDS,
} from '../../worker-api/services/sign-in/auth'
import { api, okBody } from './client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  getUserAs,
  ORIGIN,
  post,
  refreshWith,
  sessionFor,
  signedInUser,
  solvedCaptcha,
  withFrozenClock,
} from './helpers'

beforeAll(createOrganisation)

/** Seconds on either side of a limit: far from it for the API, never a timed assertion. */
const MARGIN = 5
const MINUTE = 60

const refreshed = (refreshToken: string) =>
  okBody(api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken } }))

describe('the session lifetimes of DESIGN §3 and §4', () => {
  it('are 5 min (access token), 60 s (launch code), 30 min idle, 10 h in all, 10 s of grace', () => {
    expect(ACCESS_TOKEN_TTL_SECONDS).toBe(300)
    expect(LAUNCH_CODE_TTL_SECONDS).toBe(60)
    expect(REFRESH_IDLE_SECONDS).toBe(1800)
    expect(REFRESH_ABSOLUTE_SECONDS).toBe(36_000)
    expect(REUSE_GRACE_SECONDS).toBe(10)
  })
})

describe('access token (5 minutes)', () => {
  it('works 4 min 55 s after sign-in and answers 401 INVALID_TOKEN 5 min 5 s after', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      expect(user.jwt.expiresInMsec).toBe(ACCESS_TOKEN_TTL_SECONDS * 1000)

      clock.advance(ACCESS_TOKEN_TTL_SECONDS - MARGIN)
      expect((await getUserAs(user.jwt.accessToken, user.id)).status).toBe(200)

      clock.advance(2 * MARGIN)
      await expectError(await getUserAs(user.jwt.accessToken, user.id), 401, 'INVALID_TOKEN')
      // The session itself lives on: a refresh gives a working access token.
      const tokens = await refreshed(user.jwt.refreshToken)
      expect((await getUserAs(tokens.accessToken, user.id)).status).toBe(200)
    })
  })
})

describe('launch code (60 seconds)', () => {
  const launchCode = async (accessToken: string) =>
    (await okBody(api(accessToken).rest.bd.acces.application.$get({ query: { idApplication: 2 } }))).refreshToken

  it('is exchanged 55 s after it was issued and refused with 401 INVALID_REFRESH_TOKEN 65 s after', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser({ postes: [currentPost(4, 2)] })
      const early = await launchCode(user.jwt.accessToken)
      const late = await launchCode(user.jwt.accessToken)
      expect(late).not.toBe(early)

      clock.advance(LAUNCH_CODE_TTL_SECONDS - MARGIN)
      const session = await refreshed(early)
      expect((await getUserAs(session.accessToken, user.id)).status).toBe(200)

      clock.advance(2 * MARGIN)
      await expectError(await refreshWith(late), 401, 'INVALID_REFRESH_TOKEN')
    })
  })
})

describe('refresh token idle lifetime (30 minutes)', () => {
  it('still refreshes after 29 min 55 s unused', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      clock.advance(REFRESH_IDLE_SECONDS - MARGIN)
      const tokens = await refreshed(user.jwt.refreshToken)
      expect((await getUserAs(tokens.accessToken, user.id)).status).toBe(200)
    })
  })

  it('answers 401 REFRESH_TOKEN_EXPIRED after 30 min 5 s unused', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      clock.advance(REFRESH_IDLE_SECONDS + MARGIN)
      await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED')
    })
  })

  it('starts over with every rotation: the new token has its own 30 minutes', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      clock.advance(REFRESH_IDLE_SECONDS - MARGIN)
      const tokens = await refreshed(user.jwt.refreshToken)
      clock.advance(REFRESH_IDLE_SECONDS - MARGIN)
      await refreshed(tokens.refreshToken)
    })
  })
})

describe('session absolute lifetime (10 hours)', () => {
  it('lives until just under 10 h when refreshed every 25 minutes, and not a moment past it', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      const step = 25 * MINUTE
      let tokens = user.jwt
      let elapsed = 0
      while (elapsed + step < REFRESH_ABSOLUTE_SECONDS - MARGIN) {
        clock.advance(step)
        elapsed += step
        tokens = await refreshed(tokens.refreshToken)
      }
      expect(elapsed).toBe(9 * 3600 + 35 * MINUTE)

      clock.advance(REFRESH_ABSOLUTE_SECONDS - MARGIN - elapsed)
      tokens = await refreshed(tokens.refreshToken)
      expect((await getUserAs(tokens.accessToken, user.id)).status).toBe(200)

      // 10 s later: the token is fresh (idle is far), the session is not.
      clock.advance(2 * MARGIN)
      await expectError(await refreshWith(tokens.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED')
    })
  })
})

describe('reuse grace (10 seconds)', () => {
  it('answers a rotated token presented again 9 s later with exactly the pair already issued', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      const issued = await refreshed(user.jwt.refreshToken)

      clock.advance(REUSE_GRACE_SECONDS - 1)
      const retry = await refreshWith(user.jwt.refreshToken)
      expect(retry.status).toBe(200)
      expect(await retry.json()).toEqual(issued)
      expect((await getUserAs(issued.accessToken, user.id)).status).toBe(200)
    })
  })

  it('answers 401 REFRESH_TOKEN_REUSED 11 s later and revokes the whole session', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      const issued = await refreshed(user.jwt.refreshToken)

      clock.advance(REUSE_GRACE_SECONDS + 1)
      await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_REUSED')
      await expectError(await refreshWith(issued.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
      await expectError(await getUserAs(issued.accessToken, user.id), 401, 'INVALID_TOKEN')
    })
  })
})

/*
 * The mail links and caps, as the README states them. Literal numbers on purpose: a test that took
 * them from the code's constants would follow a change of the code instead of catching it.
 */
const HOUR = 3600

const outboxOf = (userId: number) =>
  db().selectFrom('outbox').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()

/** The token of the newest link of `kind` mailed to the user. */
async function mailedToken(userId: number, kind: string) {
  const mail = (await outboxOf(userId)).filter((m) => m.kind === kind).at(-1)
  const link = /\/(?:renewPassword|confirmMail)\/([A-Za-z0-9_-]+)/.exec(mail?.text ?? '')
  if (!link?.[1]) throw new Error(`no ${kind} link mailed to user ${userId}`)
  return link[1]
}

const forgot = async (mail: string) =>
  post('/rest/public/bd/password/forgot/', { mail, domain: ORIGIN, captcha: await solvedCaptcha() })
const moveTo = (accessToken: string, id: number, mail: string) =>
  call(`/rest/bd/utilisateur/${id}`, {
    method: 'PUT',
    token: accessToken,
    body: JSON.stringify({ nom: 'Nom', prenom: 'Prenom', mail }),
  })

describe('password-reset link (3 hours)', () => {
  it('works 2 h 59 min 55 s after it was sent and answers 410 TOKEN_EXPIRED 3 h 5 s after', async () => {
    await withFrozenClock(async (clock) => {
      const user = await createUser()
      expect((await forgot(`${user.login}@example.test`)).status).toBe(204)
      const token = await mailedToken(user.id, 'PASSWORD_RESET')
      const check = () => call(`/rest/public/bd/password/token/${token}`)

      clock.advance(3 * HOUR - MARGIN)
      expect((await check()).status).toBe(200)
      clock.advance(2 * MARGIN)
      await expectError(await check(), 410, 'TOKEN_EXPIRED')
    })
  })
})

describe('new-address confirmation link (24 hours)', () => {
  it('works 23 h 59 min 55 s after it was sent and answers 410 TOKEN_EXPIRED 24 h 5 s after', async () => {
    await withFrozenClock(async (clock) => {
      const user = await createUser()
      const { accessToken } = await sessionFor(user.id)
      expect((await moveTo(accessToken, user.id, `next-${user.login}@example.test`)).status).toBe(200)
      const token = await mailedToken(user.id, 'MAIL_CHANGE_CONFIRM')
      const check = () => call(`/rest/public/bd/utilisateur/mail/token/${token}`)

      clock.advance(24 * HOUR - MARGIN)
      expect((await check()).status).toBe(200)
      clock.advance(2 * MARGIN)
      await expectError(await check(), 410, 'TOKEN_EXPIRED')
    })
  })
})

describe('the hourly caps on mail', () => {
  it('sends 3 reset mails an account an hour, answering the 4th request the same without a mail', async () => {
    const user = await createUser()
    for (let i = 0; i < 4; i++) expect((await forgot(`${user.login}@example.test`)).status).toBe(204)
    expect((await outboxOf(user.id)).filter((m) => m.kind === 'PASSWORD_RESET')).toHaveLength(3)
  })

  it('takes 3 requests an hour to move to another address, and answers the 4th 429', async () => {
    const user = await createUser()
    const { accessToken } = await sessionFor(user.id)
    for (let i = 0; i < 3; i++) {
      expect((await moveTo(accessToken, user.id, `move${i}-${user.login}@example.test`)).status).toBe(200)
    }
    await expectError(await moveTo(accessToken, user.id, `move3-${user.login}@example.test`), 429, 'TOO_MANY_ATTEMPTS')
  })

  it("sends 5 links an hour for a carrier's registration, and answers the 6th 429", async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const { accessToken } = await sessionFor(admin.id)
    // A registration with a carrier company (type 4 under Agence Lille, as the test configuration has it).
    await db().insertInto('type_structure').values({ id: 4, libelle: 'Transporteur', parent_type_id: 3 }).execute()
    await db()
      .insertInto('structure')
      .values({ id: 5, nom: 'Transports Délai', type_id: 4, parent_id: 4, path: '/1/2/4/5/' })
      .execute()
    const carrier = await createUser({
      registration: 'PENDING',
      password: null,
      actif: false,
      registrationStructure: 5,
    })
    const authorize = () =>
      post('/rest/bd/authorize/user', { user: { id: carrier.id }, authorize: true }, { token: accessToken })
    for (let i = 0; i < 5; i++) expect((await authorize()).status).toBe(200)
    await expectError(await authorize(), 429, 'TOO_MANY_ATTEMPTS')
    expect((await outboxOf(carrier.id)).filter((m) => m.kind === 'REGISTRATION')).toHaveLength(5)
  })
})

describe('the outbox retry schedule', () => {
  it('tries a failing mail 11 times, after 1, 2, 5, 15 and 30 min, then 1, 2, 4, 8 and 12 h', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const failing: MailProvider = {
      name: 'failing',
      async send() {
        throw new Error('provider down')
      },
    }
    const user = await createUser()
    let now = new Date()
    const [queued] = await queueMail(
      db(),
      {
        to: `${user.login}@example.test`,
        subject: 'S',
        html: '<p>T</p>',
        text: 'T',
        userId: user.id,
        kind: 'MAIL_CHANGED',
      },
      now,
    ).execute()
    const row = () =>
      db()
        .selectFrom('outbox')
        .select(['attempts', 'next_attempt_at'])
        .where('id', '=', queued?.id ?? 0)
        .executeTakeFirstOrThrow()
    // Minutes from each failed attempt to the next, until the mail is given up (a year later at most).
    const delays: number[] = []
    while ((await deliverOutbox(backgroundContext(env), { provider: failing, now })).failed === 1) {
      const next = new Date((await row()).next_attempt_at)
      delays.push((next.getTime() - now.getTime()) / 60_000)
      now = next
      if (delays.length > 20) break
    }
    expect(delays.slice(0, 10)).toEqual([1, 2, 5, 15, 30, 60, 120, 240, 480, 720])
    expect((await row()).attempts).toBe(11)
    expect(
      await deliverOutbox(backgroundContext(env), {
        provider: failing,
        now: new Date(now.getTime() + 365 * 86_400_000),
      }),
    ).toEqual({
      sent: 0,
      failed: 0,
    })
  })
})
