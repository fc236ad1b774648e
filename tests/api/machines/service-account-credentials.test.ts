import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  jwksSchema,
  PREVIOUS_SECRET_HOURS,
  type ServiceAccountCreated,
  serviceAccountCreatedSchema,
} from '../../../worker-api/contract/machines/service-accounts'
import {
  ASSERTION_ALGORITHMS,
  ASSERTION_CLOCK_SKEW_SECONDS,
  ASSERTION_MAX_SECONDS,
  JWT_BEARER,
} from '../../../worker-api/services/machines/client-credentials'
import { api, okBody } from '../client'
import {
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  ORIGIN,
  post,
  sessionFor,
  withFrozenClock,
} from '../helpers'
import { oauthErrorCode } from '../oauth-answers'
import { basic, tokenCall } from '../oidc-rp'

/**
 * How a service account proves itself at the token endpoint, at the edges: whose keys, which algorithms,
 * how long an assertion and a former secret live, and from which host.
 */

const TOKEN_ENDPOINT = `${ORIGIN}/portail-backend/oidc/token`
const MARGIN = 5

let adminNord: { id: number; token: string }

beforeAll(async () => {
  await createOrganisation()
  const nord = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  adminNord = { id: nord.id, token: (await sessionFor(nord.id)).accessToken }
})

/** A reader account of Direction Nord, with a secret or with these public keys. */
async function account(jwks?: { keys: JWK[] }): Promise<ServiceAccountCreated> {
  // The keys as the contract reads them (public members, a key type it knows): jose's JWK type is wider.
  const keys = jwks ? { jwks: jwksSchema.parse(jwks) } : {}
  return okBody(
    api(adminNord.token).rest.bd.compteService.$post({
      json: { nom: 'Synchronisation', structure: { id: 2 }, admin: false, scopes: ['api'], ...keys },
    }),
    201,
  )
}

/** An assertion of `clientId`, signed by `key`, expiring `lifetime` seconds from now (the clock as the API reads it). */
function assertion(clientId: string, key: CryptoKey, options: { alg?: string; kid?: string; lifetime?: number } = {}) {
  return new SignJWT({ jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: options.alg ?? 'ES256', ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(TOKEN_ENDPOINT)
    .setExpirationTime(Math.floor(Date.now() / 1000) + (options.lifetime ?? 60))
    .sign(key)
}

const grant = (signed: string, origin?: string) =>
  tokenCall(
    { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: signed },
    undefined,
    origin,
  )

const outcome = async (response: Response) =>
  response.status === 200 ? 200 : { status: response.status, error: await oauthErrorCode(response) }
const refused = { status: 401, error: 'invalid_client' }

async function keyedAccount(alg = 'ES256', kid = 'k1') {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true })
  const created = await account({ keys: [{ ...(await exportJWK(publicKey)), kid }] })
  return { ...created, privateKey }
}

describe('private_key_jwt', () => {
  it('refuses an assertion for one account signed with the key another account registered', async () => {
    const a = await keyedAccount('ES256', 'a1')
    const b = await keyedAccount('ES256', 'b1')
    expect(await outcome(await grant(await assertion(b.clientId, b.privateKey, { kid: 'b1' })))).toBe(200)
    // B's real, registered key, named by its kid, by A's, or by none: not one of A's keys.
    for (const kid of ['b1', 'a1', undefined]) {
      const signed = await assertion(a.clientId, b.privateKey, kid ? { kid } : {})
      expect(await outcome(await grant(signed)), kid).toEqual(refused)
    }
  })

  it(`accepts exactly ${ASSERTION_ALGORITHMS.join(', ')}`, async () => {
    expect(ASSERTION_ALGORITHMS).toEqual([
      'RS256',
      'RS384',
      'RS512',
      'PS256',
      'PS384',
      'PS512',
      'ES256',
      'ES384',
      'EdDSA',
    ])
    const rsa = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 })
    const keys: Record<string, { publicKey: CryptoKey; privateKey: CryptoKey }> = {
      RS: rsa,
      ES256: await generateKeyPair('ES256', { extractable: true }),
      ES384: await generateKeyPair('ES384', { extractable: true }),
      EdDSA: await generateKeyPair('EdDSA', { extractable: true }),
    }
    // One registered RSA key serves the six RSA algorithms; a signing key of Web Crypto is bound to one.
    const rsaPrivate = await exportJWK(rsa.privateKey)
    const signer = async (alg: string) =>
      alg.startsWith('RS') || alg.startsWith('PS')
        ? ((await importJWK(rsaPrivate, alg)) as CryptoKey)
        : (keys[alg] as CryptoKeyPair).privateKey
    const jwks = {
      keys: await Promise.all(
        Object.entries(keys).map(async ([kid, { publicKey }]) => ({ ...(await exportJWK(publicKey)), kid })),
      ),
    }
    const created = await account(jwks)
    for (const alg of ASSERTION_ALGORITHMS) {
      const kid = alg.startsWith('RS') || alg.startsWith('PS') ? 'RS' : alg
      const response = await grant(await assertion(created.clientId, await signer(alg), { alg, kid }))
      expect(await outcome(response), alg).toBe(200)
    }
    // ES512 (P-521): refused, whether at the registration of its key or at the token endpoint.
    const p521 = await generateKeyPair('ES512', { extractable: true })
    const registered = await post(
      '/rest/bd/compteService',
      {
        nom: 'P-521',
        structure: { id: 2 },
        admin: false,
        scopes: ['api'],
        jwks: { keys: [{ ...(await exportJWK(p521.publicKey)), kid: 'p521' }] },
      },
      { token: adminNord.token },
    )
    if (registered.status === 201) {
      const { clientId } = serviceAccountCreatedSchema.parse(await registered.json())
      const signed = await assertion(clientId, p521.privateKey, { alg: 'ES512', kid: 'p521' })
      expect(await outcome(await grant(signed))).toEqual(refused)
    } else expect(registered.status).toBe(400)
  })

  it(`accepts an exp up to ${ASSERTION_MAX_SECONDS} s ahead, with ${ASSERTION_CLOCK_SKEW_SECONDS} s of skew either way (330 s ahead, 29 s past), nothing beyond`, async () => {
    expect([ASSERTION_MAX_SECONDS, ASSERTION_CLOCK_SKEW_SECONDS]).toEqual([300, 30])
    const created = await keyedAccount()
    await withFrozenClock(async () => {
      const at = (lifetime: number) => assertion(created.clientId, created.privateKey, { kid: 'k1', lifetime })
      expect(await outcome(await grant(await at(330)))).toBe(200)
      expect(await outcome(await grant(await at(331)))).toEqual(refused)
      expect(await outcome(await grant(await at(-29)))).toBe(200)
      expect(await outcome(await grant(await at(-30)))).toEqual(refused)
      expect(await outcome(await grant(await at(-MARGIN * 60)))).toEqual(refused)
    })
  })

  it('refuses an account’s assertion at another host than its domain', async () => {
    const created = await keyedAccount()
    const elsewhere = 'https://autre.example.test'
    const signed = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(created.clientId)
      .setSubject(created.clientId)
      .setAudience(`${elsewhere}/portail-backend/oidc/token`)
      .setExpirationTime('60s')
      .sign(created.privateKey)
    expect(await outcome(await grant(signed, elsewhere))).toEqual(refused)
  })
})

describe('a secret', () => {
  it('is refused at another host than the account’s domain', async () => {
    const created = await account()
    const credentials = basic(created.clientId, created.clientSecret ?? '')
    expect(await outcome(await tokenCall({ grant_type: 'client_credentials' }, credentials))).toBe(200)
    const elsewhere = await tokenCall({ grant_type: 'client_credentials' }, credentials, 'https://autre.example.test')
    expect(await outcome(elsewhere)).toEqual(refused)
  })

  it(`keeps the former one ${PREVIOUS_SECRET_HOURS} hours after a rotation, and refuses it after`, async () => {
    expect(PREVIOUS_SECRET_HOURS).toBe(24)
    const created = await account()
    await withFrozenClock(async (clock) => {
      const rotated = await okBody(
        api(adminNord.token).rest.bd.compteService[':id'].secret.$post({ param: { id: created.id }, json: {} }),
      )
      const former = basic(created.clientId, created.clientSecret ?? '')
      clock.advance(PREVIOUS_SECRET_HOURS * 3600 - MARGIN)
      expect(await outcome(await tokenCall({ grant_type: 'client_credentials' }, former))).toBe(200)
      clock.advance(2 * MARGIN)
      expect(await outcome(await tokenCall({ grant_type: 'client_credentials' }, former))).toEqual(refused)
      const { clientSecret } = rotated
      const latest = basic(created.clientId, clientSecret)
      expect(await outcome(await tokenCall({ grant_type: 'client_credentials' }, latest))).toBe(200)
    })
  })
})

describe('a keys-only account', () => {
  const secretEntries = (clientId: string) =>
    db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'COMPTE_SERVICE_SECRET')
      .where('commentaire', 'like', `%${clientId}%`)
      .execute()

  it('is given no secret by an administrator of its structure, unless its method is changed on purpose', async () => {
    const created = await keyedAccount()
    const renewal = `/rest/bd/compteService/${created.id}/secret`
    await expectError(await post(renewal, {}, { token: adminNord.token }), 409, 'SERVICE_ACCOUNT_KEYS_ONLY')
    await expectError(
      await post(renewal, { revoquerAncien: true }, { token: adminNord.token }),
      409,
      'SERVICE_ACCOUNT_KEYS_ONLY',
    )
    const stored = () =>
      db()
        .selectFrom('compte_service')
        .select(['secret_hash', 'jwks'])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
    expect((await stored()).secret_hash).toBeNull()
    expect(await secretEntries(created.clientId)).toEqual([])
    expect(await outcome(await grant(await assertion(created.clientId, created.privateKey, { kid: 'k1' })))).toBe(200)

    // Asked for: the account signs in with a secret from now on, and its keys are forgotten.
    const { clientSecret, ancienSecretExpire } = await okBody(
      api(adminNord.token).rest.bd.compteService[':id'].secret.$post({
        param: { id: created.id },
        json: { methode: 'client_secret' },
      }),
    )
    expect(ancienSecretExpire).toBeNull()
    expect((await stored()).jwks).toBeNull()
    const secret = basic(created.clientId, clientSecret)
    expect(await outcome(await tokenCall({ grant_type: 'client_credentials' }, secret))).toBe(200)
    expect(await outcome(await grant(await assertion(created.clientId, created.privateKey, { kid: 'k1' })))).toEqual(
      refused,
    )
    expect(await secretEntries(created.clientId)).toEqual([{ commentaire: expect.stringContaining('clés retirées') }])
  })

  it('leaves an account with a secret as it was: a new secret, with or without methode', async () => {
    const created = await account()
    for (const body of [{}, { methode: 'client_secret' }]) {
      expect((await post(`/rest/bd/compteService/${created.id}/secret`, body, { token: adminNord.token })).status).toBe(
        200,
      )
    }
    await expectError(
      await post(
        `/rest/bd/compteService/${created.id}/secret`,
        { methode: 'private_key_jwt' },
        { token: adminNord.token },
      ),
      400,
      'VALIDATION_FAILED',
    )
  })
})
