import type { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { MfaChallenge } from '../../../worker-api/contract/sign-in/mfa'
import {
  type Authenticator,
  assertion,
  attest,
  type CreationOptions,
  newAuthenticator,
  registeredAuthenticator,
} from '../authenticator'
import { api, okBody } from '../client'
import { createOrganisation, createUser, db, expectError, login, post, sessionFor, withFrozenClock } from '../helpers'

/**
 * README, "Passkeys": a passkey sign-in answers 403 `USER_UNAUTHORIZED_DOMAIN` and
 * `USER_NOT_FINISH_REGISTRATION` as the password sign-in does; it is "counted per client like the
 * password sign-in" (30 a minute: `LOGIN_RATE_PER_MINUTE`, whose default these tests run with, the
 * suite's configuration raising it); "every WebAuthn challenge lives 5 minutes and serves once"; as the
 * second step, "a failure counts like a wrong password (the same lockout)".
 */

beforeAll(createOrganisation)

/** A user with a passkey. */
async function withPasskey() {
  const user = await createUser()
  const authenticator = await registeredAuthenticator((await sessionFor(user.id)).accessToken)
  return { ...user, authenticator }
}

/** Who calls: the client's address, and the Worker's bindings. */
type Init = { headers?: Record<string, string>; env?: Partial<typeof env> }

const optionsFor = (challenge?: string, init: Init = {}) =>
  okBody(
    api(undefined, init.env).rest.public.bd.login.passkey.options.$post(
      { json: challenge ? { challenge } : {} },
      { headers: init.headers ?? {} },
    ),
  )

const signIn = (reponse: unknown, init: Init = {}, challenge?: string) =>
  post('/rest/public/bd/login/passkey', challenge ? { reponse, challenge } : { reponse }, init)

const answer = async (authenticator: Authenticator, init: Init = {}) =>
  assertion(authenticator, await optionsFor(undefined, init))

const sessionsOf = (userId: number) =>
  db().selectFrom('refresh_token').select('id').where('utilisateur_id', '=', userId).execute()

describe('a passkey sign-in refuses', () => {
  it('a user whose domain is another host than the one the request reached: 403 USER_UNAUTHORIZED_DOMAIN, no session', async () => {
    const user = await withPasskey()
    const before = await sessionsOf(user.id)
    await db()
      .updateTable('utilisateur')
      .set({ domain: 'https://autre.example.test' })
      .where('id', '=', user.id)
      .execute()
    await expectError(await signIn(await answer(user.authenticator)), 403, 'USER_UNAUTHORIZED_DOMAIN')
    expect(await sessionsOf(user.id)).toEqual(before)
  })

  it('a user whose registration is not finished: 403 USER_NOT_FINISH_REGISTRATION, no session', async () => {
    const user = await withPasskey()
    const before = await sessionsOf(user.id)
    await db().updateTable('utilisateur').set({ registration_state: 'INVITED' }).where('id', '=', user.id).execute()
    await expectError(await signIn(await answer(user.authenticator)), 403, 'USER_NOT_FINISH_REGISTRATION')
    expect(await sessionsOf(user.id)).toEqual(before)
  })
})

describe('the per-client limit of passkey sign-ins', () => {
  it('is 30 requests a minute, options and answers together: the 31st is answered 429 until the next minute; another client goes on', async () => {
    const user = await withPasskey()
    // The documented default: the suite's configuration raises it for its other files.
    const client = (ip: string): Init => ({
      headers: { 'CF-Connecting-IP': ip },
      env: { LOGIN_RATE_PER_MINUTE: undefined },
    })
    const here = client('198.51.100.7')
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 60_000 + 1000)
    await withFrozenClock(async (clock) => {
      for (let request = 1; request <= 28; request++) await optionsFor(undefined, here)
      // The 29th and 30th: options and a sign-in that opens a session.
      expect((await signIn(await answer(user.authenticator, here), here)).status).toBe(200)

      const refused = await expectError(
        await post('/rest/public/bd/login/passkey/options', {}, here),
        429,
        'TOO_MANY_ATTEMPTS',
      )
      expect(refused.attributs).toEqual([59])
      const late = await assertion(user.authenticator, await optionsFor(undefined, client('198.51.100.8')))
      await expectError(await signIn(late, here), 429, 'TOO_MANY_ATTEMPTS')

      clock.advance(59)
      expect((await signIn(late, here)).status).toBe(200)
    }, minute)
  })
})

describe('a WebAuthn challenge lives 5 minutes', () => {
  it('at sign-in: answered 4 min 59 s after the options, it signs in; 5 min 1 s after, 400 PASSKEY_INVALID', async () => {
    const user = await withPasskey()
    await withFrozenClock(async (clock) => {
      const inTime = await optionsFor()
      const late = await optionsFor()
      clock.advance(299)
      expect((await signIn(await assertion(user.authenticator, inTime))).status).toBe(200)
      clock.advance(2)
      await expectError(await signIn(await assertion(user.authenticator, late)), 400, 'PASSKEY_INVALID')
    })
  })

  it('at registration: answered 4 min 59 s after the options, the passkey is added; 5 min 1 s after, 400 PASSKEY_INVALID', async () => {
    const user = await createUser()
    await withFrozenClock(async (clock) => {
      const { accessToken } = await sessionFor(user.id)
      const creationOptions = () =>
        okBody(api(accessToken).rest.bd.mfa.passkeys.options.$post({ json: { motDePasse: user.password } }))
      const inTime = await creationOptions()
      const late = await creationOptions()
      clock.advance(299)
      const register = async (options: CreationOptions, token: string) =>
        post(
          '/rest/bd/mfa/passkeys',
          { nom: 'Clé', reponse: await attest(await newAuthenticator(), options) },
          { token },
        )
      expect((await register(inTime, accessToken)).status).toBe(200)
      clock.advance(2)
      // A session of this moment (the first one's access token is past its own 5 minutes).
      const { accessToken: fresh } = await sessionFor(user.id)
      await expectError(await register(late, fresh), 400, 'PASSKEY_INVALID')
    })
  })
})

describe('a passkey as the second step', () => {
  it('counts its failures like wrong passwords: the 5th wrong answer is still 400, and ends the step; the password then waits 60 s', async () => {
    const user = await withPasskey()
    const stranger = await withPasskey()
    await withFrozenClock(async (clock) => {
      const step = await expectError(await login(user.login, user.password), 403, 'MFA_REQUIRED')
      const { challenge } = step.attributs[0] as MfaChallenge
      for (let failure = 1; failure <= 5; failure++) {
        // Another user's passkey: a valid answer, refused as the second step of this sign-in.
        const wrong = await assertion(stranger.authenticator, await optionsFor(challenge))
        await expectError(await signIn(wrong, {}, challenge), 400, 'PASSKEY_INVALID')
      }
      await expectError(
        await post('/rest/public/bd/login/passkey/options', { challenge }),
        401,
        'MFA_CHALLENGE_INVALID',
      )
      const held = await expectError(await login(user.login, user.password), 429, 'TOO_MANY_ATTEMPTS')
      expect(held.attributs).toEqual([60])
      clock.advance(60)
      const again = await expectError(await login(user.login, user.password), 403, 'MFA_REQUIRED')
      const { challenge: next } = again.attributs[0] as MfaChallenge
      const right = await assertion(user.authenticator, await optionsFor(next))
      expect((await signIn(right, {}, next)).status).toBe(200)
    })
  })
})
