import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { sha256Hex } from '../../../worker-api/lib/crypto'
import { FREE_FAILURES } from '../../../worker-api/services/core/attempt-counter'
import { PASSWORD_RESET_TTL_HOURS, RESET_MAILS_PER_HOUR } from '../../../worker-api/services/sign-in/password'
import { api, okBody } from '../client'
import {
  app,
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  getUserAs,
  login,
  ORIGIN,
  post,
  refreshWith,
  signedInUser,
  signIn,
  solvedCaptcha,
  withFrozenClock,
} from '../helpers'

beforeAll(createOrganisation)

const FORGOT = '/rest/public/bd/password/forgot/'
const RENEW = '/rest/public/bd/password/renew/'
const UPDATE = '/rest/bd/utilisateur/updatePassword'
const tokenPath = (token: string) => `/rest/public/bd/password/token/${encodeURIComponent(token)}`

type CallInit = Parameters<typeof call>[1]

const mailOf = (user: { login: string }) => `${user.login}@example.test`

async function forgot(mail: string, init: CallInit = {}, extra: Record<string, unknown> = {}) {
  return post(FORGOT, { mail, domain: ORIGIN, captcha: await solvedCaptcha(), ...extra }, init)
}

/** Moves a reset link's expiry a minute into the past. */
async function expireToken(token: string) {
  await db()
    .updateTable('mail_token')
    .set({ expires_at: minutesFromNow(-1) })
    .where('token_hash', '=', await sha256Hex(token))
    .execute()
}

const outboxOf = (userId: number) =>
  db().selectFrom('outbox').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()
const mailTokensOf = (userId: number) =>
  db().selectFrom('mail_token').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()
const passwordHashOf = async (userId: number) =>
  (await db().selectFrom('utilisateur').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow())
    .password_hash

/** Rows of the tables a reset request writes, whoever they belong to. */
async function resetRowCounts() {
  const [outbox, tokens] = await Promise.all([
    db().selectFrom('outbox').select(db().fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    db().selectFrom('mail_token').select(db().fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { outbox: Number(outbox.n), tokens: Number(tokens.n) }
}

/** The reset link of the user's latest mail, as its recipient reads it in the text part. */
async function latestLink(userId: number) {
  const mail = (await outboxOf(userId)).at(-1)
  const match = /(https?:\/\/\S+?)\/renewPassword\/([A-Za-z0-9_-]+)/.exec(mail?.text ?? '')
  if (!mail || !match) throw new Error(`no reset link in the latest mail of user ${userId}`)
  return { mail, url: match[0], origin: match[1] as string, token: match[2] as string }
}

/** Asks for a reset mail for `user` and returns the raw token of its link. */
async function resetToken(user: { id: number; login: string }, init: CallInit = {}) {
  const response = await forgot(mailOf(user), init)
  expect(response.status).toBe(204)
  return (await latestLink(user.id)).token
}

const renew = (token: string, password: string, extra: Record<string, unknown> = {}) =>
  post(RENEW, { token, password, ...extra })

const updatePassword = (accessToken: string, body: Record<string, unknown>) =>
  call(UPDATE, { method: 'PUT', body: JSON.stringify(body), token: accessToken })

/** The messages of the VALIDATION_FAILED field errors of one field. */
const messagesFor = (attributs: unknown[], field: string) =>
  (attributs as { field: string; message: string }[]).filter((a) => a.field === field).map((a) => a.message)

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString()

/** The per-client window is the calendar minute: start a short burst well inside one. */
describe('POST /rest/public/bd/password/forgot/', () => {
  it('answers the same 204 with an empty body for a known and for an unknown mail', async () => {
    const user = await createUser()
    const known = await forgot(mailOf(user))
    const unknown = await forgot('nobody-here@example.test')
    expect({ status: known.status, body: await known.text() }).toEqual({ status: 204, body: '' })
    expect({ status: unknown.status, body: await unknown.text() }).toEqual({ status: 204, body: '' })
    expect(unknown.headers.get('Content-Type')).toBe(known.headers.get('Content-Type'))
  })

  it('writes nothing for an unknown mail', async () => {
    const before = await resetRowCounts()
    expect((await forgot('unknown-person@example.test')).status).toBe(204)
    expect(await resetRowCounts()).toEqual(before)
  })

  it('stores one hashed PASSWORD_RESET token and delivers one mail carrying the raw token', async () => {
    const user = await createUser()
    const before = Date.now()
    expect((await forgot(mailOf(user))).status).toBe(204)

    const { token, mail } = await latestLink(user.id)
    const tokens = await mailTokensOf(user.id)
    expect(tokens).toHaveLength(1)
    expect(tokens[0]).toMatchObject({ purpose: 'PASSWORD_RESET', used_at: null, token_hash: await sha256Hex(token) })
    // The link's token is nowhere in the table: a database leak gives no usable link.
    expect(JSON.stringify(tokens)).not.toContain(token)
    const lifetime = Date.parse(tokens[0]!.expires_at) - before
    expect(lifetime).toBeGreaterThan(PASSWORD_RESET_TTL_HOURS * 3_600_000 - 60_000)
    expect(lifetime).toBeLessThanOrEqual(PASSWORD_RESET_TTL_HOURS * 3_600_000 + 60_000)

    const mails = await outboxOf(user.id)
    expect(mails).toHaveLength(1)
    expect(mail).toMatchObject({
      to_address: mailOf(user),
      kind: 'PASSWORD_RESET',
      attempts: 1,
      last_error: null,
      locked_until: null,
    })
    // Delivered by the log provider after the response (waitUntil).
    expect(mail.sent_at).not.toBeNull()
  })

  it('matches the mail whatever its case and surrounding spaces, and writes to the stored address', async () => {
    const user = await createUser()
    expect((await forgot(`  ${mailOf(user).toUpperCase()}  `)).status).toBe(204)
    const mails = await outboxOf(user.id)
    expect(mails.map((m) => m.to_address)).toEqual([mailOf(user)])
    expect(await mailTokensOf(user.id)).toHaveLength(1)
  })

  it('sends nothing to an inactive, a deleted or a pending-registration account', async () => {
    const users = [
      await createUser({ actif: false }),
      await createUser({ supprime: true }),
      await createUser({ registration: 'PENDING', password: null }),
    ]
    for (const user of users) {
      const response = await forgot(mailOf(user))
      expect({ id: user.id, status: response.status, body: await response.text() }).toEqual({
        id: user.id,
        status: 204,
        body: '',
      })
      expect(await outboxOf(user.id)).toEqual([])
      expect(await mailTokensOf(user.id)).toEqual([])
    }
  })

  it('keeps earlier links valid until one of them is used, then voids them all', async () => {
    // Somebody else asking for resets must not void the owner's link: every mail goes to the owner.
    const user = await createUser()
    const first = await resetToken(user)
    const second = await resetToken(user)
    expect(second).not.toBe(first)
    expect((await call(tokenPath(first))).status).toBe(200)
    expect((await renew(second, 'Abcdef12')).status).toBe(204)
    await expectError(await call(tokenPath(first)), 410, 'TOKEN_USED')
    await expectError(await renew(first, 'Autre123'), 410, 'TOKEN_USED')
  })

  it(`sends at most ${RESET_MAILS_PER_HOUR} mails per account and hour, answering 204 all the same`, async () => {
    const user = await createUser()
    for (let i = 0; i < RESET_MAILS_PER_HOUR; i++) expect((await forgot(mailOf(user))).status).toBe(204)
    const last = (await latestLink(user.id)).token
    const extra = await forgot(mailOf(user))
    expect({ status: extra.status, body: await extra.text() }).toEqual({ status: 204, body: '' })
    expect(await outboxOf(user.id)).toHaveLength(RESET_MAILS_PER_HOUR)
    expect(await mailTokensOf(user.id)).toHaveLength(RESET_MAILS_PER_HOUR)
    // The silent refusal did not cancel the last link sent.
    expect((await call(tokenPath(last))).status).toBe(200)
  })

  it(`keeps to ${RESET_MAILS_PER_HOUR} mails when requests for one account arrive at once`, async () => {
    const user = await createUser()
    const captchas = await Promise.all([1, 2, 3, 4, 5, 6].map(() => solvedCaptcha()))
    const responses = await Promise.all(
      captchas.map((captcha) => post(FORGOT, { mail: mailOf(user), domain: ORIGIN, captcha })),
    )
    expect(responses.map((response) => response.status)).toEqual([204, 204, 204, 204, 204, 204])
    expect(await mailTokensOf(user.id)).toHaveLength(RESET_MAILS_PER_HOUR)
    expect(await outboxOf(user.id)).toHaveLength(RESET_MAILS_PER_HOUR)
  })

  it('answers 400 CAPTCHA_VALIDATE_FAILED without a captcha and CAPTCHA_CHAR_INVALID for garbage, writing nothing', async () => {
    const user = await createUser()
    await expectError(await post(FORGOT, { mail: mailOf(user), domain: ORIGIN }), 400, 'CAPTCHA_VALIDATE_FAILED')
    await expectError(
      await post(FORGOT, { mail: mailOf(user), domain: ORIGIN, captcha: '%%%' }),
      400,
      'CAPTCHA_CHAR_INVALID',
    )
    expect(await outboxOf(user.id)).toEqual([])
    expect(await mailTokensOf(user.id)).toEqual([])
  })

  it('answers 400 VALIDATION_FAILED for a bad or missing mail and a missing or bad domain', async () => {
    const user = await createUser()
    const badMail = await expectError(await forgot('not-a-mail'), 400, 'VALIDATION_FAILED')
    expect(messagesFor(badMail.attributs, 'mail')).toEqual(['validation.mail'])
    const noMail = await expectError(
      await post(FORGOT, { domain: ORIGIN, captcha: await solvedCaptcha() }),
      400,
      'VALIDATION_FAILED',
    )
    expect(messagesFor(noMail.attributs, 'mail')).toEqual(['validation.required'])
    const noDomain = await expectError(
      await post(FORGOT, { mail: mailOf(user), captcha: await solvedCaptcha() }),
      400,
      'VALIDATION_FAILED',
    )
    expect(messagesFor(noDomain.attributs, 'domain')).toEqual(['validation.required'])
    const badDomain = await expectError(await forgot(mailOf(user), {}, { domain: 'nowhere' }), 400, 'VALIDATION_FAILED')
    expect(messagesFor(badDomain.attributs, 'domain')).toEqual(['validation.url'])
    expect(await mailTokensOf(user.id)).toEqual([])
  })

  it('answers 429 TOO_MANY_ATTEMPTS to a client past FORGOT_RATE_PER_MINUTE, even with a solved captcha', async () => {
    const user = await createUser()
    const captchas = await Promise.all([solvedCaptcha(), solvedCaptcha(), solvedCaptcha(), solvedCaptcha()])
    const from = (ip: string): CallInit => ({
      headers: { 'CF-Connecting-IP': ip },
      env: { FORGOT_RATE_PER_MINUTE: '2' },
    })
    const ask = (captcha: string, ip: string) => post(FORGOT, { mail: mailOf(user), domain: ORIGIN, captcha }, from(ip))
    await withFrozenClock(async () => {
      expect((await ask(captchas[0]!, '203.0.113.50')).status).toBe(204)
      expect((await ask(captchas[1]!, '203.0.113.50')).status).toBe(204)
      const limited = await expectError(await ask(captchas[2]!, '203.0.113.50'), 429, 'TOO_MANY_ATTEMPTS')
      expect(limited.attributs[0]).toBeGreaterThanOrEqual(1)
      expect(limited.attributs[0]).toBeLessThanOrEqual(60)
      expect(await mailTokensOf(user.id)).toHaveLength(2)
      // Another client is not affected.
      expect((await ask(captchas[3]!, '203.0.113.51')).status).toBe(204)
    })
  })

  it('links to /renewPassword/{token} on the site the request reached, never on the payload domain', async () => {
    const user = await createUser()
    expect((await forgot(mailOf(user), {}, { domain: 'https://evil.example.org' })).status).toBe(204)
    const { origin, url, mail } = await latestLink(user.id)
    expect(origin).toBe(ORIGIN)
    expect(url).toMatch(/^http:\/\/localhost:8787\/renewPassword\/[A-Za-z0-9_-]{43}$/)
    expect(mail.html).toContain(`href="${url}"`)
    expect(mail.html).not.toContain('evil.example.org')
  })

  it("links to the account's own domain when the request comes from another site", async () => {
    const user = await createUser({ domain: 'https://autre.example.org' })
    expect((await forgot(mailOf(user))).status).toBe(204)
    expect((await latestLink(user.id)).origin).toBe('https://autre.example.org')
  })

  it("writes the mail in the user's language (DESIGN §5), whatever language asks", async () => {
    const english = await createUser()
    const french = await createUser()
    await db().updateTable('utilisateur').set({ langue: 'en' }).where('id', '=', english.id).execute()
    await forgot(mailOf(english), { headers: { 'Accept-Language': 'fr-FR' } })
    await forgot(mailOf(french), { headers: { 'Accept-Language': 'en-GB,en;q=0.9' } })
    const [en] = await outboxOf(english.id)
    expect(en?.subject).toBe('Resetting your password')
    expect(en?.html).toContain('<html lang="en">')
    expect(en?.text).toContain('Choose a new password')
    const [fr] = await outboxOf(french.id)
    expect(fr?.subject).toBe('Réinitialisation de votre mot de passe')
    expect(fr?.html).toContain('<html lang="fr">')
    expect(fr?.text).toContain('Choisir un nouveau mot de passe')
    // An anonymous request does not change the user's language either.
    const row = await db()
      .selectFrom('utilisateur')
      .select('langue')
      .where('id', '=', french.id)
      .executeTakeFirstOrThrow()
    expect(row.langue).toBe('fr')
  })

  it('links over the scheme of the account domain, not that of the request', async () => {
    const user = await createUser({ domain: 'https://portail.example.org' })
    const response = await app.request(
      'http://portail.example.org/portail-backend/rest/public/bd/password/forgot/',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          mail: mailOf(user),
          domain: 'http://portail.example.org',
          captcha: await solvedCaptcha(),
        }),
      },
      env,
    )
    expect(response.status).toBe(204)
    await vi.waitFor(async () => expect(await outboxOf(user.id)).toHaveLength(1))
    const [mail] = await outboxOf(user.id)
    expect(mail?.text).toMatch(/https:\/\/portail\.example\.org\/renewPassword\/[A-Za-z0-9_-]{43}\n/)
  })

  it('voids pending links when the password is changed or the mail address changes', async () => {
    const user = await signedInUser()
    const before = await resetToken(user)
    const changed = await call('/rest/bd/utilisateur/updatePassword', {
      method: 'PUT',
      token: user.jwt.accessToken,
      body: JSON.stringify({ oldPassword: user.password, newPassword: 'Change12' }),
    })
    expect(changed.status).toBe(200)
    await expectError(await call(tokenPath(before)), 410, 'TOKEN_USED')

    // An address change voids them once it takes effect: an administrator's too, once the new
    // address confirms it.
    const again = await resetToken(user)
    const admin = await signedInUser({ admin: true, postes: [currentPost(1, 1)] })
    const newMail = `moved-${user.login}@example.test`
    const moved = await call(`/rest/bd/utilisateur/${user.id}`, {
      method: 'PUT',
      token: admin.jwt.accessToken,
      body: JSON.stringify({ nom: 'Nouveau', prenom: 'Prenom', mail: newMail }),
    })
    expect(moved.status).toBe(200)
    expect((await call(tokenPath(again))).status).toBe(200)
    const confirmation = (await outboxOf(user.id)).find(
      (m) => m.kind === 'MAIL_CHANGE_CONFIRM' && m.to_address === newMail,
    )
    const link = /\/confirmMail\/([A-Za-z0-9_-]+)/.exec(confirmation?.text ?? '')?.[1] ?? ''
    expect((await post('/rest/public/bd/utilisateur/mail/confirm/', { token: link })).status).toBe(200)
    await expectError(await call(tokenPath(again)), 410, 'TOKEN_USED')
  })

  it('escapes the user name in the HTML part', async () => {
    const user = await createUser()
    await db()
      .updateTable('utilisateur')
      .set({ nom: '<script>alert(1)</script>', prenom: 'Zoé & "Co"' })
      .where('id', '=', user.id)
      .execute()
    expect((await forgot(mailOf(user))).status).toBe(204)
    const [mail] = await outboxOf(user.id)
    expect(mail?.html).not.toContain('<script')
    expect(mail?.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(mail?.html).toContain('Zoé &amp; &quot;Co&quot;')
    // The text part is plain text: the name reads as typed.
    expect(mail?.text).toContain('Zoé & "Co" <script>alert(1)</script>')
  })
})

describe('GET /rest/public/bd/password/token/{token}', () => {
  it('answers 200 with exactly {mail, actif, supprime} and no referrer leak', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    const response = await call(tokenPath(token))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ mail: mailOf(user), actif: true, supprime: false })
    expect(response.headers.get('Referrer-Policy')).toBe('no-referrer')
  })

  it('answers 404 TOKEN_NOT_FOUND for an unknown token', async () => {
    await expectError(await call(tokenPath('no-such-token-at-all')), 404, 'TOKEN_NOT_FOUND')
  })

  it('answers 404 for the stored hash of a token: only the raw token opens the link', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    await expectError(await call(tokenPath(await sha256Hex(token))), 404, 'TOKEN_NOT_FOUND')
  })

  it('answers 410 TOKEN_USED once the password was set with it', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    expect((await renew(token, 'Abcdef12')).status).toBe(204)
    await expectError(await call(tokenPath(token)), 410, 'TOKEN_USED')
  })

  it('answers 410 TOKEN_EXPIRED past its expiry', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    await expireToken(token)
    await expectError(await call(tokenPath(token)), 410, 'TOKEN_EXPIRED')
  })

  it('tells a user deactivated or deleted after the mail apart (actif false, supprime true)', async () => {
    const deactivated = await createUser()
    const deleted = await createUser()
    const deactivatedToken = await resetToken(deactivated)
    const deletedToken = await resetToken(deleted)
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', deactivated.id).execute()
    await db().updateTable('utilisateur').set({ supprime: 1 }).where('id', '=', deleted.id).execute()
    const a = await call(tokenPath(deactivatedToken))
    expect(a.status).toBe(200)
    expect(await a.json()).toEqual({ mail: mailOf(deactivated), actif: false, supprime: false })
    const d = await call(tokenPath(deletedToken))
    expect(d.status).toBe(200)
    expect(await d.json()).toEqual({ mail: mailOf(deleted), actif: true, supprime: true })
  })
})

describe('POST /rest/public/bd/password/renew/', () => {
  it('answers 204 and the new password signs in while the old one no longer does', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    const response = await renew(token, 'Nouveau12')
    expect({ status: response.status, body: await response.text() }).toEqual({ status: 204, body: '' })
    expect((await login(user.login, 'Nouveau12')).status).toBe(200)
    await expectError(await login(user.login, user.password), 401, 'BAD_CREDENTIAL')
  })

  it('accepts the user object the spec sends along and ignores its fields', async () => {
    const user = await createUser()
    const other = await createUser()
    const token = await resetToken(user)
    const response = await renew(token, 'Nouveau12', {
      id: other.id,
      mail: 'hijack@example.test',
      actif: false,
      supprime: true,
      admin: true,
    })
    expect(response.status).toBe(204)
    const row = await db().selectFrom('utilisateur').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ mail: mailOf(user), actif: 1, supprime: 0, admin: 0 })
    expect((await login(user.login, 'Nouveau12')).status).toBe(200)
    // The other user's password is untouched.
    expect((await login(other.login, other.password)).status).toBe(200)
  })

  it('works once: a second use answers 410 TOKEN_USED and keeps the first password', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    expect((await renew(token, 'Premier12')).status).toBe(204)
    await expectError(await renew(token, 'Second12'), 410, 'TOKEN_USED')
    expect((await login(user.login, 'Premier12')).status).toBe(200)
  })

  it('answers 410 TOKEN_EXPIRED past the expiry and leaves the password as it was', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    await expireToken(token)
    const hash = await passwordHashOf(user.id)
    await expectError(await renew(token, 'Nouveau12'), 410, 'TOKEN_EXPIRED')
    expect(await passwordHashOf(user.id)).toBe(hash)
  })

  it('answers 404 TOKEN_NOT_FOUND for an unknown token', async () => {
    await expectError(await renew('no-such-token-at-all', 'Nouveau12'), 404, 'TOKEN_NOT_FOUND')
  })

  it('answers 403 USER_DISABLED for a user deactivated or deleted since the mail, and changes nothing', async () => {
    for (const change of [{ actif: 0 }, { supprime: 1 }] as const) {
      const user = await createUser()
      const token = await resetToken(user)
      await db().updateTable('utilisateur').set(change).where('id', '=', user.id).execute()
      const hash = await passwordHashOf(user.id)
      await expectError(await renew(token, 'Nouveau12'), 403, 'USER_DISABLED')
      expect(await passwordHashOf(user.id)).toBe(hash)
    }
  })

  it('keeps the link usable after a password the rules refuse', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    await expectError(await renew(token, 'weak'), 400, 'VALIDATION_FAILED')
    expect((await call(tokenPath(token))).status).toBe(200)
    expect((await renew(token, 'Nouveau12')).status).toBe(204)
  })

  it('ends every session of the user', async () => {
    const user = await signedInUser()
    const other = await signIn(user.login, user.password)
    const token = await resetToken(user)
    expect((await renew(token, 'Nouveau12')).status).toBe(204)
    for (const jwt of [user.jwt, other.jwt]) {
      expect((await refreshWith(jwt.refreshToken)).status).toBe(401)
      await expectError(await getUserAs(jwt.accessToken, user.id), 401, 'INVALID_TOKEN')
    }
  })

  it('lets an invited user without a password sign in: the registration is complete', async () => {
    const user = await createUser({ registration: 'INVITED', password: null })
    await expectError(await login(user.login, 'Nouveau12'), 403, 'USER_NOT_FINISH_REGISTRATION')
    const token = await resetToken(user)
    expect((await renew(token, 'Nouveau12')).status).toBe(204)
    expect((await login(user.login, 'Nouveau12')).status).toBe(200)
    const row = await db()
      .selectFrom('utilisateur')
      .select(['registration_state', 'token_register_expires_at'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ registration_state: 'COMPLETE', token_register_expires_at: null })
  })

  it('lets a user locked out by failed sign-ins in with the new password', async () => {
    const user = await createUser()
    for (let i = 0; i <= FREE_FAILURES; i++) await login(user.login, 'Wrong123')
    await expectError(await login(user.login, user.password), 429, 'TOO_MANY_ATTEMPTS')
    const token = await resetToken(user)
    expect((await renew(token, 'Nouveau12')).status).toBe(204)
    expect((await login(user.login, 'Nouveau12')).status).toBe(200)
  })

  it('lets exactly one of two concurrent uses of the same link succeed', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    const responses = await Promise.all([renew(token, 'Premier12'), renew(token, 'Second12')])
    const outcomes = await Promise.all(
      responses.map(async (r) =>
        r.status === 204 ? '204' : `${r.status} ${(await expectError(r, 410, 'TOKEN_USED')).businessCode}`,
      ),
    )
    expect(outcomes.sort()).toEqual(['204', '410 TOKEN_USED'])
    const winner = responses[0]?.status === 204 ? 'Premier12' : 'Second12'
    expect((await login(user.login, winner)).status).toBe(200)
    // One password change, one notice.
    const notices = (await outboxOf(user.id)).filter((mail) => mail.kind === 'PASSWORD_CHANGED')
    expect(notices).toHaveLength(1)
  })

  it('tells the user by mail that the password changed (and only when it did)', async () => {
    const user = await createUser()
    const token = await resetToken(user)
    expect((await renew(token, 'abc')).status).toBe(400)
    expect((await outboxOf(user.id)).filter((mail) => mail.kind === 'PASSWORD_CHANGED')).toEqual([])
    expect((await renew(token, 'Abcdef12')).status).toBe(204)
    const [notice] = (await outboxOf(user.id)).filter((mail) => mail.kind === 'PASSWORD_CHANGED')
    expect(notice).toMatchObject({ to_address: mailOf(user), subject: 'Votre mot de passe a été modifié' })
    expect(notice?.sent_at).not.toBeNull()
    expect(notice?.text).not.toContain('renewPassword')
  })
})

/** Spec §5, new password: one case per rule, with the rule keys each value breaks. */
const RULES = 'password.rules'
const BROKEN_RULES: { label: string; value: string | undefined; broken: string[] }[] = [
  {
    label: 'missing',
    value: undefined,
    broken: [`${RULES}.required`, `${RULES}.length`, `${RULES}.classes`],
  },
  { label: 'empty', value: '', broken: [`${RULES}.required`, `${RULES}.length`, `${RULES}.classes`] },
  { label: 'too short (4)', value: 'Abc1', broken: [`${RULES}.length`] },
  { label: 'too long (13)', value: 'Abcdefgh12345', broken: [`${RULES}.length`] },
  { label: 'starting with a digit', value: '1Abcdef', broken: [`${RULES}.firstNotDigit`] },
  { label: 'without an uppercase letter', value: 'abcdefg1', broken: [`${RULES}.classes`] },
  { label: 'without a lowercase letter', value: 'ABCDEFG1', broken: [`${RULES}.classes`] },
  { label: 'without a digit', value: 'Abcdefgh', broken: [`${RULES}.classes`] },
  { label: 'with a special character', value: 'Abcde-12', broken: [`${RULES}.noSpecial`] },
  { label: 'with an accented letter', value: 'Abcdé12', broken: [`${RULES}.noSpecial`] },
  { label: 'with a space', value: 'Abc de12', broken: [`${RULES}.noSpecial`] },
]
const VALID_PASSWORDS = ['Abcdef12', 'Abcde1', 'Abcdefghij12']

describe('New password rules on POST .../password/renew/ (field password)', () => {
  it.each(BROKEN_RULES)('refuses a password $label with its rule key', async ({ value, broken }) => {
    // The rules are checked before the token: an unknown one still gets the 400.
    const body = await expectError(await post(RENEW, { token: 'any-token', password: value }), 400, 'VALIDATION_FAILED')
    expect(messagesFor(body.attributs, 'password').sort()).toEqual([...broken].sort())
  })

  it.each(VALID_PASSWORDS)('accepts %s', async (password) => {
    const user = await createUser()
    const token = await resetToken(user)
    expect((await renew(token, password)).status).toBe(204)
    expect((await login(user.login, password)).status).toBe(200)
  })
})

describe('New password rules on PUT /rest/bd/utilisateur/updatePassword (field newPassword)', () => {
  it.each(BROKEN_RULES)('refuses a password $label with its rule key', async ({ value, broken }) => {
    const user = await signedInUser()
    const hash = await passwordHashOf(user.id)
    const body = await expectError(
      await updatePassword(user.jwt.accessToken, { oldPassword: user.password, newPassword: value }),
      400,
      'VALIDATION_FAILED',
    )
    expect(messagesFor(body.attributs, 'newPassword').sort()).toEqual([...broken].sort())
    expect(await passwordHashOf(user.id)).toBe(hash)
  })

  it.each(VALID_PASSWORDS)('accepts %s', async (password) => {
    const user = await signedInUser()
    expect(
      (await updatePassword(user.jwt.accessToken, { oldPassword: user.password, newPassword: password })).status,
    ).toBe(200)
    expect((await login(user.login, password)).status).toBe(200)
  })
})

describe('PUT /rest/bd/utilisateur/updatePassword', () => {
  it("answers 200 with the caller's id as a bare JSON number, and the new password signs in", async () => {
    const user = await signedInUser()
    const response = await updatePassword(user.jwt.accessToken, {
      oldPassword: user.password,
      newPassword: 'Nouveau12',
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
    expect(await response.text()).toBe(String(user.id))
    expect((await login(user.login, 'Nouveau12')).status).toBe(200)
    await expectError(await login(user.login, user.password), 401, 'BAD_CREDENTIAL')
    const notices = (await outboxOf(user.id)).filter((mail) => mail.kind === 'PASSWORD_CHANGED')
    expect(notices.map((mail) => mail.to_address)).toEqual([mailOf(user)])
  })

  it('answers 400 BAD_OLD_PASSWORD for a wrong old password and keeps the password', async () => {
    const user = await signedInUser()
    await expectError(
      await updatePassword(user.jwt.accessToken, { oldPassword: 'Wrong123', newPassword: 'Nouveau12' }),
      400,
      'BAD_OLD_PASSWORD',
    )
    expect((await login(user.login, user.password)).status).toBe(200)
    await expectError(await login(user.login, 'Nouveau12'), 401, 'BAD_CREDENTIAL')
  })

  it('answers 400 VALIDATION_FAILED naming oldPassword when it is missing', async () => {
    const user = await signedInUser()
    const body = await expectError(
      await updatePassword(user.jwt.accessToken, { newPassword: 'Nouveau12' }),
      400,
      'VALIDATION_FAILED',
    )
    expect(messagesFor(body.attributs, 'oldPassword')).toEqual(['validation.required'])
  })

  it('answers 401 without a token', async () => {
    const response = await call(UPDATE, {
      method: 'PUT',
      body: JSON.stringify({ oldPassword: 'Secret12', newPassword: 'Nouveau12' }),
    })
    await expectError(response, 401, 'UNAUTHORIZED')
  })

  it("keeps the caller's session and ends the user's other sessions", async () => {
    const user = await signedInUser()
    const elsewhere = await signIn(user.login, user.password)
    expect(
      (await updatePassword(user.jwt.accessToken, { oldPassword: user.password, newPassword: 'Nouveau12' })).status,
    ).toBe(200)

    expect((await getUserAs(user.jwt.accessToken, user.id)).status).toBe(200)
    expect((await refreshWith(user.jwt.refreshToken)).status).toBe(200)

    expect((await refreshWith(elsewhere.jwt.refreshToken)).status).toBe(401)
    await expectError(await getUserAs(elsewhere.jwt.accessToken, user.id), 401, 'INVALID_TOKEN')
  })

  it(`answers 429 TOO_MANY_ATTEMPTS after ${FREE_FAILURES + 1} wrong old passwords, even to the right one`, async () => {
    const user = await signedInUser()
    for (let i = 0; i < FREE_FAILURES + 1; i++) {
      await expectError(
        await updatePassword(user.jwt.accessToken, { oldPassword: `Wrong${i}00`, newPassword: 'Nouveau12' }),
        400,
        'BAD_OLD_PASSWORD',
      )
    }
    const body = await expectError(
      await updatePassword(user.jwt.accessToken, { oldPassword: user.password, newPassword: 'Nouveau12' }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    expect(body.attributs[0]).toBeGreaterThanOrEqual(1)
    expect((await login(user.login, user.password)).status).toBe(200)
  })

  it('keeps its own count: no identifier typed at sign-in reaches it', async () => {
    const user = await signedInUser()
    for (const identifiant of [
      `password-change:${user.id}`,
      `PASSWORD-CHANGE:${user.id}`,
      ` password-change:${user.id} `,
    ]) {
      for (let i = 0; i < FREE_FAILURES + 2; i++) await login(identifiant, 'Wrong123')
    }
    expect(
      (await updatePassword(user.jwt.accessToken, { oldPassword: user.password, newPassword: 'Nouveau12' })).status,
    ).toBe(200)
  })

  it('does not lock sign-in when wrong old passwords lock the change', async () => {
    const user = await signedInUser()
    for (let i = 0; i < FREE_FAILURES + 2; i++) {
      await updatePassword(user.jwt.accessToken, { oldPassword: 'Wrong123', newPassword: 'Nouveau12' })
    }
    expect((await login(user.login, user.password)).status).toBe(200)
  })

  it('starts the count of wrong old passwords over after a success', async () => {
    const user = await signedInUser()
    const wrong = () => updatePassword(user.jwt.accessToken, { oldPassword: 'Wrong123', newPassword: 'Nouveau12' })
    for (let i = 0; i < FREE_FAILURES; i++) await expectError(await wrong(), 400, 'BAD_OLD_PASSWORD')
    expect(
      (await updatePassword(user.jwt.accessToken, { oldPassword: user.password, newPassword: 'Nouveau12' })).status,
    ).toBe(200)
    for (let i = 0; i < FREE_FAILURES; i++) await expectError(await wrong(), 400, 'BAD_OLD_PASSWORD')
    expect(
      (await updatePassword(user.jwt.accessToken, { oldPassword: 'Nouveau12', newPassword: 'Nouveau34' })).status,
    ).toBe(200)
  })

  it("is refused to an application's session (launch code)", async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    const { refreshToken: code } = await okBody(
      api(user.jwt.accessToken).rest.bd.acces.application.$get({ query: { idApplication: 2 } }),
    )
    const { accessToken } = await okBody(
      api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken: code } }),
    )
    await expectError(
      await updatePassword(accessToken, { oldPassword: user.password, newPassword: 'Nouveau12' }),
      403,
      'APPLICATION_TOKEN_SCOPE',
    )
    expect((await login(user.login, user.password)).status).toBe(200)
  })
})
