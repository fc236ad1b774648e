import { importJWK } from 'jose'
import { type SqlBool, sql } from 'kysely'
import {
  PREVIOUS_SECRET_HOURS,
  type ServiceAccount,
  type ServiceAccountCreate,
  type ServiceAccountCreated,
  type ServiceAccountUpdate,
  type ServiceSecretInput,
} from '../../contract/machines/service-accounts'
import type { FactorProof } from '../../contract/sign-in/mfa'
import { type Compilable, type DB, insertWhen, namedBatch } from '../../db/client'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { BusinessError, invalidField, notFound } from '../../lib/errors'
import { pathInScope, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { type ActorAnd, adminWith, type Caller, liveAdmin, type Reads, requireAdmin, viewerOf } from '../core/actor'
import { clearAttempts } from '../core/attempt-counter'
import { adminLogWhen } from '../core/audit'
import { inScopeOrFail, structureInScopeQuery } from '../organisation/structures'
import { proven, spendProof } from '../sign-in/factors'
import { accountsQuery, toAccount } from './service-accounts'

/**
 * Service accounts' writes (migration 0026): each in one batch with its audit entry, the caller's scope checked again
 * inside it.
 */

/** A new account's client id: recognisable in a log line, unguessable all the same. */
const newClientId = () => `cs-${randomToken(18)}`

/** The public keys of a creation, each one a key `jose` can import, as stored (a JWK Set, JSON). */
async function checkedJwks(jwks: ServiceAccountCreate['jwks']): Promise<string | null> {
  if (!jwks) return null
  for (const [index, key] of jwks.keys.entries()) {
    // An EC or OKP key names its curve; the algorithm follows from it, or from an RSA key's `alg`.
    const alg =
      key.alg ?? (key.kty === 'RSA' ? 'RS256' : key.kty === 'OKP' ? 'EdDSA' : key.crv === 'P-384' ? 'ES384' : 'ES256')
    try {
      await importJWK(key, alg)
    } catch {
      throw invalidField(`jwks.keys.${index}`, 'This public key cannot be read', 'validation.publicKey')
    }
  }
  return JSON.stringify(jwks)
}

/**
 * The checked administrator with the reads of a write on an account, in one round trip; with a proof
 * (the caller's password or a current code, counted as a wrong old password is), the proof checked too
 * and the statements that spend it, for the write's batch. An administrator account's credentials ask
 * for one: the proof of a person, which a stolen session alone does not give.
 */
export async function checkedAdmin<R extends Reads>(
  ctx: Ctx,
  caller: Caller,
  proof: FactorProof | undefined,
  reads: R,
): Promise<ActorAnd<R> & { proof: Compilable[] }> {
  if (!proof) return { ...(await adminWith(ctx, caller, reads)), proof: [] }
  const { db, actor, extra, totp, step } = await proven(ctx, caller, proof, reads)
  requireAdmin(actor)
  // A code proves once: its step spent in the write's batch; the count of wrong proofs cleared.
  return {
    ...extra,
    actor,
    proof: [spendProof(db, actor.id, totp, step), clearAttempts(db, 'password-change', String(actor.id))],
  }
}

export const proofRequired = () =>
  invalidField('preuve', 'An administrator account asks for your password or a current code', 'validation.required')

/** POST rest/bd/compteService: an account on a structure of the caller's scope; its secret shown this once. */
export async function createServiceAccount(
  ctx: Ctx,
  caller: Caller,
  input: ServiceAccountCreate,
): Promise<ServiceAccountCreated> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const jwks = await checkedJwks(input.jwks)
  if (input.admin && !input.preuve) throw proofRequired()
  const { actor, structure, proof } = await checkedAdmin(ctx, caller, input.preuve, {
    structure: structureInScopeQuery(db, viewer, input.structure.id, false),
  })
  const target = inScopeOrFail(structure[0])
  const clientId = newClientId()
  const secret = jwks === null ? randomToken() : null
  const inScope = db
    .selectFrom('structure as s')
    .select('s.id')
    .where('s.id', '=', target.id)
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
    .where(liveAdmin(ctx, caller))
  const created = sql<SqlBool>`exists (select 1 from compte_service where client_id = ${clientId})`
  const scopes = [...input.scopes].sort().join(' ')
  const { account } = await namedBatch(ctx.d1, {
    proof,
    account: insertWhen(
      db,
      'compte_service',
      {
        nom: input.nom,
        description: input.description || null,
        structure_id: target.id,
        admin: input.admin ? 1 : 0,
        scopes,
        client_id: clientId,
        secret_hash: secret === null ? null : await sha256Hex(secret),
        ancien_secret_hash: null,
        ancien_secret_expire: null,
        jwks,
        domain: actor.domain,
        cree_par: actor.id,
      },
      inScope,
    ).returning('id'),
    log: adminLogWhen(
      db,
      actor,
      'COMPTE_SERVICE_CREATION',
      `${input.nom} (${clientId}) : ${target.nom}, ${input.admin ? 'administrateur' : 'lecture'}, ${scopes}`,
      ctx.request.userAgent,
      db.selectNoFrom(sql.lit(1).as('created')).where(created),
    ),
  })
  const id = account?.results[0]?.id
  // The structure left the caller's scope, or the caller their rights, between the check and the write.
  if (id === undefined) throw new BusinessError('FORBIDDEN', 403, 'This structure is outside your scope')
  return secret === null ? { id, clientId } : { id, clientId, clientSecret: secret }
}

/** The account `id` while it is in the viewer's scope and not deleted, as a write's condition. */
export const accountInScope = (db: DB, viewer: Viewer, id: number) =>
  db
    .selectFrom('compte_service as cs')
    .innerJoin('structure as s', 's.id', 'cs.structure_id')
    .select('cs.id')
    .where('cs.id', '=', id)
    .where('cs.supprime', '=', 0)
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))

/**
 * DELETE rest/bd/compteService/{id}: the account stops at its next call (its tokens included) and its
 * secrets and keys are forgotten; it stays in the history under its name.
 */
export async function deleteServiceAccount(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, rows } = await adminWith(ctx, caller, { rows: accountsQuery(db, viewer).where('cs.id', '=', id) })
  const row = rows[0]
  if (!row) throw notFound('Unknown service account')
  const { deleted } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'COMPTE_SERVICE_SUPPRESSION',
      `${row.nom} (${row.client_id})`,
      ctx.request.userAgent,
      accountInScope(db, viewer, id).where(liveAdmin(ctx, caller)),
    ),
    deleted: db
      .updateTable('compte_service')
      .set({
        supprime: 1,
        actif: 0,
        secret_hash: null,
        ancien_secret_hash: null,
        ancien_secret_expire: null,
        jwks: null,
      })
      .where('id', 'in', accountInScope(db, viewer, id).where(liveAdmin(ctx, caller)))
      .returning('id'),
  })
  if ((deleted?.results.length ?? 0) === 0) throw notFound('Unknown service account')
}

/**
 * POST rest/bd/compteService/{id}/secret: a new secret, shown this once; the former one keeps working
 * `PREVIOUS_SECRET_HOURS` hours (the time to deploy the new one), or stops at once (`revoquerAncien`).
 * An administrator account's secret asks for the caller's fresh proof, as its creation does.
 */
export async function rotateServiceSecret(
  ctx: Ctx,
  caller: Caller,
  id: number,
  input: ServiceSecretInput,
): Promise<{ clientSecret: string; ancienSecretExpire: string | null }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, rows, proof } = await checkedAdmin(ctx, caller, input.preuve, {
    rows: accountsQuery(db, viewer).where('cs.id', '=', id),
  })
  const known = rows[0]
  if (!known) throw notFound('Unknown service account')
  if (known.admin === 1 && !input.preuve) throw proofRequired()
  // A secret beside an account's keys would make the weaker of the two its proof: it changes the method, when asked.
  const switches = known.jwks !== null
  if (switches && input.methode !== 'client_secret') {
    throw new BusinessError(
      'SERVICE_ACCOUNT_KEYS_ONLY',
      409,
      'This account signs in with its keys (methode: client_secret to change it)',
    )
  }
  const secret = randomToken()
  const keepsPrevious = input.revoquerAncien !== true && known.has_secret === 1
  const until = keepsPrevious ? new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3_600_000).toISOString() : null
  const inScope = accountInScope(db, viewer, id).where(liveAdmin(ctx, caller))
  // Keys registered meanwhile are not overwritten by a renewal that did not ask for it.
  const guard = switches ? inScope : inScope.where('cs.jwks', 'is', null)
  const change = [
    known.has_secret === 1 && !keepsPrevious ? 'ancien secret révoqué' : '',
    switches ? 'clés retirées, authentification par secret' : '',
  ].filter(Boolean)
  const { rotated } = await namedBatch(ctx.d1, {
    proof,
    log: adminLogWhen(
      db,
      actor,
      'COMPTE_SERVICE_SECRET',
      `${known.nom} (${known.client_id})${change.length > 0 ? ` : ${change.join(', ')}` : ''}`,
      ctx.request.userAgent,
      guard,
    ),
    rotated: db
      .updateTable('compte_service')
      .set({
        secret_hash: await sha256Hex(secret),
        ancien_secret_hash: keepsPrevious ? sql<string | null>`secret_hash` : null,
        ancien_secret_expire: until,
        // The account signs in by its secret alone (one without keys has none to forget: the guard).
        jwks: null,
      })
      .where('id', 'in', guard)
      .returning('id'),
  })
  if ((rotated?.results.length ?? 0) === 0) throw notFound('Unknown service account')
  return { clientSecret: secret, ancienSecretExpire: until }
}

/**
 * PATCH rest/bd/compteService/{id}: its name, description, scopes, keys (a keys-only account's, replaced under the same
 * client id) or whether it is on, in one batch with its history entry, the account's scope checked again inside it (and,
 * for keys, that it still signs in with keys). Switched off, it stops at its next call; its scopes narrowed, from its
 * next token. What widens an administrator account asks for the caller's proof, as its creation does.
 */
export async function updateServiceAccount(
  ctx: Ctx,
  caller: Caller,
  id: number,
  input: ServiceAccountUpdate,
): Promise<ServiceAccount> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const jwks = input.jwks ? await checkedJwks(input.jwks) : null
  const { actor, rows, proof } = await checkedAdmin(ctx, caller, input.preuve, {
    rows: accountsQuery(db, viewer).where('cs.id', '=', id),
  })
  const known = rows[0]
  if (!known) throw notFound('Unknown service account')
  const scopes = input.scopes ? [...input.scopes].sort().join(' ') : undefined
  // A scope added widens it; one taken away, or the same ones, do not.
  const held = known.scopes.split(' ')
  const widens =
    jwks !== null || (input.scopes ?? []).some((scope) => !held.includes(scope)) || (input.actif && known.actif !== 1)
  if (known.admin === 1 && widens && !input.preuve) throw proofRequired()
  // Keys beside a secret would make the weaker of the two its proof: a secret account keeps its method.
  if (jwks !== null && known.jwks === null) {
    throw new BusinessError(
      'SERVICE_ACCOUNT_SECRET_ONLY',
      409,
      'This account signs in with its secret: its keys are registered at its creation',
    )
  }
  const set = {
    ...(input.nom === undefined ? {} : { nom: input.nom }),
    ...(input.description === undefined ? {} : { description: input.description || null }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(input.actif === undefined ? {} : { actif: input.actif ? 1 : 0 }),
    ...(jwks === null ? {} : { jwks }),
  }
  const change = [
    input.nom !== undefined && input.nom !== known.nom ? `nom → ${input.nom}` : '',
    input.description !== undefined ? 'description' : '',
    scopes !== undefined && scopes !== known.scopes ? `portées ${known.scopes} → ${scopes}` : '',
    input.actif === false && known.actif === 1 ? 'désactivé' : '',
    input.actif === true && known.actif !== 1 ? 'réactivé' : '',
    input.jwks ? `clés remplacées (${input.jwks.keys.length})` : '',
  ].filter(Boolean)
  const inScope = accountInScope(db, viewer, id).where(liveAdmin(ctx, caller))
  // Keys replace keys only: an account turned to a secret meanwhile keeps it.
  const guard = jwks === null ? inScope : inScope.where('cs.jwks', 'is not', null)
  const { updated, account } = await namedBatch(ctx.d1, {
    proof,
    log: adminLogWhen(
      db,
      actor,
      'COMPTE_SERVICE_MODIFICATION',
      `${known.nom} (${known.client_id})${change.length > 0 ? ` : ${change.join(', ')}` : ''}`,
      ctx.request.userAgent,
      guard,
    ),
    updated: db.updateTable('compte_service').set(set).where('id', 'in', guard).returning('id'),
    account: accountsQuery(db, viewer).where('cs.id', '=', id),
  })
  const row = account?.results[0]
  if ((updated?.results.length ?? 0) === 0 || !row) throw notFound('Unknown service account')
  return toAccount(row)
}
