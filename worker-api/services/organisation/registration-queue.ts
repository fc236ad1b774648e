import { type Expression, type SqlBool, sql } from 'kysely'
import type { OfferedFonction, PendingUser, RegistrationListQuery } from '../../contract/organisation/registration'
import type { DB } from '../../db/client'
import type { RegistrationState } from '../../db/schema'
import { notFound } from '../../lib/errors'
import { containsEveryWord, onePage, sortOf } from '../../lib/query'
import { pathInScope, registrationInScope, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { toUser } from '../core/users'
import { carrierSettings } from './registration'

/**
 * The authorisation queue (spec §4): the pending registrations of an administrator's scope, what its
 * "Valider" offers, and the registration an authorisation acts on.
 */

/** The pending registrations of the viewer's queue (lib/scope.ts) with their company, as the queue reads them. */
export function pendingInScope(db: DB, viewer: Viewer) {
  return db
    .selectFrom('utilisateur as u')
    .leftJoin('structure as company', 'company.id', 'u.registration_structure_id')
    .where('u.registration_state', '=', 'PENDING')
    .where('u.supprime', '=', 0)
    .where(registrationInScope(db, viewer, 'u'))
}

export const pendingColumns = [
  'u.id',
  'u.login',
  'u.nom',
  'u.prenom',
  'u.mail',
  'u.actif',
  'u.supprime',
  'u.admin',
  'u.token_register_expires_at',
  'u.registration_state',
  'u.registration_structure_id',
  'u.registration_structure_nom',
  'u.domain',
  'u.langue',
  'u.rattachement_id',
  'company.nom as company_nom',
] as const

export type PendingRow = {
  id: number
  login: string
  nom: string
  prenom: string
  mail: string
  actif: number
  supprime: number
  admin: number
  token_register_expires_at: string | null
  registration_state: RegistrationState
  registration_structure_id: number | null
  registration_structure_nom: string | null
  rattachement_id: number | null
  company_nom: string | null
}

/** A row of the queue as the API answers it: a user (spec §3, `tokenRegister`) and their company. */
export function toPendingUser(row: PendingRow): PendingUser {
  const user = toUser(row, [], true)
  const structure =
    row.registration_structure_id !== null && row.company_nom !== null
      ? { id: row.registration_structure_id, nom: row.company_nom }
      : row.registration_structure_nom !== null
        ? { id: null, nom: row.registration_structure_nom }
        : null
  return { ...user, structure }
}

/**
 * GET rest/bd/authorize/get/user/all: the pending registrations of the caller's scope, those with a
 * link first, soonest expiry first (spec §4), or sorted by mail, nom or prenom; one page with `page`.
 */
export async function listRegistrations(
  ctx: Ctx,
  caller: Caller,
  query: RegistrationListQuery,
): Promise<{ items: PendingUser[]; total: number }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const matches = containsEveryWord(['u.recherche', 'u.mail'], query.q)
  const filtered = pendingInScope(db, viewer).$if(matches !== null, (q) => q.where(matches as Expression<SqlBool>))
  const { key, direction } = sortOf(query.tri, 'expiry')
  let sorted = filtered.select([...pendingColumns])
  if (key === 'expiry') {
    // Those with a link first either way (spec §4), then by their link's expiry.
    sorted = sorted.orderBy(sql`u.token_register_expires_at is null`).orderBy('u.token_register_expires_at', direction)
  } else {
    sorted = sorted.orderBy(sql`${sql.ref(`u.${key}`)} collate nocase`, direction)
  }
  const { rows, counted } = await adminWith(ctx, caller, {
    rows: onePage(sorted.orderBy('u.id', direction), query),
    counted: filtered.select((eb) => eb.fn.countAll<number>().as('n')),
  })
  return { items: (rows as PendingRow[]).map(toPendingUser), total: counted[0]?.n ?? 0 }
}

/**
 * What the queue's "Valider" offers (GET rest/bd/authorize/user/{id}/fonctions): the functions of a
 * pending registration's company, in the caller's scope, as the authorisation would take them.
 */
export async function registrationFonctions(ctx: Ctx, caller: Caller, id: number): Promise<OfferedFonction[]> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    target: [target],
    offered,
  } = await adminWith(ctx, caller, {
    target: pendingInScope(db, viewer).select('u.id').where('u.id', '=', id),
    offered: offeredFonctions(db, viewer, id, carrierSettings(ctx).typeId),
  })
  if (!target) throw notFound('Unknown registration')
  return offered.map(({ id, libelle }) => ({ id, libelle }))
}

/**
 * The registration an administrator acts on, in their queue, still pending, with the structure holding
 * the name it typed if any; `read` reads it again (at the end of the batch that changes it).
 */
export async function pendingTarget(ctx: Ctx, caller: Caller, id: number) {
  const db = ctx.db
  const read = pendingInScope(db, viewerOf(caller))
    .select([...pendingColumns])
    .where('u.id', '=', id)
  const named = db
    .selectFrom('utilisateur as typed')
    .innerJoin('structure as holder', (join) =>
      join.on(sql<SqlBool>`holder.nom = typed.registration_structure_nom collate nocase`),
    )
    .select(['holder.id', 'holder.nom', 'holder.type_id'])
    .where('typed.id', '=', id)
  const {
    actor,
    target: [target],
    holder: [holder],
    offered,
  } = await adminWith(ctx, caller, {
    target: read,
    holder: named,
    offered: offeredFonctions(db, viewerOf(caller), id, carrierSettings(ctx).typeId),
  })
  if (!target) throw notFound('Unknown registration')
  return { db, actor, target: target as PendingRow & { domain: string; langue: string }, holder, read, offered }
}

/** The company a registration belongs to as a statement runs (null while it waits for the one it typed). */
export const companyOf = (id: number) =>
  sql<number | null>`(select registration_structure_id from utilisateur where id = ${id})`

/**
 * The functions an authorisation may give the carrier a post of: those of their company — for a
 * company it typed, of the carrier company of that name if one exists by then, else the names of the
 * carrier type's template, which the company is created with.
 */
function offeredFonctions(db: DB, viewer: Viewer, id: number, typeId: number | null) {
  const typedHolder = sql<number | null>`(select holder.id from structure holder
    where holder.type_id = ${typeId ?? 0}
    and holder.nom = (select registration_structure_nom from utilisateur where id = ${id}) collate nocase)`
  const company = sql<number | null>`coalesce(${companyOf(id)}, ${typedHolder})`
  return (
    db
      .selectFrom('fonction as offered')
      .innerJoin('structure as offered_company', 'offered_company.id', 'offered.structure_id')
      .select([sql<number | null>`offered.id`.as('id'), 'offered.libelle', sql<number>`offered.id`.as('position')])
      .where(sql<SqlBool>`offered.structure_id = ${company}`)
      // A company outside the caller's scope (one of that name elsewhere in the tree) offers nothing.
      .where(pathInScope(db, viewer, sql.ref<string>('offered_company.path')))
      .unionAll(
        db
          .selectFrom('modele_fonction as m')
          .select([sql<number | null>`null`.as('id'), 'm.libelle', 'm.position'])
          .where('m.type_id', '=', typeId ?? 0)
          .where(sql<SqlBool>`${company} is null`),
      )
      // A company's functions in the order they were made (a template's copy keeps its order).
      .orderBy('position')
  )
}
