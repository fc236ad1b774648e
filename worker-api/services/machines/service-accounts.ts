import { type SqlBool, sql } from 'kysely'
import { nowIso } from '../../contract/dates'
import type { ServiceAccount, ServiceAccountListQuery, ServiceScope } from '../../contract/machines/service-accounts'
import type { DB } from '../../db/client'
import { notFound } from '../../lib/errors'
import { containsEveryWord, onePage } from '../../lib/query'
import { administersPath, pathInScope, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'

/**
 * Service accounts (migration 0026): what the administrators of a sub-tree see of them, the accounts of the structures
 * in their scope. Their writes are service-account-writes.ts.
 */

/** The accounts of the viewer's scope, not deleted, under `cs` with their structure `s`. */
export function accountsQuery(db: DB, viewer: Viewer) {
  return db
    .selectFrom('compte_service as cs')
    .innerJoin('structure as s', 's.id', 'cs.structure_id')
    .leftJoin('compte_service_usage as usage', 'usage.compte_service_id', 'cs.id')
    .leftJoin('utilisateur as responsable', 'responsable.id', 'cs.cree_par')
    .select([
      'cs.cree_par',
      'responsable.nom as responsable_nom',
      'responsable.prenom as responsable_prenom',
      'cs.id',
      'cs.nom',
      'cs.description',
      'cs.structure_id',
      's.nom as structure_nom',
      'cs.admin',
      'cs.actif',
      'cs.scopes',
      'cs.client_id',
      'cs.jwks',
      'cs.created_at',
      'usage.derniere_utilisation',
      'usage.jour',
      'usage.appels_jour',
      'cs.ancien_secret_expire',
    ])
    .select(sql<number>`cs.secret_hash is not null`.as('has_secret'))
    .select(sql<number>`${administersPath('cs.cree_par', 's.path', viewer.today)}`.as('responsable_admin'))
    .where('cs.supprime', '=', 0)
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
}

type AccountRow = Awaited<ReturnType<ReturnType<typeof accountsQuery>['execute']>>[number]

export function toAccount(row: AccountRow, now = nowIso()): ServiceAccount {
  const previous = row.ancien_secret_expire !== null && row.ancien_secret_expire > now ? row.ancien_secret_expire : null
  return {
    id: row.id,
    nom: row.nom,
    description: row.description,
    structure: { id: row.structure_id ?? 0, nom: row.structure_nom },
    admin: row.admin === 1,
    actif: row.actif === 1,
    scopes: row.scopes.split(' ').filter(Boolean) as ServiceScope[],
    clientId: row.client_id,
    secret: row.has_secret === 1,
    cles: row.jwks === null ? 0 : ((JSON.parse(row.jwks) as { keys?: unknown[] }).keys?.length ?? 0),
    ancienSecretExpire: previous,
    creation: row.created_at,
    derniereUtilisation: row.derniere_utilisation,
    appelsJour: row.jour === now.slice(0, 10) ? (row.appels_jour ?? 0) : 0,
    responsable:
      row.cree_par === null
        ? null
        : { id: row.cree_par, nom: row.responsable_nom ?? '', prenom: row.responsable_prenom ?? '' },
    suspendu: row.responsable_admin !== 1,
  }
}

/**
 * GET rest/bd/compteService: the accounts of the caller's scope by name; with `page`, one page and the total. The
 * filters narrow that scope, never widen it: an administrator named as `responsable` shows only their accounts the
 * caller sees anyway.
 */
export async function listServiceAccounts(
  ctx: Ctx,
  caller: Caller,
  query: ServiceAccountListQuery,
): Promise<{ items: ServiceAccount[]; total: number | null }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const search = containsEveryWord(['cs.recherche', 'cs.client_id', 's.recherche'], query.q)
  let matching = search === null ? accountsQuery(db, viewer) : accountsQuery(db, viewer).where(search)
  if (query.responsable !== undefined) matching = matching.where('cs.cree_par', '=', query.responsable)
  if (query.suspendu !== undefined) {
    const working = administersPath('cs.cree_par', 's.path', viewer.today)
    matching = matching.where(query.suspendu === 'true' ? sql<SqlBool>`not ${working}` : working)
  }
  if (query.sansPoste !== undefined) {
    const without = administersPath('cs.cree_par', 's.path', viewer.today, query.sansPoste)
    matching = matching
      .where(administersPath('cs.cree_par', 's.path', viewer.today))
      .where(sql<SqlBool>`not ${without}`)
  }
  const { rows, total } = await adminWith(ctx, caller, {
    rows: onePage(matching.orderBy('cs.nom').orderBy('cs.id'), query),
    total:
      query.page === undefined ? null : matching.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')),
  })
  return { items: rows.map((row) => toAccount(row)), total: total?.[0]?.total ?? null }
}

/** GET rest/bd/compteService/{id}: one account of the caller's scope. */
export async function getServiceAccount(ctx: Ctx, caller: Caller, id: number): Promise<ServiceAccount> {
  const { rows } = await adminWith(ctx, caller, {
    rows: accountsQuery(ctx.db, viewerOf(caller)).where('cs.id', '=', id),
  })
  const row = rows[0]
  if (!row) throw notFound('Unknown service account')
  return toAccount(row)
}
