import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FournisseurInput } from '../../../worker-api/contract/federation/providers'
import { api, okBody } from '../client'
import { call, createOrganisation, currentPost, db, expectError, signedInUser } from '../helpers'

/**
 * Partners' identity providers, administered by root administrators (rest/bd/fournisseur, issue 63): each write reads
 * the provider's discovery document (two real providers, panva's oidc-provider, started for the run), a domain belongs
 * to one provider, the client secret is kept sealed and never answered, and each write has its entry in the history.
 */

const [issuer, otherIssuer] = env.TEST_UPSTREAM_ISSUERS

let root: string
let nordAdmin: string
let agent: string

const draft = (overrides: Partial<FournisseurInput> = {}): FournisseurInput => ({
  nom: 'Transports Dupont',
  issuer,
  clientId: 'portail',
  authentification: 'client_secret_basic',
  secret: 'secret-du-portail-chez-le-fournisseur-de-test',
  scopes: 'openid email profile',
  domaines: ['transports-dupont.fr'],
  premiereConnexion: 'INSCRIRE',
  structure: { id: 4 },
  confianceMfa: false,
  affiche: false,
  actif: true,
  ...overrides,
})

const send = (method: string, body: unknown, token: string | null = root) =>
  call('/rest/bd/fournisseur', { method, token: token ?? undefined, body: JSON.stringify(body) })

const adminEntries = (nomLog: string) =>
  db()
    .selectFrom('log')
    .select(['utilisateur_id', 'commentaire'])
    .where('type_log', '=', 'ADMINISTRATION')
    .where('nom_log', '=', nomLog)
    .orderBy('id')
    .execute()

async function clean() {
  await db().deleteFrom('fournisseur').execute()
}

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  nordAdmin = (await signedInUser({ admin: true, postes: [currentPost(2, 1)] })).jwt.accessToken
  agent = (await signedInUser({ postes: [currentPost(4, 2)] })).jwt.accessToken
})

describe('POST /rest/bd/fournisseur', () => {
  it('registers a provider from its discovery document, its secret sealed and never answered', async () => {
    await clean()
    const created = await okBody(api(root).rest.bd.fournisseur.$post({ json: draft() }), 201)
    expect(created).toMatchObject({
      nom: 'Transports Dupont',
      issuer,
      clientId: 'portail',
      secretDefini: true,
      domaines: ['transports-dupont.fr'],
      premiereConnexion: 'INSCRIRE',
      structure: { id: 4, nom: 'Agence Lille' },
      liens: 0,
      decouverte: {
        authorizationEndpoint: `${issuer}/auth`,
        tokenEndpoint: `${issuer}/token`,
        jwksUri: `${issuer}/jwks`,
        endSessionEndpoint: `${issuer}/session/end`,
      },
    })
    expect(created.decouverte.authentifications).toContain('private_key_jwt')
    expect(JSON.stringify(created)).not.toContain('secret-du-portail')
    const [row] = await db().selectFrom('fournisseur').select('secret_scelle').execute()
    expect(row?.secret_scelle).toBeTruthy()
    expect(row?.secret_scelle).not.toContain('secret-du-portail')
    expect(await adminEntries('FOURNISSEUR_CREATION')).toEqual([
      expect.objectContaining({ commentaire: `Transports Dupont (${issuer}) : INSCRIRE, transports-dupont.fr` }),
    ])
  })

  it('is refused to anonymous callers, users and administrators of a sub-tree, writing nothing', async () => {
    await clean()
    expectError(await send('POST', draft(), null), 401, 'UNAUTHORIZED')
    expectError(await send('POST', draft(), agent), 403, 'FORBIDDEN')
    expectError(await send('POST', draft(), nordAdmin), 403, 'FORBIDDEN')
    expect(await db().selectFrom('fournisseur').select('id').execute()).toEqual([])
  })

  it('gives a domain to one provider only, whatever its case, and an issuer to one provider', async () => {
    await clean()
    await okBody(api(root).rest.bd.fournisseur.$post({ json: draft() }), 201)
    const second = draft({
      nom: 'Filiale Sud',
      issuer: otherIssuer,
      domaines: ['filiale-sud.fr', 'Transports-Dupont.FR'],
    })
    const refused = await expectError(await send('POST', second), 409, 'IDP_DOMAIN_ALREADY_USED')
    expect(refused.attributs).toEqual(['transports-dupont.fr'])
    expectError(await send('POST', draft({ nom: 'Encore Dupont', domaines: [] })), 409, 'IDP_ISSUER_ALREADY_USED')
    expect((await db().selectFrom('fournisseur').select('nom').execute()).map((r) => r.nom)).toEqual([
      'Transports Dupont',
    ])
    await okBody(api(root).rest.bd.fournisseur.$post({ json: { ...second, domaines: ['filiale-sud.fr'] } }), 201)
  })

  it('refuses at once two administrators claiming one domain at the same time: one provider gets it', async () => {
    await clean()
    const answers = await Promise.all([
      send('POST', draft({ domaines: ['meme-domaine.fr'] })),
      send('POST', draft({ nom: 'Filiale Sud', issuer: otherIssuer, domaines: ['meme-domaine.fr'] })),
    ])
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
    const held = await db().selectFrom('fournisseur_domaine').selectAll().execute()
    expect(held).toHaveLength(1)
    // The provider that lost the domain was not written either: one batch.
    expect(await db().selectFrom('fournisseur').select('id').execute()).toHaveLength(1)
  })

  it('answers 400 IDP_DISCOVERY_FAILED with the reason when the discovery document cannot be read', async () => {
    await clean()
    const nobody = await expectError(
      await send('POST', draft({ issuer: 'http://127.0.0.1:9/' })),
      400,
      'IDP_DISCOVERY_FAILED',
    )
    expect(String(nobody.attributs[0])).toMatch(/unreachable|no answer/)
    // An address that is no provider's (its discovery document is not found there).
    const other = await expectError(
      await send('POST', draft({ issuer: `${issuer}/autre` })),
      400,
      'IDP_DISCOVERY_FAILED',
    )
    expect(String(other.attributs[0])).toContain('status')
    expect(await db().selectFrom('fournisseur').select('id').execute()).toEqual([])
  })

  it('checks its fields: a secret with a client secret method, a structure to queue in, openid, domains', async () => {
    await clean()
    const fields = async (body: unknown) =>
      ((await expectError(await send('POST', body), 400, 'VALIDATION_FAILED')).attributs as { field: string }[]).map(
        (a) => a.field,
      )
    expect(await fields(draft({ secret: undefined }))).toEqual(['secret'])
    expect(await fields(draft({ structure: null }))).toEqual(['structure'])
    expect(await fields(draft({ scopes: 'email profile' }))).toEqual(['scopes'])
    expect(await fields(draft({ domaines: ['pas un domaine'] }))).toEqual(['domaines.0'])
    expect(await fields(draft({ domaines: ['a.fr', 'a.fr'] }))).toEqual(['domaines'])
    expect(await fields(draft({ issuer: 'ftp://idp.example.test' }))).toEqual(['issuer'])
    expect(await fields({ ...draft(), domaines: Array.from({ length: 21 }, (_, i) => `d${i}.fr`) })).toEqual([
      'domaines',
    ])
    // private_key_jwt signs with the portal's key: no secret.
    const jwt = await okBody(
      api(root).rest.bd.fournisseur.$post({
        json: draft({ clientId: 'portail-jwt', authentification: 'private_key_jwt', secret: undefined }),
      }),
      201,
    )
    expect(jwt.secretDefini).toBe(false)
  })
})

describe('GET /rest/bd/fournisseur', () => {
  it('lists the providers searched by name, issuer or domain, paged with the total, to root administrators only', async () => {
    await clean()
    await okBody(api(root).rest.bd.fournisseur.$post({ json: draft() }), 201)
    await okBody(
      api(root).rest.bd.fournisseur.$post({
        json: draft({
          nom: 'Filiale Sud',
          issuer: otherIssuer,
          domaines: ['filiale-sud.fr'],
          premiereConnexion: 'RATTACHER',
          structure: null,
        }),
      }),
      201,
    )
    const all = await okBody(api(root).rest.bd.fournisseur.$get({ query: {} }))
    expect(all.map((p) => p.nom)).toEqual(['Filiale Sud', 'Transports Dupont'])
    const found = await okBody(api(root).rest.bd.fournisseur.$get({ query: { q: 'dupont.fr' } }))
    expect(found.map((p) => p.nom)).toEqual(['Transports Dupont'])
    const page = await api(root).rest.bd.fournisseur.$get({ query: { page: 1, taille: 1, tri: '-nom' } })
    expect(page.headers.get('X-Total-Count')).toBe('2')
    expect((await okBody(page)).map((p) => p.nom)).toEqual(['Transports Dupont'])
    // A long search is an answer, never a failure.
    expect(await okBody(api(root).rest.bd.fournisseur.$get({ query: { q: 'é'.repeat(100) } }))).toEqual([])
    expectError(await call('/rest/bd/fournisseur', { token: nordAdmin }), 403, 'FORBIDDEN')
    expectError(await call('/rest/bd/fournisseur'), 401, 'UNAUTHORIZED')
  })
})

describe('PUT and DELETE /rest/bd/fournisseur', () => {
  it('changes a provider keeping its secret, moves its domains, and writes what changed in the history', async () => {
    await clean()
    const created = await okBody(api(root).rest.bd.fournisseur.$post({ json: draft() }), 201)
    const [before] = await db().selectFrom('fournisseur').select('secret_scelle').execute()
    const changed = await okBody(
      api(root).rest.bd.fournisseur.$put({
        json: { ...draft({ secret: undefined, domaines: ['dupont-logistique.fr'], actif: false }), id: created.id },
      }),
    )
    expect(changed).toMatchObject({ secretDefini: true, domaines: ['dupont-logistique.fr'], actif: false })
    const [after] = await db().selectFrom('fournisseur').select('secret_scelle').execute()
    // Sealed again (a fresh nonce), the same secret inside.
    expect(after?.secret_scelle).toBeTruthy()
    expect(after?.secret_scelle).not.toBe(before?.secret_scelle)
    const [entry] = await adminEntries('FOURNISSEUR_MODIFICATION')
    expect(entry?.commentaire).toBe(
      `Transports Dupont (#${created.id}) : inactif, +dupont-logistique.fr, -transports-dupont.fr`,
    )
    // The domain it left is free for another provider.
    await okBody(
      api(root).rest.bd.fournisseur.$post({
        json: draft({ nom: 'Filiale Sud', issuer: otherIssuer, domaines: ['transports-dupont.fr'] }),
      }),
      201,
    )
  })

  it('deletes a provider with its domains and links, the users keeping their accounts', async () => {
    await clean()
    const created = await okBody(api(root).rest.bd.fournisseur.$post({ json: draft() }), 201)
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    await db()
      .insertInto('lien_fournisseur')
      .values({
        fournisseur_id: created.id,
        sub: 'dupont-1',
        utilisateur_id: user.id,
        created_at: new Date().toISOString(),
      })
      .execute()
    expect((await okBody(api(root).rest.bd.fournisseur[':id'].$get({ param: { id: created.id } }))).liens).toBe(1)
    expectError(
      await call(`/rest/bd/fournisseur/${created.id}`, { method: 'DELETE', token: nordAdmin }),
      403,
      'FORBIDDEN',
    )
    const deleted = await call(`/rest/bd/fournisseur/${created.id}`, { method: 'DELETE', token: root })
    expect(deleted.status).toBe(204)
    expect(await db().selectFrom('lien_fournisseur').selectAll().execute()).toEqual([])
    expect(await db().selectFrom('fournisseur_domaine').selectAll().execute()).toEqual([])
    expect(await db().selectFrom('utilisateur').select('id').where('id', '=', user.id).execute()).toHaveLength(1)
    expect((await adminEntries('FOURNISSEUR_SUPPRESSION')).at(-1)?.commentaire).toBe(
      `Transports Dupont (${issuer}), 1 lien(s)`,
    )
    expectError(await call(`/rest/bd/fournisseur/${created.id}`, { method: 'DELETE', token: root }), 404, 'NOT_FOUND')
  })
})
