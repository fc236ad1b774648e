import { beforeAll, describe, expect, it } from 'vitest'
import { MAIL_CHANGE_REQUESTS_PER_HOUR } from '../../../worker-api/services/organisation/mail-change'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  login,
  ORIGIN,
  post,
  signedInUser,
  solvedCaptcha,
  withFrozenClock,
} from '../helpers'

beforeAll(createOrganisation)

/**
 * Security review, finding 2: a session alone must not move an account to another mailbox. A user's
 * own new address waits for the link sent to it (24 h, single use); the current address is told.
 */
const mailOf = (user: { login: string }) => `${user.login}@example.test`
const TOKEN = (token: string) => `/rest/public/bd/utilisateur/mail/token/${encodeURIComponent(token)}`
const CONFIRM = '/rest/public/bd/utilisateur/mail/confirm/'

const updateProfile = (token: string, id: number, mail: string, nom = 'Martin') =>
  call(`/rest/bd/utilisateur/${id}`, { method: 'PUT', token, body: JSON.stringify({ nom, prenom: 'Claire', mail }) })

const outboxOf = (userId: number) =>
  db().selectFrom('outbox').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()
/** The audit entries of a user's own actions other than signing in. */
const auditOf = (userId: number) =>
  db()
    .selectFrom('log')
    .select(['type_log', 'nom_log', 'commentaire'])
    .where('utilisateur_id', '=', userId)
    .where('type_log', '=', 'ADMINISTRATION')
    .execute()
const mailOfRow = async (id: number) =>
  (await db().selectFrom('utilisateur').select('mail').where('id', '=', id).executeTakeFirstOrThrow()).mail

/** The token of the newest confirmation link sent to `to` (the log provider keeps the mail's text). */
async function confirmationToken(userId: number, to: string) {
  const mails = (await outboxOf(userId)).filter((m) => m.kind === 'MAIL_CHANGE_CONFIRM' && m.to_address === to)
  const link = /\/confirmMail\/([A-Za-z0-9_-]+)/.exec(mails.at(-1)?.text ?? '')
  if (!link?.[1]) throw new Error(`no confirmation link to ${to}`)
  return link[1]
}

/** Asks for a password reset for the user's current address; the token of the link sent. */
async function resetLinkToken(user: { id: number; login: string }) {
  const forgot = await post('/rest/public/bd/password/forgot/', {
    mail: mailOf(user),
    domain: ORIGIN,
    captcha: await solvedCaptcha(),
  })
  expect(forgot.status).toBe(204)
  const reset = (await outboxOf(user.id)).find((m) => m.kind === 'PASSWORD_RESET')
  return /\/renewPassword\/([A-Za-z0-9_-]+)/.exec(reset?.text ?? '')?.[1] ?? ''
}

/** A signed-in user who asked to move to a new address: the link's token. */
async function requestedChange() {
  const user = await signedInUser({ postes: [currentPost(4, 2)] })
  const newMail = `new-${user.login}@example.test`
  expect((await updateProfile(user.jwt.accessToken, user.id, newMail)).status).toBe(200)
  return { user, newMail, token: await confirmationToken(user.id, newMail) }
}

describe('PUT rest/bd/utilisateur/{own id} with a new mail', () => {
  it('keeps the current address, shows the new one as pending, and mails both', async () => {
    const user = await signedInUser()
    const newMail = `new-${user.login}@example.test`
    const response = await updateProfile(user.jwt.accessToken, user.id, newMail, 'Nouveau')
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ nom: 'Nouveau', mail: mailOf(user), mailEnAttente: newMail })
    expect(await mailOfRow(user.id)).toBe(mailOf(user))
    const me = await call(`/rest/bd/utilisateur/${user.id}`, { token: user.jwt.accessToken })
    expect(await me.json()).toMatchObject({ mail: mailOf(user), mailEnAttente: newMail })

    const mails = await outboxOf(user.id)
    expect(mails.map((m) => [m.kind, m.to_address])).toEqual([
      ['MAIL_CHANGE_CONFIRM', newMail],
      ['MAIL_CHANGE_REQUESTED', mailOf(user)],
    ])
    expect(mails[0]?.subject).toBe('Confirmez votre nouvelle adresse e-mail')
    expect(mails[0]?.text).toContain(`${ORIGIN}/confirmMail/`)
    expect(mails[0]?.text).toContain('24 heures')
    expect(mails[1]?.subject).toBe('Demande de changement de votre adresse e-mail')
    expect(mails[1]?.text).toContain(newMail)
    expect(mails[1]?.text).not.toContain('/confirmMail/')
  })

  it('sends a reset to the current address until the new one is confirmed', async () => {
    const { user, newMail } = await requestedChange()
    const forgot = async (mail: string) =>
      post('/rest/public/bd/password/forgot/', { mail, domain: ORIGIN, captcha: await solvedCaptcha() })
    expect((await forgot(newMail)).status).toBe(204)
    expect((await forgot(mailOf(user))).status).toBe(204)
    const resets = (await outboxOf(user.id)).filter((m) => m.kind === 'PASSWORD_RESET')
    expect(resets.map((m) => m.to_address)).toEqual([mailOf(user)])
  })

  it('writes both mails in the language the user last signed in with', async () => {
    const user = await createUser()
    const { jwt } = await okBody(
      api().rest.public.bd.login.$post(
        { json: { identifiant: user.login, motDePasse: user.password, captcha: await solvedCaptcha() } },
        { headers: { 'Accept-Language': 'en-GB' } },
      ),
    )
    expect((await updateProfile(jwt.accessToken, user.id, `en-${user.login}@example.test`)).status).toBe(200)
    expect((await outboxOf(user.id)).map((m) => m.subject)).toEqual([
      'Confirm your new e-mail address',
      'Request to change your e-mail address',
    ])
  })

  it(`answers 429 after ${MAIL_CHANGE_REQUESTS_PER_HOUR} requests in an hour, writing nothing`, async () => {
    const user = await signedInUser()
    for (let i = 0; i < MAIL_CHANGE_REQUESTS_PER_HOUR; i++) {
      expect((await updateProfile(user.jwt.accessToken, user.id, `try${i}-${user.login}@example.test`)).status).toBe(
        200,
      )
    }
    const before = await outboxOf(user.id)
    await expectError(
      await updateProfile(user.jwt.accessToken, user.id, `late-${user.login}@example.test`, 'Autre'),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    expect(await outboxOf(user.id)).toEqual(before)
    const me = await call(`/rest/bd/utilisateur/${user.id}`, { token: user.jwt.accessToken })
    expect(await me.json()).toMatchObject({ nom: 'Martin', mailEnAttente: `try2-${user.login}@example.test` })
  })

  it('lets a newer request void the earlier link', async () => {
    const { user, token } = await requestedChange()
    const newer = `newer-${user.login}@example.test`
    expect((await updateProfile(user.jwt.accessToken, user.id, newer)).status).toBe(200)
    await expectError(await call(TOKEN(token)), 410, 'TOKEN_USED')
    const me = await call(`/rest/bd/utilisateur/${user.id}`, { token: user.jwt.accessToken })
    expect(await me.json()).toMatchObject({ mailEnAttente: newer })
  })
})

describe('GET rest/public/bd/utilisateur/mail/token/{token}', () => {
  it('answers the address to confirm and the login, without a referrer', async () => {
    const { user, newMail, token } = await requestedChange()
    const response = await call(TOKEN(token))
    expect(response.status).toBe(200)
    expect(response.headers.get('Referrer-Policy')).toBe('no-referrer')
    expect(await response.json()).toEqual({ mail: newMail, login: user.login })
  })

  it('answers 404 TOKEN_NOT_FOUND for an unknown link', async () => {
    await expectError(await call(TOKEN('no-such-link')), 404, 'TOKEN_NOT_FOUND')
  })

  it('answers 410 TOKEN_EXPIRED 24 hours after the request', async () => {
    await withFrozenClock(async (clock) => {
      const { token } = await requestedChange()
      clock.advance(24 * 3600 - 60)
      expect((await call(TOKEN(token))).status).toBe(200)
      clock.advance(61)
      await expectError(await call(TOKEN(token)), 410, 'TOKEN_EXPIRED')
      await expectError(await post(CONFIRM, { token }), 410, 'TOKEN_EXPIRED')
    })
  })
})

describe('POST rest/public/bd/utilisateur/mail/confirm/', () => {
  it('makes the new address the account’s, tells the former one, and is single use', async () => {
    const { user, newMail, token } = await requestedChange()
    const response = await post(CONFIRM, { token })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ mail: newMail, login: user.login })
    expect(await mailOfRow(user.id)).toBe(newMail)
    const me = await call(`/rest/bd/utilisateur/${user.id}`, { token: user.jwt.accessToken })
    expect(await me.json()).toMatchObject({ mail: newMail, mailEnAttente: null })
    const changed = (await outboxOf(user.id)).filter((m) => m.kind === 'MAIL_CHANGED')
    expect(changed.map((m) => m.to_address)).toEqual([mailOf(user)])
    expect(changed[0]?.text).toContain(newMail)
    await expectError(await post(CONFIRM, { token }), 410, 'TOKEN_USED')
    // In the audit history, once, in the same batch as the change.
    expect(await auditOf(user.id)).toEqual([
      { type_log: 'ADMINISTRATION', nom_log: 'MAIL_CHANGE', commentaire: `${mailOf(user)} → ${newMail}` },
    ])
    // The user still signs in with their login, and resets now go to the new address.
    expect((await login(user.login, user.password)).status).toBe(200)
  })

  it('voids the reset links sent to the former address', async () => {
    const { user, token } = await requestedChange()
    const resetToken = await resetLinkToken(user)
    expect((await call(`/rest/public/bd/password/token/${resetToken}`)).status).toBe(200)
    expect((await post(CONFIRM, { token })).status).toBe(200)
    await expectError(await call(`/rest/public/bd/password/token/${resetToken}`), 410, 'TOKEN_USED')
  })

  it('lets one of two simultaneous confirmations win', async () => {
    const { user, token } = await requestedChange()
    const statuses = (await Promise.all([post(CONFIRM, { token }), post(CONFIRM, { token })])).map((r) => r.status)
    expect(statuses.sort()).toEqual([200, 410])
    expect((await outboxOf(user.id)).filter((m) => m.kind === 'MAIL_CHANGED')).toHaveLength(1)
    expect(await auditOf(user.id)).toHaveLength(1)
  })

  it('answers 409 MAIL_ALREADY_USED when another account took the address meanwhile, changing nothing', async () => {
    const { user, newMail, token } = await requestedChange()
    const other = await createUser()
    await db().updateTable('utilisateur').set({ mail: newMail }).where('id', '=', other.id).execute()
    await expectError(await post(CONFIRM, { token }), 409, 'MAIL_ALREADY_USED')
    expect(await mailOfRow(user.id)).toBe(mailOf(user))
    expect(await auditOf(user.id)).toEqual([])
  })

  it('answers 403 USER_DISABLED for a user disabled since the request', async () => {
    const { user, token } = await requestedChange()
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', user.id).execute()
    await expectError(await post(CONFIRM, { token }), 403, 'USER_DISABLED')
    expect(await mailOfRow(user.id)).toBe(mailOf(user))
  })

  it('answers 400 VALIDATION_FAILED without a token', async () => {
    await expectError(await post(CONFIRM, {}), 400, 'VALIDATION_FAILED')
  })

  it("dies when an administrator sets the user's address meanwhile", async () => {
    const { user, token } = await requestedChange()
    const admin = await signedInUser({ admin: true, postes: [currentPost(2, 1)] })
    expect(
      (await updateProfile(admin.jwt.accessToken, user.id, `set-by-admin-${user.login}@example.test`)).status,
    ).toBe(200)
    await expectError(await post(CONFIRM, { token }), 410, 'TOKEN_USED')
  })
})

describe('each link is accepted by its own call only', () => {
  it('refuses a mail-change link at the password calls, and a reset link at the confirmation', async () => {
    const { user, token } = await requestedChange()
    await expectError(await call(`/rest/public/bd/password/token/${token}`), 404, 'TOKEN_NOT_FOUND')
    await expectError(
      await post('/rest/public/bd/password/renew/', { token, password: 'Pirate12' }),
      404,
      'TOKEN_NOT_FOUND',
    )
    const resetToken = await resetLinkToken(user)
    await expectError(await call(TOKEN(resetToken)), 404, 'TOKEN_NOT_FOUND')
    await expectError(await post(CONFIRM, { token: resetToken }), 404, 'TOKEN_NOT_FOUND')
  })
})
