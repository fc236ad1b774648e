import { beforeAll, describe, expect, it } from 'vitest'
import type { MfaChallenge } from '../../../worker-api/contract/sign-in/mfa'
import type { PasskeyLogin } from '../../../worker-api/contract/sign-in/passkeys'
import { assertion, attest, b64u, derSignature, newAuthenticator, utf8 } from '../authenticator'
import { api, okBody } from '../client'
import {
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  db,
  expectError,
  login,
  ORIGIN,
  post,
  sessionFor,
} from '../helpers'

beforeAll(createOrganisation)

// ---------------------------------------------------------------------------------------------

type Session = { id: number; login: string; password: string; token: string }

async function user(options: Parameters<typeof createUser>[0] = {}): Promise<Session> {
  const created = await createUser(options)
  return { ...created, token: (await sessionFor(created.id)).accessToken }
}

const status = (token: string) => okBody(api(token).rest.bd.mfa.$get())

const registrationOptions = (session: Session) =>
  okBody(api(session.token).rest.bd.mfa.passkeys.options.$post({ json: { motDePasse: session.password } }))

/** Registers a new authenticator for a user; returns it and the answer. */
async function register(session: Session, nom = 'Téléphone') {
  const authenticator = await newAuthenticator()
  const reponse = await attest(authenticator, await registrationOptions(session))
  const body = await okBody(api(session.token).rest.bd.mfa.passkeys.$post({ json: { nom, reponse } }))
  return { authenticator, body }
}

const signInOptions = (challenge?: string, origin = ORIGIN) =>
  okBody(
    api(undefined, {}, origin).rest.public.bd.login.passkey.options.$post({ json: challenge ? { challenge } : {} }),
  )

const passkeySignIn = (
  reponse: PasskeyLogin['reponse'],
  { challenge, origin = ORIGIN }: { challenge?: string; origin?: string } = {},
) =>
  api(undefined, {}, origin).rest.public.bd.login.passkey.$post({
    json: challenge ? { reponse, challenge } : { reponse },
  })

const mailsOf = (userId: number) =>
  db().selectFrom('outbox').select(['kind', 'subject']).where('utilisateur_id', '=', userId).execute()
const logsOf = async (userId: number) =>
  (await db().selectFrom('log').select('nom_log').where('utilisateur_id', '=', userId).orderBy('id').execute()).map(
    (row) => row.nom_log,
  )

describe('passkey registration', () => {
  it('gives options bound to the host of the user’s domain; the answer registers a named passkey, listed unused, with ten recovery codes as the first factor, told by mail and audited', async () => {
    const me = await user()
    const options = await registrationOptions(me)
    expect(options.rp).toEqual({ name: 'Portail', id: 'localhost' })
    expect(options.user.name).toBe(me.login)
    expect(options.attestation).toBe('none')
    expect(options.excludeCredentials).toEqual([])

    const authenticator = await newAuthenticator()
    const reponse = await attest(authenticator, options)
    // A session alone asks for no passkey: the password (or a current code) proves it is the user,
    // before the authenticator is asked.
    const ask = (proof: object) => post('/rest/bd/mfa/passkeys/options', proof, { token: me.token })
    await expectError(await ask({}), 400, 'VALIDATION_FAILED')
    await expectError(await ask({ motDePasse: 'Wrong1234' }), 400, 'BAD_OLD_PASSWORD')
    await expectError(await ask({ code: '123456' }), 400, 'MFA_CODE_INVALID')
    const response = await api(me.token).rest.bd.mfa.passkeys.$post({ json: { nom: '  Clé USB  ', reponse } })
    expect(response.status).toBe(200)
    const body = await okBody(response)
    expect(body.id).toBe(b64u(authenticator.id))
    expect(body.nom).toBe('Clé USB')
    expect(body.codesSecours).toHaveLength(10)

    const factors = await status(me.token)
    expect(factors.passkeys).toEqual([
      { id: body.id, nom: 'Clé USB', creation: expect.any(String), derniereUtilisation: null },
    ])
    expect(factors.codesSecoursRestants).toBe(10)
    expect((await mailsOf(me.id)).map((mail) => mail.kind)).toEqual(['FACTOR_ADDED'])
    expect(await logsOf(me.id)).toContain('MFA_CLE_AJOUT')

    // The same answer again: its challenge is spent.
    await expectError(
      await post('/rest/bd/mfa/passkeys', { nom: 'Encore', reponse }, { token: me.token }),
      400,
      'PASSKEY_INVALID',
    )

    // A second passkey: the first is excluded from its options, and no new recovery codes come.
    const again = await registrationOptions(me)
    expect(again.excludeCredentials?.map((key) => key.id)).toEqual([body.id])
    const second = await attest(await newAuthenticator(), again)
    const added = await post('/rest/bd/mfa/passkeys', { nom: 'Ordinateur', reponse: second }, { token: me.token })
    expect(added.status).toBe(200)
    expect(await added.json()).toEqual({ id: second.id, nom: 'Ordinateur' })
    expect((await status(me.token)).passkeys.map((key) => key.nom)).toEqual(['Clé USB', 'Ordinateur'])
  })

  it('refuses an answer made for another origin, another host, another user’s challenge or with a forged signature (400 PASSKEY_INVALID)', async () => {
    const me = await user()
    const other = await user()
    const authenticator = await newAuthenticator()
    const refused = async (reponse: unknown, session = me) =>
      expectError(
        await post('/rest/bd/mfa/passkeys', { nom: 'Clé', reponse }, { token: session.token }),
        400,
        'PASSKEY_INVALID',
      )
    await refused(await attest(authenticator, await registrationOptions(me), { origin: 'https://evil.example' }))
    await refused(await attest(authenticator, await registrationOptions(me), { rpId: 'evil.example' }))
    await refused(await attest(authenticator, await registrationOptions(me)), other)
    const tampered = await attest(authenticator, await registrationOptions(me))
    tampered.response.clientDataJSON = b64u(
      utf8(JSON.stringify({ type: 'webauthn.create', challenge: 'x', origin: ORIGIN })),
    )
    await refused(tampered)
    expect((await status(me.token)).passkeys).toEqual([])
    expect((await status(other.token)).passkeys).toEqual([])
    expect(await mailsOf(me.id)).toEqual([])
  })

  it('is refused without a session (401)', async () => {
    expect((await post('/rest/bd/mfa/passkeys/options', {})).status).toBe(401)
    expect((await post('/rest/bd/mfa/passkeys', { nom: 'Clé', reponse: {} })).status).toBe(401)
    expect(
      (await call('/rest/bd/mfa/passkeys/abc', { method: 'DELETE', body: JSON.stringify({ motDePasse: 'x' }) })).status,
    ).toBe(401)
    expect(
      (await call('/rest/bd/mfa/passkeys/abc', { method: 'PATCH', body: JSON.stringify({ nom: 'Clé' }) })).status,
    ).toBe(401)
  })
})

describe('passwordless sign-in with a passkey', () => {
  it('signs in with no password and no captcha, records the use; the same answer twice is refused', async () => {
    const me = await user()
    const { authenticator, body } = await register(me)
    const options = await signInOptions()
    expect(options.rpId).toBe('localhost')
    expect(options.allowCredentials).toEqual([])

    const reponse = await assertion(authenticator, options)
    const response = await passkeySignIn(reponse)
    expect(response.status).toBe(200)
    const signedIn = await okBody(response)
    expect(signedIn.user.id).toBe(me.id)
    expect((await call('/rest/bd/mfa', { token: signedIn.jwt.accessToken })).status).toBe(200)
    const [key] = (await status(me.token)).passkeys
    expect(key?.id).toBe(body.id)
    expect(key?.derniereUtilisation).toEqual(expect.any(String))
    expect(await logsOf(me.id)).toContain('CONNEXION')

    await expectError(await passkeySignIn(reponse), 400, 'PASSKEY_INVALID')
  })

  it('refuses an answer whose counter did not move on (a cloned authenticator), and a forged signature', async () => {
    const me = await user()
    const { authenticator } = await register(me)
    expect((await passkeySignIn(await assertion(authenticator, await signInOptions()))).status).toBe(200)
    const stale = await assertion(authenticator, await signInOptions(), { counter: authenticator.counter })
    await expectError(await passkeySignIn(stale), 400, 'PASSKEY_INVALID')

    const forged = await assertion(authenticator, await signInOptions())
    forged.response.signature = b64u(derSignature(crypto.getRandomValues(new Uint8Array(64))))
    await expectError(await passkeySignIn(forged), 400, 'PASSKEY_INVALID')
    expect((await passkeySignIn(await assertion(authenticator, await signInOptions()))).status).toBe(200)
  })

  it('serves each challenge once, also to an authenticator whose counter stays at 0 (most platform ones)', async () => {
    const me = await user()
    const { authenticator } = await register(me)
    const options = await signInOptions()
    const answer = await assertion(authenticator, options, { counter: 0 })
    expect((await passkeySignIn(answer)).status).toBe(200)
    // The same answer again, then a new signature over the same challenge: both refused.
    await expectError(await passkeySignIn(answer), 400, 'PASSKEY_INVALID')
    await expectError(
      await passkeySignIn(await assertion(authenticator, options, { counter: 0 })),
      400,
      'PASSKEY_INVALID',
    )
    // A new challenge: the authenticator that does not count signs in again.
    expect((await passkeySignIn(await assertion(authenticator, await signInOptions(), { counter: 0 }))).status).toBe(
      200,
    )
    expect((await logsOf(me.id)).filter((entry) => entry === 'CONNEXION')).toHaveLength(2)
  })

  it('serves a challenge once to two answers at once: the one that spent it first signs in, not the other', async () => {
    const me = await user()
    const { authenticator } = await register(me)
    const options = await signInOptions()
    const [first, second] = [
      await assertion(authenticator, options, { counter: 0 }),
      await assertion(authenticator, options, { counter: 0 }),
    ]
    let meanwhile: { status: number } | undefined
    const late = await post(
      '/rest/public/bd/login/passkey',
      { reponse: second },
      {
        env: {
          DB: changedBeforeWrite(async () => {
            meanwhile = await passkeySignIn(first)
          }),
        },
      },
    )
    expect(meanwhile?.status).toBe(200)
    await expectError(late, 400, 'PASSKEY_INVALID')
    expect((await logsOf(me.id)).filter((entry) => entry === 'CONNEXION')).toHaveLength(1)
  })

  it('needs the authenticator to verify its user (a PIN, a fingerprint), which a second step does not', async () => {
    const me = await user()
    const { authenticator } = await register(me)
    const options = await signInOptions()
    expect(options).toMatchObject({ userVerification: 'required' })
    await expectError(
      await passkeySignIn(await assertion(authenticator, options, { userVerified: false })),
      400,
      'PASSKEY_INVALID',
    )

    const { challenge } = (await expectError(await login(me.login, me.password), 403, 'MFA_REQUIRED'))
      .attributs[0] as MfaChallenge
    const second = await signInOptions(challenge)
    expect(second).toMatchObject({ userVerification: 'preferred' })
    const answer = await assertion(authenticator, second, { userVerified: false })
    expect((await passkeySignIn(answer, { challenge })).status).toBe(200)
  })

  it('is bound to the host it was registered on', async () => {
    const me = await user()
    const { authenticator } = await register(me)
    const elsewhere = 'http://127.0.0.1:8787'
    const options = await signInOptions(undefined, elsewhere)
    expect(options.rpId).toBe('127.0.0.1')
    const here = await assertion(authenticator, options, { origin: elsewhere })
    await expectError(await passkeySignIn(here, { origin: elsewhere }), 400, 'PASSKEY_INVALID')
    const asIfLocalhost = await assertion(authenticator, options, { origin: elsewhere, rpId: 'localhost' })
    await expectError(await passkeySignIn(asIfLocalhost, { origin: elsewhere }), 400, 'PASSKEY_INVALID')
  })

  it('refuses a disabled user', async () => {
    const me = await user()
    const { authenticator } = await register(me)
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', me.id).execute()
    await expectError(await passkeySignIn(await assertion(authenticator, await signInOptions())), 403, 'USER_DISABLED')
  })
})

describe('a passkey as the second factor', () => {
  const passwordStep = async (session: Session) =>
    (await expectError(await login(session.login, session.password), 403, 'MFA_REQUIRED')).attributs[0] as MfaChallenge

  it('completes the sign-in a password began: only that user’s passkeys are offered, and the challenge is spent', async () => {
    const me = await user()
    const { authenticator, body } = await register(me)
    const { challenge, methodes } = await passwordStep(me)
    expect(methodes).toEqual(['passkey', 'codeSecours'])

    const options = await signInOptions(challenge)
    expect(options.allowCredentials?.map((key) => key.id)).toEqual([body.id])
    const response = await passkeySignIn(await assertion(authenticator, options), { challenge })
    expect(response.status).toBe(200)
    expect((await okBody(response)).user.id).toBe(me.id)

    // The password's challenge served once.
    await expectError(await signInOptionsResponse(challenge), 401, 'MFA_CHALLENGE_INVALID')
    const codes = await db()
      .selectFrom('mfa_challenge')
      .select('hash')
      .where('utilisateur_id', '=', me.id)
      .where('purpose', '=', 'LOGIN')
      .execute()
    expect(codes).toEqual([])
  })

  it('refuses another user’s passkey, counted like a wrong password', async () => {
    const me = await user()
    await register(me)
    const other = await user()
    const { authenticator } = await register(other)
    const { challenge } = await passwordStep(me)
    const options = await signInOptions(challenge)
    await expectError(
      await passkeySignIn(await assertion(authenticator, options), { challenge }),
      400,
      'PASSKEY_INVALID',
    )
    const attempts = await db()
      .selectFrom('login_attempt')
      .select('failures')
      .where('counter', '=', 'login')
      .where('identifier', '=', me.login)
      .executeTakeFirst()
    expect(attempts?.failures).toBe(1)
  })

  it('refuses options for an unknown challenge (401 MFA_CHALLENGE_INVALID)', async () => {
    await expectError(await signInOptionsResponse('no-such-challenge'), 401, 'MFA_CHALLENGE_INVALID')
  })
})

const signInOptionsResponse = (challenge: string) => post('/rest/public/bd/login/passkey/options', { challenge })

describe('renaming and removing a passkey', () => {
  it('renames and removes one’s own (audited, told by mail; the recovery codes go with the last factor), not another’s (404)', async () => {
    const me = await user()
    const other = await user()
    const { body } = await register(me)
    const { body: theirs } = await register(other)

    const renamed = await call(`/rest/bd/mfa/passkeys/${body.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ nom: 'Portable' }),
      token: me.token,
    })
    expect(renamed.status).toBe(200)
    expect((await status(me.token)).passkeys.map((key) => key.nom)).toEqual(['Portable'])
    const notMine = await call(`/rest/bd/mfa/passkeys/${theirs.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ nom: 'Volée' }),
      token: me.token,
    })
    expect(notMine.status).toBe(404)

    const remove = (id: string, proof: object) =>
      call(`/rest/bd/mfa/passkeys/${id}`, { method: 'DELETE', token: me.token, body: JSON.stringify(proof) })
    await expectError(await remove(theirs.id, { motDePasse: me.password }), 404, 'NOT_FOUND')
    expect((await status(other.token)).passkeys).toHaveLength(1)

    // A stolen session cannot remove it: the password or a current code is asked for.
    await expectError(await remove(body.id, {}), 400, 'VALIDATION_FAILED')
    await expectError(await remove(body.id, { motDePasse: 'Wrong1234' }), 400, 'BAD_OLD_PASSWORD')
    await expectError(await remove(body.id, { code: '123456' }), 400, 'MFA_CODE_INVALID')
    expect((await status(me.token)).passkeys).toHaveLength(1)

    const removed = await remove(body.id, { motDePasse: me.password })
    expect(removed.status).toBe(204)
    expect(await status(me.token)).toEqual({ totp: false, passkeys: [], codesSecoursRestants: 0, fournisseurs: [] })
    expect((await mailsOf(me.id)).map((mail) => mail.kind)).toEqual(['FACTOR_ADDED', 'FACTOR_REMOVED'])
    expect(await logsOf(me.id)).toContain('MFA_CLE_RETRAIT')
    // No factor left: the password alone signs in again.
    expect((await login(me.login, me.password)).status).toBe(200)
  })
})
