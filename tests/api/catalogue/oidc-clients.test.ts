import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { OidcClient, oidcClientInputSchema } from '../../../worker-api/contract/oidc/oidc'
import { sha256Hex } from '../../../worker-api/lib/crypto'
import { api, okBody } from '../client'
import { call, createOrganisation, currentPost, db, expectError, signedInUser } from '../helpers'

/**
 * An OIDC application's client in the catalogue (DESIGN §4b): its id and secret made by the portal,
 * the secret shown once and kept hashed, rotated on demand; its addresses https (http on loopback
 * only), matched exactly, checked before they are stored.
 */

let root: string
let lilleAdmin: string
let rootId: number

const send = (method: string, body: unknown, token = root) =>
  call('/rest/bd/application', { method, token, body: JSON.stringify(body) })

/** A client as a write sends it. */
type ClientInput = z.input<typeof oidcClientInputSchema>

const client = (overrides: Partial<ClientInput> = {}): ClientInput => ({
  public: false,
  redirectUris: ['https://grafana.example.test/login/generic_oauth'],
  ...overrides,
})

const draft = (libelle: string, oidc: ClientInput | null = client()) => ({
  libelle,
  icone: 'scale' as const,
  url: 'https://grafana.example.test/',
  actif: true,
  protocole: 'OIDC' as const,
  oidc,
  fonctions: [{ id: 2 }],
})

const created = (libelle: string, oidc: ClientInput = client()) =>
  okBody(api(root).rest.bd.application.$post({ json: draft(libelle, oidc) }), 201)

const stored = (applicationId: number) =>
  db().selectFrom('oidc_client').selectAll().where('application_id', '=', applicationId).executeTakeFirst()

beforeAll(async () => {
  await createOrganisation()
  const rootAdmin = await signedInUser({ admin: true, postes: [currentPost(1, 1)] })
  root = rootAdmin.jwt.accessToken
  rootId = rootAdmin.id
  lilleAdmin = (await signedInUser({ admin: true, postes: [currentPost(4, 2)] })).jwt.accessToken
})

describe('an OIDC application in the catalogue', () => {
  it('a confidential client gets an id and a secret, shown once and stored as its SHA-256 only', async () => {
    const application = await created('Grafana')
    expect(application.protocole).toBe('OIDC')
    const oidc = application.oidc as OidcClient
    expect(oidc).toEqual({
      clientId: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      public: false,
      redirectUris: ['https://grafana.example.test/login/generic_oauth'],
      postLogoutRedirectUris: [],
      initiateLoginUri: null,
      backchannelLogoutUri: null,
      deviceGrant: false,
      clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    })
    const row = await stored(application.id)
    expect(row?.secret_hash).toBe(await sha256Hex(oidc.clientSecret as string))
    expect(JSON.stringify(row)).not.toContain(oidc.clientSecret)
    // Read again, the secret is not there.
    const read = await okBody(api(root).rest.bd.application[':id'].$get({ param: { id: application.id }, query: {} }))
    expect(read.oidc).toEqual({ ...oidc, clientSecret: undefined })
    expect('clientSecret' in (read.oidc as OidcClient)).toBe(false)
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('utilisateur_id', '=', rootId)
      .where('nom_log', '=', 'APPLICATION_CREATION')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toBe('Grafana (OpenID Connect) : Agent de quai (Agence Lille)')
  })

  it('a public client has no secret, and none can be rotated for it', async () => {
    const application = await created('Tableau mobile', client({ public: true }))
    expect(application.oidc).toMatchObject({ public: true })
    expect('clientSecret' in (application.oidc as OidcClient)).toBe(false)
    expect((await stored(application.id))?.secret_hash).toBeNull()
    await expectError(
      await call(`/rest/bd/application/${application.id}/secret`, { method: 'POST', token: root }),
      409,
      'OIDC_CLIENT_NOT_CONFIDENTIAL',
    )
    // Nor for a launch-code application.
    await expectError(
      await call('/rest/bd/application/2/secret', { method: 'POST', token: root }),
      409,
      'OIDC_CLIENT_NOT_CONFIDENTIAL',
    )
  })

  it('the secret is rotated by a root administrator only, the old one dying at once, audited', async () => {
    const application = await created('Outline')
    const first = (application.oidc as OidcClient).clientSecret as string
    await expectError(
      await call(`/rest/bd/application/${application.id}/secret`, { method: 'POST' }),
      401,
      'UNAUTHORIZED',
    )
    await expectError(
      await call(`/rest/bd/application/${application.id}/secret`, { method: 'POST', token: lilleAdmin }),
      403,
      'FORBIDDEN',
    )
    expect((await stored(application.id))?.secret_hash).toBe(await sha256Hex(first))
    const rotated = await api(root).rest.bd.application[':id'].secret.$post({ param: { id: application.id } })
    expect(rotated.status).toBe(200)
    expect(rotated.headers.get('Cache-Control')).toBe('no-store')
    const body = await okBody(rotated)
    expect(body.clientId).toBe((application.oidc as OidcClient).clientId)
    expect(body.clientSecret).not.toBe(first)
    expect((await stored(application.id))?.secret_hash).toBe(await sha256Hex(body.clientSecret))
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'APPLICATION_MODIFICATION')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toBe(`Outline (#${application.id}) secret OpenID Connect renouvelé`)
    await expectError(
      await call('/rest/bd/application/99999/secret', { method: 'POST', token: root }),
      404,
      'NOT_FOUND',
    )
  })

  it('a change keeps the client id and the secret; made public, the secret goes; confidential again, a new one', async () => {
    const application = await created('Nextcloud')
    const { clientId, clientSecret } = application.oidc as OidcClient
    const hash = await sha256Hex(clientSecret as string)
    const update = (oidc: ClientInput | null, protocole: 'OIDC' | 'CODE' = 'OIDC') =>
      okBody(
        api(root).rest.bd.application.$put({ json: { ...draft('Nextcloud', oidc), protocole, id: application.id } }),
      )

    const changed = await update(client({ redirectUris: ['https://cloud.example.test/apps/oidc/callback'] }))
    const kept = changed.oidc as OidcClient
    expect([kept.clientId, kept.redirectUris, 'clientSecret' in kept]).toEqual([
      clientId,
      ['https://cloud.example.test/apps/oidc/callback'],
      false,
    ])
    expect((await stored(application.id))?.secret_hash).toBe(hash)
    // Without a protocol (the catalogue's switch, the screen's form), the client stays as it is.
    const { protocole: _, oidc: __, ...withoutProtocol } = draft('Nextcloud')
    const switched = await okBody(
      api(root).rest.bd.application.$put({ json: { ...withoutProtocol, actif: false, id: application.id } }),
    )
    expect(switched.oidc).toEqual(kept)
    expect((await stored(application.id))?.secret_hash).toBe(hash)

    const madePublic = (await update(client({ public: true }))).oidc as OidcClient
    expect([madePublic.clientId, madePublic.public]).toEqual([clientId, true])
    expect((await stored(application.id))?.secret_hash).toBeNull()

    const confidential = (await update(client())).oidc as OidcClient
    expect(confidential.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(confidential.clientSecret).not.toBe(clientSecret)

    // Back to the launch code: the client goes.
    const code = await update(null, 'CODE')
    expect([code.protocole, code.oidc]).toEqual(['CODE', null])
    expect(await stored(application.id)).toBeUndefined()
  })

  it('refuses an OIDC application without its client, and addresses that are not https (but loopback), or carry a fragment', async () => {
    const count = async () =>
      (await db().selectFrom('oidc_client').select(db().fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n
    const before = await count()
    const missing = await expectError(
      await send('POST', { ...draft('Sans client'), oidc: undefined }),
      400,
      'VALIDATION_FAILED',
    )
    expect(missing.attributs).toEqual([expect.objectContaining({ field: 'oidc' })])
    for (const uri of [
      'http://grafana.example.test/callback',
      'https://grafana.example.test/callback#frag',
      'https://user:pw@grafana.example.test/callback',
      'javascript:alert(1)',
      '/relative/callback',
      `https://grafana.example.test/${'x'.repeat(2000)}`,
    ]) {
      const error = await expectError(
        await send('POST', draft('Mauvaise adresse', client({ redirectUris: [uri] }))),
        400,
        'VALIDATION_FAILED',
      )
      expect(error.attributs, uri).toEqual([expect.objectContaining({ field: 'oidc.redirectUris.0' })])
    }
    await expectError(
      await send('POST', draft('Aucune adresse', client({ redirectUris: [] }))),
      400,
      'VALIDATION_FAILED',
    )
    const backchannel = await expectError(
      await send('POST', draft('Logout', { ...client(), backchannelLogoutUri: 'http://rp.example.test/logout' })),
      400,
      'VALIDATION_FAILED',
    )
    expect(backchannel.attributs).toEqual([expect.objectContaining({ field: 'oidc.backchannelLogoutUri' })])
    expect(await count()).toBe(before)
    // Loopback is development's: accepted over http.
    const local = await created('Local', {
      ...client({ redirectUris: ['http://localhost:3000/callback', 'http://127.0.0.1:3000/cb'] }),
      backchannelLogoutUri: 'http://localhost:3000/backchannel',
    })
    expect(local.oidc?.backchannelLogoutUri).toBe('http://localhost:3000/backchannel')
  })

  it('registers 10 addresses of a kind, the last of them answered to by the authorization; 11 refused on their field, nothing stored', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `https://dix.example.test/cb/${i}`)
    const bye = Array.from({ length: 10 }, (_, i) => `https://dix.example.test/bye/${i}`)
    const application = await created('Dix adresses', client({ redirectUris: ten, postLogoutRedirectUris: bye }))
    expect([application.oidc?.redirectUris, application.oidc?.postLogoutRedirectUris]).toEqual([ten, bye])
    const agent = await signedInUser({ postes: [currentPost(4, 2)] })
    const decision = await okBody(
      api(agent.jwt.accessToken).rest.bd.oidc.authorize.$post({
        json: {
          client_id: application.oidc?.clientId ?? '',
          redirect_uri: ten[9] ?? '',
          response_type: 'code',
          scope: 'openid',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
          state: 'dix',
        },
      }),
    )
    expect([decision.action, 'url' in decision ? decision.url.split('?')[0] : undefined]).toEqual(['redirect', ten[9]])
    const before = await db().selectFrom('oidc_client').select('client_id').execute()
    for (const field of ['redirectUris', 'postLogoutRedirectUris']) {
      const eleven = Array.from({ length: 11 }, (_, i) => `https://onze.example.test/${i}`)
      const refused = await expectError(
        await send('POST', draft(`Onze ${field}`, client({ [field]: eleven }))),
        400,
        'VALIDATION_FAILED',
      )
      expect(refused.attributs).toEqual([{ field: `oidc.${field}`, message: 'validation.tooMany' }])
    }
    expect(await db().selectFrom('oidc_client').select('client_id').execute()).toEqual(before)
  })
})
