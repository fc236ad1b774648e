import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { jwksSchema } from '../../../worker-api/contract/machines/service-accounts'
import {
  CLIENT_AUTH_FAILURES_PER_MINUTE,
  FAILURE_RUN_QUIET_SECONDS,
} from '../../../worker-api/services/core/client-auth-failures'
import { JWT_BEARER } from '../../../worker-api/services/machines/client-credentials'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  insertServiceAccount,
  ORIGIN,
  sessionFor,
  withFrozenClock,
} from '../helpers'
import { oauthErrorCode } from '../oauth-answers'
import { basic, oidcApplication } from '../oidc-rp'

/**
 * The token endpoint's two limits: a client's budget (`OIDC_TOKEN_RATE_PER_MINUTE`, 120 a minute) is spent by its
 * authenticated requests only, and failed authentications are counted apart, per client and address — so whoever
 * knows a client id cannot hold the client back from elsewhere, nor fill the history with one entry per try.
 */

const ATTACKER = '203.0.113.66'
const CLIENT = '198.51.100.7'
const BUDGET = 120

let root: string

beforeAll(async () => {
  await createOrganisation()
  const rootUser = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  root = (await sessionFor(rootUser.id)).accessToken
})

/** A token request from the address `ip`. */
function tokenFrom(ip: string, fields: Record<string, string>, authorization?: string) {
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded',
    'CF-Connecting-IP': ip,
  }
  if (authorization) headers.Authorization = authorization
  return call('/oidc/token', { method: 'POST', body: new URLSearchParams(fields).toString(), headers })
}

const outcome = async (response: Response) =>
  response.status === 200 ? 200 : { status: response.status, error: await oauthErrorCode(response) }

/** A frozen clock at the start of a minute, so that no window ends in the middle of a burst. */
const minuteStart = () => new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1000)

/** The history entries of a service account's refused authentications. */
const accountRefusals = (accountId: number) =>
  db()
    .selectFrom('log')
    .select(['commentaire', 'date'])
    .where('compte_service_id', '=', accountId)
    .where('commentaire', 'like', '%refusée%')
    .orderBy('id')
    .execute()

const clientCredentials = { grant_type: 'client_credentials' }

describe('an attacker who knows a client id', () => {
  it(`cannot hold a service account back: ${BUDGET + 30} wrong secrets from one address, its tokens from another`, async () => {
    const account = await insertServiceAccount({ structure: 2, scopes: 'api' })
    await withFrozenClock(async () => {
      const answers = []
      for (let i = 0; i < BUDGET + 30; i++) {
        answers.push(await tokenFrom(ATTACKER, clientCredentials, basic(account.clientId, `wrong-${i}`)))
      }
      expect(answers.filter((response) => response.status === 401)).toHaveLength(CLIENT_AUTH_FAILURES_PER_MINUTE)
      const locked = answers.slice(CLIENT_AUTH_FAILURES_PER_MINUTE)
      expect(new Set(locked.map((response) => response.status))).toEqual(new Set([429]))
      expect(await outcome(await tokenFrom(CLIENT, clientCredentials, basic(account.clientId, account.secret)))).toBe(
        200,
      )
    }, minuteStart())
  })

  it('cannot hold a service account back with assertions signed by a key of its own', async () => {
    const registered = await generateKeyPair('ES256')
    const { clientId } = await okBody(
      api(root).rest.bd.compteService.$post({
        json: {
          nom: 'Clés seulement',
          structure: { id: 2 },
          admin: false,
          scopes: ['api'],
          jwks: jwksSchema.parse({ keys: [{ ...(await exportJWK(registered.publicKey)), kid: 'k1' }] }),
        },
      }),
      201,
    )
    const forged = (await generateKeyPair('ES256')).privateKey
    const assertion = (key: CryptoKey) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(`${ORIGIN}/portail-backend/oidc/token`)
        .setExpirationTime('60s')
        .sign(key)
    const grant = async (ip: string, key: CryptoKey) =>
      tokenFrom(ip, { ...clientCredentials, client_assertion_type: JWT_BEARER, client_assertion: await assertion(key) })
    await withFrozenClock(async () => {
      for (let i = 0; i < BUDGET + 5; i++) await grant(ATTACKER, forged)
      expect(await outcome(await grant(CLIENT, registered.privateKey))).toBe(200)
    }, minuteStart())
  })

  it('cannot hold an OpenID Connect client’s code exchanges and refreshes back', async () => {
    const rp = await oidcApplication(root, 'Tableau de bord', { public: false })
    const refresh = { grant_type: 'refresh_token', refresh_token: 'inconnu' }
    await withFrozenClock(async () => {
      for (let i = 0; i < BUDGET + 5; i++) await tokenFrom(ATTACKER, refresh, basic(rp.clientId, `wrong-${i}`))
      // Authenticated, the client is told about its grant, not held back.
      const own = await tokenFrom(CLIENT, refresh, basic(rp.clientId, rp.clientSecret))
      expect(await outcome(own)).toEqual({ status: 400, error: 'invalid_grant' })
    }, minuteStart())
  })

  it('cannot hold a public client back with grants it never had', async () => {
    const rp = await oidcApplication(root, 'Application mobile', { public: true })
    const refresh = { grant_type: 'refresh_token', refresh_token: 'inconnu', client_id: rp.clientId }
    await withFrozenClock(async () => {
      const answers = []
      for (let i = 0; i < BUDGET + 5; i++) answers.push((await tokenFrom(ATTACKER, refresh)).status)
      expect(answers.filter((status) => status === 400)).toHaveLength(CLIENT_AUTH_FAILURES_PER_MINUTE)
      expect(answers.slice(CLIENT_AUTH_FAILURES_PER_MINUTE).every((status) => status === 429)).toBe(true)
      expect(await outcome(await tokenFrom(CLIENT, refresh))).toEqual({ status: 400, error: 'invalid_grant' })
    }, minuteStart())
  })
})

describe('failed authentications', () => {
  it(`are ${CLIENT_AUTH_FAILURES_PER_MINUTE} a minute per client and address, then 429 with its wait, the credentials not even checked`, async () => {
    expect(CLIENT_AUTH_FAILURES_PER_MINUTE).toBe(10)
    const account = await insertServiceAccount({ structure: 2, scopes: 'api' })
    const other = await insertServiceAccount({ structure: 2, scopes: 'api' })
    const right = basic(account.clientId, account.secret)
    await withFrozenClock(async (clock) => {
      for (let i = 0; i < 10; i++) {
        const wrong = await tokenFrom(ATTACKER, clientCredentials, basic(account.clientId, 'wrong'))
        expect(await outcome(wrong)).toEqual({ status: 401, error: 'invalid_client' })
      }
      const locked = await tokenFrom(ATTACKER, clientCredentials, right)
      expect(await outcome(locked)).toEqual({ status: 429, error: 'invalid_request' })
      expect(locked.headers.get('Retry-After')).toBe('59')
      // Another client from that address, and this one from another address, are not locked.
      expect(await outcome(await tokenFrom(ATTACKER, clientCredentials, basic(other.clientId, other.secret)))).toBe(200)
      expect(await outcome(await tokenFrom(CLIENT, clientCredentials, right))).toBe(200)
      clock.advance(60)
      expect(await outcome(await tokenFrom(ATTACKER, clientCredentials, right))).toBe(200)
    }, minuteStart())
  })

  it('write one history entry per run, with its count, which a success from elsewhere does not split', async () => {
    const account = await insertServiceAccount({ structure: 2, scopes: 'api' })
    await withFrozenClock(async () => {
      for (let i = 0; i < 7; i++) await tokenFrom(ATTACKER, clientCredentials, basic(account.clientId, 'wrong'))
      const [run, ...more] = await accountRefusals(account.id)
      expect(more).toEqual([])
      expect(run?.commentaire).toContain('7 échecs')
      // Refused while locked: no failure counted, the credentials unchecked.
      for (let i = 0; i < 6; i++) await tokenFrom(ATTACKER, clientCredentials, basic(account.clientId, 'wrong'))
      expect((await accountRefusals(account.id)).map((entry) => entry.commentaire)).toEqual([
        expect.stringContaining('10 échecs'),
      ])
      expect(await outcome(await tokenFrom(CLIENT, clientCredentials, basic(account.clientId, account.secret)))).toBe(
        200,
      )
      await tokenFrom(CLIENT, clientCredentials, basic(account.clientId, 'wrong'))
      expect((await accountRefusals(account.id)).map((entry) => entry.commentaire)).toEqual([
        expect.stringContaining('11 échecs, le dernier : Wrong secret'),
      ])
    }, minuteStart())
  })

  it(`start a new run after ${FAILURE_RUN_QUIET_SECONDS / 60} minutes without failure`, async () => {
    expect(FAILURE_RUN_QUIET_SECONDS).toBe(3600)
    const rp = await oidcApplication(root, 'Portail RH', { public: false })
    const refresh = { grant_type: 'refresh_token', refresh_token: 'inconnu' }
    const refusals = () =>
      db()
        .selectFrom('log')
        .select('commentaire')
        .where('nom_log', '=', 'Portail RH')
        .where('commentaire', 'like', '%refusée%')
        .orderBy('id')
        .execute()
    await withFrozenClock(async (clock) => {
      await tokenFrom(ATTACKER, refresh, basic(rp.clientId, 'wrong'))
      clock.advance(3599)
      await tokenFrom(ATTACKER, refresh, basic(rp.clientId, 'wrong'))
      expect((await refusals()).map((entry) => entry.commentaire)).toEqual([expect.stringContaining('2 échecs')])
      clock.advance(3601)
      await tokenFrom(ATTACKER, refresh, basic(rp.clientId, 'wrong'))
      expect((await refusals()).map((entry) => entry.commentaire)).toEqual([
        expect.stringContaining('2 échecs'),
        expect.stringContaining('1 échec'),
      ])
    }, minuteStart())
  })
})

describe('a client’s budget', () => {
  it(`is ${BUDGET} authenticated requests a minute, then 429 with its wait`, async () => {
    const rp = await oidcApplication(root, 'Supervision', { public: false })
    const refresh = { grant_type: 'refresh_token', refresh_token: 'inconnu' }
    const own = basic(rp.clientId, rp.clientSecret)
    await withFrozenClock(async (clock) => {
      for (let i = 0; i < BUDGET; i++) expect((await tokenFrom(CLIENT, refresh, own)).status).toBe(400)
      const over = await tokenFrom(CLIENT, refresh, own)
      expect(await outcome(over)).toEqual({ status: 429, error: 'invalid_request' })
      expect(Number(over.headers.get('Retry-After'))).toBeGreaterThan(0)
      clock.advance(60)
      expect((await tokenFrom(CLIENT, refresh, own)).status).toBe(400)
    }, minuteStart())
  })
})
