import { env } from 'cloudflare:test'
import * as client from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEVICE_CODE_GRANT } from '../../../worker-api/contract/oidc/oidc'
import { backgroundContext } from '../../../worker-api/lib/context'
import { purgeExpired } from '../../../worker-api/services/maintenance'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  currentPost,
  db,
  expectError,
  ORIGIN,
  signedInUser,
  withFrozenClock,
} from '../helpers'
import { oauthErrorCode } from '../oauth-answers'
import { rpOptions } from '../oidc-rp'

/**
 * The device authorization grant (RFC 8628): an application allows it in the catalogue or at its registration, a device
 * asks for a code, a user granted the application approves it on /appareil, and the device polls for its tokens.
 */

let root: string

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
})

/** A device client of the catalogue (public unless a secret is asked for), granted to function 2. */
async function deviceClient(
  libelle: string,
  oidc: { public: boolean; deviceGrant?: boolean; redirectUris?: string[] },
) {
  const body = await okBody(api(root).rest.bd.application.$post({ json: deviceApplicationBody(libelle, oidc) }), 201)
  if (!body.oidc) throw new Error('no client')
  return { id: body.id, clientId: body.oidc.clientId, secret: body.oidc.clientSecret ?? null }
}

/** The device's openid-client configuration, from discovery. */
const deviceRp = (device: { clientId: string; secret: string | null }) =>
  client.discovery(
    new URL(ORIGIN),
    device.clientId,
    device.secret ?? undefined,
    device.secret ? client.ClientSecretBasic(device.secret) : client.None(),
    rpOptions,
  )

/** A device's raw request for codes, from `ip`. */
const askCodes = (fields: Record<string, string>, ip = '203.0.113.7', headers: Record<string, string> = {}) =>
  call('/oidc/device_authorization', {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'CF-Connecting-IP': ip, ...headers },
  })

/** An OIDC application of the catalogue with the device grant (no redirect address), granted to function 2. */
const deviceApplicationBody = (
  libelle: string,
  oidc: { public: boolean; redirectUris?: string[]; deviceGrant?: boolean },
) => ({
  libelle,
  icone: 'truck' as const,
  url: 'https://terminal.example.test/',
  actif: true,
  protocole: 'OIDC' as const,
  oidc: { redirectUris: [], deviceGrant: true, ...oidc },
  fonctions: [{ id: 2 }],
})

describe('an application allows the device grant', () => {
  it('in the catalogue, public or confidential, without a redirect address only when it allows the grant', async () => {
    const created = await api(root).rest.bd.application.$post({
      json: deviceApplicationBody('Terminal de quai', { public: true }),
    })
    expect(created.status).toBe(201)
    const body = await created.json()
    expect(body.oidc).toMatchObject({ public: true, redirectUris: [], deviceGrant: true })
    // Without the grant, a client still needs somewhere to send the user back.
    const refused = await api(root).rest.bd.application.$post({
      json: {
        ...deviceApplicationBody('Sans redirection', { public: true }),
        oidc: { public: true, redirectUris: [] },
      },
    })
    const { attributs } = await expectError(refused, 400, 'VALIDATION_FAILED')
    expect((attributs as { field: string }[]).map((a) => a.field)).toEqual(['oidc.redirectUris'])
    // Switched off again: the grant is the catalogue's to allow (read back as saved).
    const updated = await api(root).rest.bd.application.$put({
      json: {
        ...deviceApplicationBody('Terminal de quai', {
          public: true,
          redirectUris: ['https://terminal.example.test/cb'],
        }),
        id: body.id,
        oidc: { public: true, redirectUris: ['https://terminal.example.test/cb'], deviceGrant: false },
      },
    })
    expect(updated.status).toBe(200)
    const saved = await db()
      .selectFrom('oidc_client')
      .select('device_grant')
      .where('application_id', '=', body.id)
      .executeTakeFirstOrThrow()
    expect(saved.device_grant).toBe(0)
    const log = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('type_log', '=', 'ADMINISTRATION')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(log.nom_log).toBe('APPLICATION_MODIFICATION')
    expect(log.commentaire).toContain('client OpenID Connect')
  })

  it('at its dynamic registration: a public client of the device grant alone, without redirect addresses', async () => {
    const registered = await client.dynamicClientRegistration(
      new URL(ORIGIN),
      { client_name: 'Lecteur de quai', grant_types: [DEVICE_CODE_GRANT], token_endpoint_auth_method: 'none' },
      undefined,
      { ...rpOptions, initialAccessToken: root },
    )
    const metadata = registered.clientMetadata()
    expect(metadata.client_secret).toBeUndefined()
    expect(metadata.grant_types).toEqual(['refresh_token', DEVICE_CODE_GRANT])
    expect(metadata.response_types).toEqual([])
    expect(metadata.redirect_uris).toEqual([])
    const saved = await db()
      .selectFrom('oidc_client')
      .select(['device_grant', 'secret_hash', 'redirect_uris'])
      .where('client_id', '=', metadata.client_id)
      .executeTakeFirstOrThrow()
    expect(saved).toEqual({ device_grant: 1, secret_hash: null, redirect_uris: '[]' })
  })

  it('a registration says the grants it asks for: the code needs redirect addresses, the device none', async () => {
    const register = (body: unknown) =>
      call('/oidc/register', { method: 'POST', token: root, body: JSON.stringify(body) })
    const both = await register({
      client_name: 'Terminal et web',
      grant_types: ['authorization_code', DEVICE_CODE_GRANT],
      redirect_uris: ['https://terminal.example.test/cb'],
    })
    expect(both.status).toBe(201)
    const answered = (await both.json()) as { grant_types: string[]; response_types: string[] }
    expect(answered.grant_types).toEqual(['authorization_code', 'refresh_token', DEVICE_CODE_GRANT])
    expect(answered.response_types).toEqual(['code'])
    // The code flow (asked for, or by default) without redirect addresses; a response type without the code flow.
    for (const body of [
      { client_name: 'Sans adresse', grant_types: ['authorization_code', DEVICE_CODE_GRANT] },
      { client_name: 'Sans adresse' },
    ]) {
      const refused = await register(body)
      expect([refused.status, await oauthErrorCode(refused)]).toEqual([400, 'invalid_redirect_uri'])
    }
    const code = await register({
      client_name: 'Sans code',
      grant_types: [DEVICE_CODE_GRANT],
      response_types: ['code'],
    })
    expect([code.status, await oauthErrorCode(code)]).toEqual([400, 'invalid_client_metadata'])
    const implicit = await register({ client_name: 'Implicite', grant_types: ['implicit'] })
    expect([implicit.status, await oauthErrorCode(implicit)]).toEqual([400, 'invalid_client_metadata'])
  })
})

describe('a device asks for its codes', () => {
  it('discovery names the endpoint and the grant', async () => {
    const rp = await deviceRp(await deviceClient('Découverte', { public: true }))
    const metadata = rp.serverMetadata()
    expect(metadata.device_authorization_endpoint).toBe(`${ORIGIN}/portail-backend/oidc/device_authorization`)
    expect(metadata.grant_types_supported).toContain(DEVICE_CODE_GRANT)
  })

  it('with openid-client: a user code to show, a page to approve it on, 10 minutes and 5 seconds; both codes kept as hashes', async () => {
    const device = await deviceClient('Lecteur de quai 1', { public: true })
    const started = await client.initiateDeviceAuthorization(await deviceRp(device), { scope: 'openid profile' })
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(started.verification_uri).toBe(`${ORIGIN}/appareil`)
    expect(started.verification_uri_complete).toBe(`${ORIGIN}/appareil?code=${started.user_code}`)
    expect([started.expires_in, started.interval]).toEqual([600, 5])
    expect(started.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const row = await db()
      .selectFrom('device_authorization')
      .selectAll()
      .where('application_id', '=', device.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ scope: 'openid profile', etat: 'EN_ATTENTE', issuer: ORIGIN, poll_interval: 5 })
    expect(row.device_code_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(row)).not.toContain(started.device_code)
    expect(JSON.stringify(row)).not.toContain(started.user_code.replace('-', ''))
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(600_000)
  })

  it('says what kind of device asks, in its row and in the history', async () => {
    const device = await deviceClient('Terminal de cabine', { public: true })
    const handheld =
      'Mozilla/5.0 (Linux; Android 13; TC52) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36'
    const asked = await askCodes({ client_id: device.clientId, scope: 'openid' }, '203.0.113.8', {
      'User-Agent': handheld,
    })
    expect(asked.status).toBe(200)
    expect(asked.headers.get('Cache-Control')).toBe('no-store')
    const row = await db()
      .selectFrom('device_authorization')
      .select(['type_appareil', 'nom_navigateur'])
      .where('application_id', '=', device.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ type_appareil: 'mobile · Android', nom_navigateur: 'Chrome' })
    const entry = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log', 'commentaire', 'utilisateur_id'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({
      type_log: 'CONNEXION',
      nom_log: 'APPAREIL_DEMANDE',
      commentaire: 'Terminal de cabine (mobile · Android)',
      utilisateur_id: null,
    })
  })

  it('refuses a client without the grant, a scope without openid, and a confidential client without its secret', async () => {
    const web = await deviceClient('Sans appareil', {
      public: true,
      redirectUris: ['https://web.example.test/cb'],
      deviceGrant: false,
    })
    const refused = await askCodes({ client_id: web.clientId })
    expect([refused.status, await oauthErrorCode(refused)]).toEqual([400, 'unauthorized_client'])
    const device = await deviceClient('Portique', { public: true })
    const scope = await askCodes({ client_id: device.clientId, scope: 'profile email' })
    expect([scope.status, await oauthErrorCode(scope)]).toEqual([400, 'invalid_scope'])
    const confidential = await deviceClient('Portique confidentiel', { public: false })
    const anonymous = await askCodes({ client_id: confidential.clientId })
    expect([anonymous.status, await oauthErrorCode(anonymous)]).toEqual([401, 'invalid_client'])
    const wrong = await askCodes({ client_id: confidential.clientId, client_secret: 'not-the-secret' })
    expect([wrong.status, await oauthErrorCode(wrong)]).toEqual([401, 'invalid_client'])
    const right = await askCodes({ client_id: confidential.clientId, client_secret: confidential.secret as string })
    expect(right.status).toBe(200)
    // Nothing was issued for the refusals.
    const rows = await db()
      .selectFrom('device_authorization')
      .select('application_id')
      .where('application_id', 'in', [web.id, device.id, confidential.id])
      .execute()
    expect(rows.map((r) => r.application_id)).toEqual([confidential.id])
  })

  it('10 codes a minute per client and address, 60 per client: then 429 with the wait', async () => {
    const device = await deviceClient('Quai compté', { public: true })
    await withFrozenClock(async () => {
      for (let address = 1; address <= 6; address++) {
        for (let i = 0; i < 10; i++) {
          expect((await askCodes({ client_id: device.clientId }, `198.51.100.${address}`)).status).toBe(200)
        }
      }
      const eleventh = await askCodes({ client_id: device.clientId }, '198.51.100.1')
      expect([eleventh.status, await oauthErrorCode(eleventh)]).toEqual([429, 'invalid_request'])
      expect(Number(eleventh.headers.get('Retry-After'))).toBeGreaterThan(0)
      // A new address too: the client has had its 60 of the minute.
      const sixtyFirst = await askCodes({ client_id: device.clientId }, '198.51.100.9')
      expect([sixtyFirst.status, await oauthErrorCode(sixtyFirst)]).toEqual([429, 'invalid_request'])
    }, new Date('2026-12-05T10:00:05Z'))
    // Another client is not held back.
    const other = await deviceClient('Quai voisin', { public: true })
    expect((await askCodes({ client_id: other.clientId }, '198.51.100.1')).status).toBe(200)
  })

  it('a request is forgotten a day after it expired', async () => {
    const device = await deviceClient('Quai purgé', { public: true })
    await askCodes({ client_id: device.clientId }, '198.51.100.20')
    await askCodes({ client_id: device.clientId }, '198.51.100.20')
    const [first, second] = await db()
      .selectFrom('device_authorization')
      .select('id')
      .where('application_id', '=', device.id)
      .orderBy('id')
      .execute()
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString()
    await db()
      .updateTable('device_authorization')
      .set({ expires_at: hoursAgo(25) })
      .where('id', '=', first?.id ?? 0)
      .execute()
    await db()
      .updateTable('device_authorization')
      .set({ expires_at: hoursAgo(23) })
      .where('id', '=', second?.id ?? 0)
      .execute()
    await purgeExpired(backgroundContext(env))
    const left = await db()
      .selectFrom('device_authorization')
      .select('id')
      .where('application_id', '=', device.id)
      .execute()
    expect(left.map((r) => r.id)).toEqual([second?.id])
  })
})
