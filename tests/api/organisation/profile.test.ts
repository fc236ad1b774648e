import { beforeAll, describe, expect, it } from 'vitest'
import type { ProfileInput } from '../../../worker-api/contract/organisation/user'
import { api, okBody } from '../client'
import {
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
  signedInUser,
  solvedCaptcha,
} from '../helpers'

beforeAll(createOrganisation)

const mailOf = (user: { login: string }) => `${user.login}@example.test`

const updateProfile = (token: string, id: number | string, body: Record<string, unknown>) =>
  call(`/rest/bd/utilisateur/${id}`, { method: 'PUT', body: JSON.stringify(body), token })

/** A profile sent as the route declares it. */
const profileUpdated = (token: string, id: number, json: ProfileInput) =>
  okBody(api(token).rest.bd.utilisateur[':id'].$put({ param: { id }, json }))

/** The profile form as the user has it, with `change` applied. */
const formOf = (user: { login: string }, change: Partial<ProfileInput> = {}): ProfileInput => ({
  nom: 'Martin',
  prenom: 'Claire',
  mail: mailOf(user),
  ...change,
})

const rowOf = (id: number) =>
  db()
    .selectFrom('utilisateur')
    .select(['login', 'nom', 'prenom', 'mail'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()

const outboxOf = (userId: number) =>
  db().selectFrom('outbox').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()

const messagesFor = (attributs: unknown[], field: string) =>
  (attributs as { field: string; message: string }[]).filter((a) => a.field === field).map((a) => a.message)

describe('PUT /rest/bd/utilisateur/{id}: own profile', () => {
  it('answers 200 with the updated user, trimmed, and a later GET agrees', async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    const body = await profileUpdated(user.jwt.accessToken, user.id, {
      nom: '  Dupont ',
      prenom: ' Jean  ',
      mail: '  jean.dupont@example.test ',
    })
    expect(body).toMatchObject({
      id: user.id,
      login: user.login,
      nom: 'Dupont',
      prenom: 'Jean',
      // One's own new address waits for its confirmation (mail-change.test.ts).
      mail: mailOf(user),
      mailEnAttente: 'jean.dupont@example.test',
      actif: true,
      supprime: false,
      modification: false,
    })
    expect(body.postesEnCours).toHaveLength(1)
    const read = await getUserAs(user.jwt.accessToken, user.id)
    expect(await read.json()).toEqual(body)
  })

  it('leaves the login as it was: the user still signs in with it', async () => {
    const user = await signedInUser()
    const body = await profileUpdated(
      user.jwt.accessToken,
      user.id,
      formOf(user, { mail: `renamed-${user.login}@example.test` }),
    )
    expect(body.login).toBe(user.login)
    expect((await rowOf(user.id)).login).toBe(user.login)
    expect((await login(user.login, user.password)).status).toBe(200)
  })

  it('ignores the other fields of a user object (login, admin, actif)', async () => {
    const user = await signedInUser()
    const response = await updateProfile(user.jwt.accessToken, user.id, {
      ...formOf(user),
      login: 'taken-over',
      admin: true,
      actif: false,
      supprime: true,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ login: user.login, admin: false, actif: true, supprime: false })
  })

  it('accepts names of 3 and 50 characters and a mail of 50', async () => {
    const user = await signedInUser()
    const mail = `${'m'.repeat(50 - '@example.test'.length)}@example.test`
    expect(mail).toHaveLength(50)
    const response = await updateProfile(user.jwt.accessToken, user.id, {
      nom: 'Abc',
      prenom: 'p'.repeat(50),
      mail,
    })
    expect(response.status).toBe(200)
    expect(await rowOf(user.id)).toMatchObject({ nom: 'Abc', prenom: 'p'.repeat(50) })
    expect(await response.json()).toMatchObject({ mailEnAttente: mail })
  })

  it.each([
    { field: 'nom', value: 'Ab' },
    { field: 'nom', value: 'n'.repeat(51) },
    { field: 'nom', value: '   Ab   ' },
    { field: 'prenom', value: 'Ab' },
    { field: 'prenom', value: 'p'.repeat(51) },
  ])('answers 400 validation.nameLength for $field = "$value"', async ({ field, value }) => {
    const user = await signedInUser()
    const before = await rowOf(user.id)
    const body = await expectError(
      await updateProfile(user.jwt.accessToken, user.id, { ...formOf(user), [field]: value }),
      400,
      'VALIDATION_FAILED',
    )
    expect(messagesFor(body.attributs, field)).toEqual(['validation.nameLength'])
    expect(await rowOf(user.id)).toEqual(before)
  })

  it('answers 400 validation.required for missing fields', async () => {
    const user = await signedInUser()
    const body = await expectError(await updateProfile(user.jwt.accessToken, user.id, {}), 400, 'VALIDATION_FAILED')
    for (const field of ['nom', 'prenom', 'mail'])
      expect(messagesFor(body.attributs, field)).toEqual(['validation.required'])
  })

  it('answers 400 validation.mail for an invalid mail and validation.mailMax for 51 characters', async () => {
    const user = await signedInUser()
    const invalid = await expectError(
      await updateProfile(user.jwt.accessToken, user.id, formOf(user, { mail: 'not-a-mail' })),
      400,
      'VALIDATION_FAILED',
    )
    expect(messagesFor(invalid.attributs, 'mail')).toEqual(['validation.mail'])
    const long = `${'m'.repeat(51 - '@example.test'.length)}@example.test`
    expect(long).toHaveLength(51)
    const tooLong = await expectError(
      await updateProfile(user.jwt.accessToken, user.id, formOf(user, { mail: long })),
      400,
      'VALIDATION_FAILED',
    )
    expect(messagesFor(tooLong.attributs, 'mail')).toContain('validation.mailMax')
    expect((await rowOf(user.id)).mail).toBe(mailOf(user))
  })

  it("answers 409 MAIL_ALREADY_USED for another user's mail in any case, and changes nothing", async () => {
    const user = await signedInUser()
    const other = await createUser()
    const before = await rowOf(user.id)
    for (const mail of [mailOf(other), mailOf(other).toUpperCase()]) {
      await expectError(
        await updateProfile(user.jwt.accessToken, user.id, formOf(user, { mail })),
        409,
        'MAIL_ALREADY_USED',
      )
    }
    expect(await rowOf(user.id)).toEqual(before)
    expect(await outboxOf(user.id)).toEqual([])
  })

  it('accepts its own mail in another case without telling anyone', async () => {
    const user = await signedInUser()
    const response = await updateProfile(
      user.jwt.accessToken,
      user.id,
      formOf(user, { mail: mailOf(user).toUpperCase() }),
    )
    expect(response.status).toBe(200)
    expect(await outboxOf(user.id)).toEqual([])
  })
})

describe('PUT /rest/bd/utilisateur/{id}: what is sent', () => {
  it('queues nothing when only the names change', async () => {
    const user = await signedInUser()
    const response = await updateProfile(user.jwt.accessToken, user.id, formOf(user, { nom: 'Durand', prenom: 'Paul' }))
    expect(response.status).toBe(200)
    expect(await outboxOf(user.id)).toEqual([])
  })

  it('queues nothing when the update is refused', async () => {
    const user = await signedInUser()
    const other = await createUser()
    await expectError(
      await updateProfile(user.jwt.accessToken, user.id, formOf(user, { mail: mailOf(other) })),
      409,
      'MAIL_ALREADY_USED',
    )
    await expectError(
      await updateProfile(user.jwt.accessToken, user.id, formOf(user, { nom: 'X', mail: 'fresh@example.test' })),
      400,
      'VALIDATION_FAILED',
    )
    expect(await outboxOf(user.id)).toEqual([])
  })
})

describe('PUT /rest/bd/utilisateur/{id}: who may edit whom', () => {
  it('answers 403 FORBIDDEN to a non-admin editing another user, who stays unchanged', async () => {
    const caller = await signedInUser({ postes: [currentPost(4, 2)] })
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const before = await rowOf(target.id)
    await expectError(
      await updateProfile(caller.jwt.accessToken, target.id, formOf(target, { nom: 'Pirate' })),
      403,
      'FORBIDDEN',
    )
    expect(await rowOf(target.id)).toEqual(before)
  })

  it('lets an admin edit a user whose posts lie in their scope (modification true)', async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(2, 1)] })
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const newMail = `moved-${target.login}@example.test`
    const response = await updateProfile(
      admin.jwt.accessToken,
      target.id,
      formOf(target, { nom: 'Lefebvre', mail: newMail }),
    )
    expect(response.status).toBe(200)
    // The names change at once; the address only once the new one proves itself.
    expect(await response.json()).toMatchObject({
      id: target.id,
      nom: 'Lefebvre',
      mail: mailOf(target),
      mailEnAttente: newMail,
      modification: true,
    })
    expect(await rowOf(target.id)).toMatchObject({ nom: 'Lefebvre', mail: mailOf(target) })
    const mails = await outboxOf(target.id)
    expect(mails.map((m) => [m.kind, m.to_address])).toEqual([
      ['MAIL_CHANGE_CONFIRM', newMail],
      ['MAIL_CHANGE_REQUESTED', mailOf(target)],
    ])
    // The current address is told who asked, and that nothing changes until the new one confirms.
    expect(mails[1]?.subject).toBe('Votre administrateur demande à changer votre adresse e-mail')
    expect(mails[1]?.text).toContain(newMail)
    expect(mails[1]?.text).toContain('Prenom')
    expect(mails[1]?.text).toContain('ne changent pas tant que')
    // The request is in the audit history, under the administrator, naming the user.
    const audit = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log', 'commentaire'])
      .where('utilisateur_id', '=', admin.id)
      .where('type_log', '=', 'ADMINISTRATION')
      .execute()
    expect(audit).toEqual([
      {
        type_log: 'ADMINISTRATION',
        nom_log: 'MAIL_CHANGE',
        commentaire: `#${target.id} : ${mailOf(target)} → ${newMail} (en attente de confirmation)`,
      },
    ])

    // Opened from the new address, the link moves the account there.
    const token = /\/confirmMail\/([A-Za-z0-9_-]+)/.exec(mails[0]?.text ?? '')?.[1]
    const confirmed = await call('/rest/public/bd/utilisateur/mail/confirm/', {
      method: 'POST',
      body: JSON.stringify({ token }),
    })
    expect(confirmed.status).toBe(200)
    expect(await rowOf(target.id)).toMatchObject({ mail: newMail })
  })

  it("sends nothing that moves the account when an admin's new address is never confirmed", async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(2, 1)] })
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const taken = `taken-${target.login}@evil.test`
    expect((await updateProfile(admin.jwt.accessToken, target.id, formOf(target, { mail: taken }))).status).toBe(200)
    // "Forgot password" for the new address reaches nobody: the account still has its own.
    const forgot = async (mail: string) =>
      post('/rest/public/bd/password/forgot/', { mail, domain: ORIGIN, captcha: await solvedCaptcha() })
    expect((await forgot(taken)).status).toBe(204)
    expect((await outboxOf(target.id)).filter((m) => m.to_address === taken).map((m) => m.kind)).toEqual([
      'MAIL_CHANGE_CONFIRM',
    ])
    expect(await rowOf(target.id)).toMatchObject({ mail: mailOf(target) })
    // The same request for the address the account has sends its reset link there.
    expect((await forgot(mailOf(target))).status).toBe(204)
    expect((await outboxOf(target.id)).filter((m) => m.kind === 'PASSWORD_RESET').map((m) => m.to_address)).toEqual([
      mailOf(target),
    ])
  })

  it('answers 403 to an admin editing a user with a post outside their scope, who stays unchanged', async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(3, 3)] })
    const outside = await createUser({ postes: [currentPost(4, 2)] })
    const straddling = await createUser({ postes: [currentPost(3, 3), currentPost(4, 2)] })
    for (const target of [outside, straddling]) {
      const before = await rowOf(target.id)
      await expectError(
        await updateProfile(admin.jwt.accessToken, target.id, formOf(target, { nom: 'Pirate' })),
        403,
        'FORBIDDEN',
      )
      expect(await rowOf(target.id)).toEqual(before)
    }
  })

  it('answers 404 to an admin for an unknown user, 403 to a non-admin', async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(1, 1)] })
    const user = await signedInUser()
    const form = { nom: 'Personne', prenom: 'Inconnue', mail: 'ghost@example.test' }
    await expectError(await updateProfile(admin.jwt.accessToken, 999_999, form), 404, 'NOT_FOUND')
    await expectError(await updateProfile(user.jwt.accessToken, 999_999, form), 403, 'FORBIDDEN')
  })

  it('answers 401 without a token', async () => {
    const user = await createUser()
    const response = await call(`/rest/bd/utilisateur/${user.id}`, {
      method: 'PUT',
      body: JSON.stringify(formOf(user)),
    })
    await expectError(response, 401, 'UNAUTHORIZED')
  })

  it("answers 403 APPLICATION_TOKEN_SCOPE to an application's session, even on its own user", async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    const { refreshToken: code } = await okBody(
      api(user.jwt.accessToken).rest.bd.acces.application.$get({ query: { idApplication: 2 } }),
    )
    const { accessToken } = await okBody(
      api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken: code } }),
    )
    const before = await rowOf(user.id)
    await expectError(
      await updateProfile(accessToken, user.id, formOf(user, { nom: 'Applique' })),
      403,
      'APPLICATION_TOKEN_SCOPE',
    )
    expect(await rowOf(user.id)).toEqual(before)
  })
})
