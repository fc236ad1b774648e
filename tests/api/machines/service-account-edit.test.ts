import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  jwksSchema,
  type ServiceAccountCreated,
  type serviceAccountCreateSchema,
} from '../../../worker-api/contract/machines/service-accounts'
import { JWT_BEARER } from '../../../worker-api/services/machines/client-credentials'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, expectError, ORIGIN, sessionFor } from '../helpers'
import { serviceAccessToken } from '../oauth-answers'
import { basic, tokenCall } from '../oidc-rp'

/**
 * Editing a service account (`PATCH rest/bd/compteService/{id}`) under the same client id: switched off and on, its
 * scopes narrowed, its keys replaced, renamed; what widens an administrator account asks for a proof; another
 * sub-tree's administrator reaches nothing; each change in the history. The organisation of helpers.ts: Groupe (1) ›
 * Direction Nord (2) › Agence Lille (4), Direction Sud (3).
 */

let adminNord: { id: number; token: string; password: string }
let adminSud: { token: string }

beforeAll(async () => {
  await createOrganisation()
  const nord = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  adminNord = { id: nord.id, password: nord.password, token: (await sessionFor(nord.id)).accessToken }
  const sud = await createUser({ admin: true, postes: [currentPost(3, 3)] })
  adminSud = { token: (await sessionFor(sud.id)).accessToken }
})

const create = (body: Partial<z.input<typeof serviceAccountCreateSchema>>) =>
  okBody(
    api(adminNord.token).rest.bd.compteService.$post({
      json: { nom: 'Synchronisation', structure: { id: 2 }, admin: false, scopes: ['api', 'logs'], ...body },
    }),
    201,
  )

const edit = (id: number, body: Record<string, unknown>, token = adminNord.token) =>
  call(`/rest/bd/compteService/${id}`, { method: 'PATCH', token, body: JSON.stringify(body) })

const secretToken = (account: ServiceAccountCreated) =>
  tokenCall({ grant_type: 'client_credentials' }, basic(account.clientId, account.clientSecret ?? ''))

const accessToken = async (account: ServiceAccountCreated) => serviceAccessToken(await secretToken(account))

const entries = (clientId: string) =>
  db()
    .selectFrom('log')
    .select('commentaire')
    .where('nom_log', '=', 'COMPTE_SERVICE_MODIFICATION')
    .where('commentaire', 'like', `%(${clientId})%`)
    .execute()

describe('editing a service account', () => {
  it('switched off, its token and its calls are refused at once; switched on, it works again', async () => {
    const account = await create({})
    const token = await accessToken(account)
    expect((await call('/rest/bd/structure/2', { token })).status).toBe(200)
    const off = await api(adminNord.token).rest.bd.compteService[':id'].$patch({
      param: { id: account.id },
      json: { actif: false },
    })
    expect(off.status).toBe(200)
    expect((await okBody(off)).actif).toBe(false)
    expect((await call('/rest/bd/structure/2', { token })).status).toBe(401)
    expect((await secretToken(account)).status).toBe(401)
    expect((await edit(account.id, { actif: true })).status).toBe(200)
    expect((await call('/rest/bd/structure/2', { token: await accessToken(account) })).status).toBe(200)
    expect((await entries(account.clientId)).map((entry) => entry.commentaire)).toEqual([
      `Synchronisation (${account.clientId}) : désactivé`,
      `Synchronisation (${account.clientId}) : réactivé`,
    ])
  })

  it('narrowed to the history, its next token reads the history only', async () => {
    const account = await create({})
    const answer = await edit(account.id, { scopes: ['logs'], nom: 'Archivage', description: 'Lit l’historique' })
    expect(answer.status).toBe(200)
    expect(await answer.json()).toMatchObject({
      nom: 'Archivage',
      description: 'Lit l’historique',
      scopes: ['logs'],
      clientId: account.clientId,
    })
    const token = await accessToken(account)
    await expectError(await call('/rest/bd/structure/2', { token }), 403, 'SERVICE_ACCOUNT_SCOPE')
    expect((await call('/rest/bd/logs/?page=1', { token })).status).toBe(200)
    expect((await entries(account.clientId))[0]?.commentaire).toBe(
      `Synchronisation (${account.clientId}) : nom → Archivage, description, portées api logs → logs`,
    )
  })

  it('replaces a keys-only account’s keys under the same client id: the former key is refused, the new one signs in', async () => {
    const first = await generateKeyPair('ES256', { extractable: true })
    const second = await generateKeyPair('ES256', { extractable: true })
    const account = await create({
      jwks: jwksSchema.parse({ keys: [{ ...(await exportJWK(first.publicKey)), kid: 'k1' }] }),
    })
    const signIn = async (key: CryptoKey, kid: string) => {
      const assertion = await new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid })
        .setIssuer(account.clientId)
        .setSubject(account.clientId)
        .setAudience(`${ORIGIN}/portail-backend/oidc/token`)
        .setExpirationTime(Math.floor(Date.now() / 1000) + 60)
        .sign(key)
      return (
        await tokenCall({
          grant_type: 'client_credentials',
          client_assertion_type: JWT_BEARER,
          client_assertion: assertion,
        })
      ).status
    }
    expect(await signIn(first.privateKey, 'k1')).toBe(200)
    const replaced = await edit(account.id, { jwks: { keys: [{ ...(await exportJWK(second.publicKey)), kid: 'k2' }] } })
    expect(replaced.status).toBe(200)
    expect(await replaced.json()).toMatchObject({ clientId: account.clientId, cles: 1, secret: false })
    expect(await signIn(first.privateKey, 'k1')).toBe(401)
    expect(await signIn(second.privateKey, 'k2')).toBe(200)
    expect((await entries(account.clientId))[0]?.commentaire).toBe(
      `Synchronisation (${account.clientId}) : clés remplacées (1)`,
    )
  })

  it('gives a secret account no keys: 409 SERVICE_ACCOUNT_SECRET_ONLY, nothing changed', async () => {
    const account = await create({})
    const { publicKey } = await generateKeyPair('ES256', { extractable: true })
    await expectError(
      await edit(account.id, { jwks: { keys: [await exportJWK(publicKey)] } }),
      409,
      'SERVICE_ACCOUNT_SECRET_ONLY',
    )
    expect((await secretToken(account)).status).toBe(200)
    expect(await entries(account.clientId)).toEqual([])
  })

  it('asks for a proof to widen an administrator account or switch it on, not to narrow it, switch it off or rename it', async () => {
    const account = await create({ admin: true, scopes: ['api'], preuve: { motDePasse: adminNord.password } })
    const field = async (body: Record<string, unknown>) =>
      ((await expectError(await edit(account.id, body), 400, 'VALIDATION_FAILED')).attributs as { field: string }[])[0]
        ?.field
    expect(await field({ scopes: ['api', 'scim'] })).toBe('preuve')
    expect((await edit(account.id, { actif: false, nom: 'Synchronisation RH' })).status).toBe(200)
    expect(await field({ actif: true })).toBe('preuve')
    const proven = await edit(account.id, {
      actif: true,
      scopes: ['api', 'scim'],
      preuve: { motDePasse: adminNord.password },
    })
    expect(proven.status).toBe(200)
    expect(await proven.json()).toMatchObject({ actif: true, scopes: ['api', 'scim'], nom: 'Synchronisation RH' })
    // Taking a scope away narrows it: no proof; swapping one for another adds one: a proof.
    expect(await field({ scopes: ['scim', 'logs'] })).toBe('preuve')
    const narrowed = await edit(account.id, { scopes: ['scim'] })
    expect(narrowed.status).toBe(200)
    expect(await narrowed.json()).toMatchObject({ scopes: ['scim'] })
  })

  it('reaches no account outside the caller’s sub-tree: 404, nothing changed, no entry', async () => {
    const account = await create({})
    await expectError(await edit(account.id, { actif: false }, adminSud.token), 404, 'NOT_FOUND')
    expect((await secretToken(account)).status).toBe(200)
    expect(await entries(account.clientId)).toEqual([])
  })

  it('refuses a body that changes nothing, and a name too short: 400 on the field', async () => {
    const account = await create({})
    await expectError(await edit(account.id, {}), 400, 'VALIDATION_FAILED')
    const short = await expectError(await edit(account.id, { nom: 'ab' }), 400, 'VALIDATION_FAILED')
    expect((short.attributs as { field: string }[])[0]?.field).toBe('nom')
  })
})
