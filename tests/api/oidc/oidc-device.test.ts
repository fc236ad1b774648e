import * as client from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEVICE_CODE_GRANT } from '../../../worker-api/contract/oidc/oidc'
import { api } from '../client'
import { call, createOrganisation, currentPost, db, expectError, ORIGIN, signedInUser } from '../helpers'
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

/** An OIDC application of the catalogue with the device grant (no redirect address), granted to function 2. */
const deviceApplicationBody = (libelle: string, oidc: { public: boolean; redirectUris?: string[] }) => ({
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
