import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { MailTokenPurpose } from '../../../worker-api/db/schema'
import { randomToken, sha256Hex } from '../../../worker-api/lib/crypto'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  login,
  ORIGIN,
  post,
  sessionFor,
  signedInUser,
  wireDate,
} from '../helpers'

/**
 * Every link that sets a password (reset, invitation, registration) dies when the password is set or
 * the address changes, whatever path did it: a link left in a former mailbox, or one sent before the
 * password was chosen, must not set it again. An account whose login is its address follows the
 * address, and a user who has not chosen a password gets their invitation at the corrected address.
 */
const TOKEN = (token: string) => `/rest/public/bd/password/token/${encodeURIComponent(token)}`
const RENEW = '/rest/public/bd/password/renew/'
const CONFIRM = '/rest/public/bd/utilisateur/mail/confirm/'
const PASSWORD_SETTING: MailTokenPurpose[] = ['PASSWORD_RESET', 'INVITATION', 'REGISTRATION']

let admin: string

beforeAll(async () => {
  await createOrganisation()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  admin = (await sessionFor(root.id)).accessToken
})

const renew = (token: string, password: string) => post(RENEW, { token, password })
const updateProfile = (token: string, id: number, mail: string) =>
  call(`/rest/bd/utilisateur/${id}`, {
    method: 'PUT',
    token,
    body: JSON.stringify({ nom: 'Nom', prenom: 'Prenom', mail }),
  })
const outboxOf = (userId: number) =>
  db().selectFrom('outbox').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()

/** A live link of each password-setting purpose for the user, as their mails would carry them. */
async function liveLinks(userId: number) {
  const tokens = PASSWORD_SETTING.map(() => randomToken())
  const now = new Date()
  await db()
    .insertInto('mail_token')
    .values(
      await Promise.all(
        tokens.map(async (token, i) => ({
          token_hash: await sha256Hex(token),
          utilisateur_id: userId,
          purpose: PASSWORD_SETTING[i] as MailTokenPurpose,
          expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
          created_at: now.toISOString(),
        })),
      ),
    )
    .execute()
  for (const token of tokens) expect((await call(TOKEN(token))).status).toBe(200)
  return tokens
}

/** Every one of the links answers as spent, and none sets the password. */
async function expectAllDead(tokens: string[]) {
  for (const token of tokens) {
    await expectError(await call(TOKEN(token)), 410, 'TOKEN_USED')
    await expectError(await renew(token, 'Pirate12'), 410, 'TOKEN_USED')
  }
}

/** The token of the newest mail of `kind` sent to `to`, as its recipient reads the link. */
async function linkMailed(userId: number, kind: string, to: string) {
  const mails = (await outboxOf(userId)).filter((m) => m.kind === kind && m.to_address === to)
  const link = /\/(?:renewPassword|confirmMail)\/([A-Za-z0-9_-]+)/.exec(mails.at(-1)?.text ?? '')
  if (!link?.[1]) throw new Error(`no ${kind} link mailed to ${to}`)
  return link[1]
}

/** Gives a factory user their address as login, as the users created by an admin or by registration have. */
async function withMailAsLogin(user: { id: number; login: string }) {
  const mail = `${user.login}@example.test`
  await db().updateTable('utilisateur').set({ login: mail }).where('id', '=', user.id).execute()
  return mail
}

const loginOf = async (id: number) =>
  (await db().selectFrom('utilisateur').select('login').where('id', '=', id).executeTakeFirstOrThrow()).login

describe('every password-setting link dies', () => {
  it('when one of them sets the password (renew)', async () => {
    const user = await createUser()
    const [reset, ...others] = await liveLinks(user.id)
    expect((await renew(reset as string, 'Nouveau12')).status).toBe(204)
    await expectAllDead(others)
  })

  it('when the user changes their password from the profile', async () => {
    const user = await signedInUser()
    const tokens = await liveLinks(user.id)
    const changed = await call('/rest/bd/utilisateur/updatePassword', {
      method: 'PUT',
      token: user.jwt.accessToken,
      body: JSON.stringify({ oldPassword: user.password, newPassword: 'Nouveau12' }),
    })
    expect(changed.status).toBe(200)
    await expectAllDead(tokens)
  })

  it("when the user's own new address is confirmed", async () => {
    const user = await signedInUser()
    const newMail = `moved-${user.login}@example.test`
    expect((await updateProfile(user.jwt.accessToken, user.id, newMail)).status).toBe(200)
    const tokens = await liveLinks(user.id)
    const confirmation = await linkMailed(user.id, 'MAIL_CHANGE_CONFIRM', newMail)
    expect((await post(CONFIRM, { token: confirmation })).status).toBe(200)
    await expectAllDead(tokens)
  })

  it("when an administrator's change of the address is confirmed from the new one", async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const tokens = await liveLinks(user.id)
    const newMail = `corrected-${user.login}@example.test`
    expect((await updateProfile(admin, user.id, newMail)).status).toBe(200)
    const confirmation = await linkMailed(user.id, 'MAIL_CHANGE_CONFIRM', newMail)
    expect((await post(CONFIRM, { token: confirmation })).status).toBe(200)
    await expectAllDead(tokens)
  })
})

describe('the login of an account whose login is its address', () => {
  it("follows the user's own confirmed new address", async () => {
    const user = await signedInUser()
    const former = await withMailAsLogin(user)
    const newMail = `own-${user.login}@example.test`
    expect((await updateProfile(user.jwt.accessToken, user.id, newMail)).status).toBe(200)
    const confirmed = await post(CONFIRM, { token: await linkMailed(user.id, 'MAIL_CHANGE_CONFIRM', newMail) })
    expect(await confirmed.json()).toEqual({ mail: newMail, login: newMail })

    expect(await loginOf(user.id)).toBe(newMail)
    expect((await login(newMail, user.password)).status).toBe(200)
    await expectError(await login(former, user.password), 401, 'BAD_CREDENTIAL')
  })

  it('follows an address an administrator changes, once the new address confirms it', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const former = await withMailAsLogin(user)
    const newMail = `admin-${user.login}@example.test`
    const response = await updateProfile(admin, user.id, newMail)
    expect(await response.json()).toMatchObject({ login: former, mail: former })
    const confirmed = await post(CONFIRM, { token: await linkMailed(user.id, 'MAIL_CHANGE_CONFIRM', newMail) })
    expect(await confirmed.json()).toEqual({ mail: newMail, login: newMail })
    expect((await login(newMail, user.password)).status).toBe(200)
    await expectError(await login(former, user.password), 401, 'BAD_CREDENTIAL')
  })

  it('stays when it is not the address (a login of its own)', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const response = await updateProfile(admin, user.id, `other-${user.login}@example.test`)
    expect(await response.json()).toMatchObject({ login: user.login })
    expect((await login(user.login, user.password)).status).toBe(200)
  })

  it("is refused with 409 MAIL_ALREADY_USED when the new address is another account's login, changing nothing", async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const former = await withMailAsLogin(user)
    // Another account whose login is that address but whose mail is not (a login of its own).
    const other = await createUser()
    const taken = `taken-${other.login}@example.test`
    await db().updateTable('utilisateur').set({ login: taken }).where('id', '=', other.id).execute()
    await expectError(await updateProfile(admin, user.id, taken), 409, 'MAIL_ALREADY_USED')
    expect(await loginOf(user.id)).toBe(former)
  })
})

describe('an address mistyped at creation, corrected by the administrator', () => {
  const create = (mail: string) =>
    api(admin).rest.bd.utilisateur.$post({
      json: {
        nom: 'Typo',
        prenom: 'Tom',
        mail,
        admin: false,
        actif: true,
        domain: ORIGIN,
        poste: {
          structure: { id: 4 },
          fonction: { id: 2 },
          dateDebut: wireDate(isoDate(0)),
          dateFin: wireDate(isoDate(30)),
        },
      },
    })

  it('voids the invitation sent to the typo, invites the corrected address, and the login follows', async () => {
    const typo = 'jean.dupont@exmaple.test'
    const corrected = 'jean.dupont@example.test'
    const createdUser = await okBody(create(typo), 201)
    const typoLink = await linkMailed(createdUser.id, 'INVITATION', typo)

    const user = await okBody(
      api(admin).rest.bd.utilisateur[':id'].$put({
        param: { id: createdUser.id },
        json: { nom: 'Nom', prenom: 'Prenom', mail: corrected },
      }),
    )
    expect(user).toMatchObject({ login: corrected, mail: corrected })
    expect(user.tokenRegister).toBeGreaterThan(Date.now())

    // The holder of the typo'd mailbox can do nothing with it.
    await expectAllDead([typoLink])
    const correctedLink = await linkMailed(createdUser.id, 'INVITATION', corrected)
    expect((await renew(correctedLink, 'Choisi12')).status).toBe(204)
    expect((await login(corrected, 'Choisi12')).status).toBe(200)
    await expectError(await login(typo, 'Choisi12'), 401, 'BAD_CREDENTIAL')
  })

  it('invites nobody again once the user has chosen a password', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const mail = `chosen-${user.login}@example.test`
    expect((await updateProfile(admin, user.id, mail)).status).toBe(200)
    const invitations = (await outboxOf(user.id)).filter((m) => m.kind === 'INVITATION')
    expect(invitations).toEqual([])
  })

  it('writes the new invitation, its link and the change in one batch: nothing on a refusal', async () => {
    const first = await okBody(create('refus-a@exmaple.test'), 201)
    await create('refus-b@example.test')
    const before = await db().selectFrom('mail_token').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
    await expectError(await updateProfile(admin, first.id, 'refus-b@example.test'), 409, 'MAIL_ALREADY_USED')
    const after = await db().selectFrom('mail_token').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
    expect((await outboxOf(first.id)).map((m) => m.kind)).toEqual(['INVITATION'])
  })
})
