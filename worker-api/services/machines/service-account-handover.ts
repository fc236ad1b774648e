import { type SqlBool, sql } from 'kysely'
import type { ServiceHandover, ServiceHeir } from '../../contract/machines/service-accounts'
import { namedBatch } from '../../db/client'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { invalidField, notFound } from '../../lib/errors'
import { containsEveryWord, type PageQuery, pageWindow, wholeList } from '../../lib/query'
import { administersPath, pathInScope, userVisible } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, liveAdmin, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { accountInScope, checkedAdmin, proofRequired } from './service-account-writes'
import { accountsQuery } from './service-accounts'

/**
 * PUT rest/bd/compteService/{id}/responsable: an administrator of the account's structure hands it to another
 * administrator of that structure, or takes it over — the way back for an account whose administrator was demoted,
 * left or was deleted, and the way to pass it on before they go. The account acts for the new administrator from then
 * on (lib/scope.ts `administers`), and its secret is renewed at once, the former ones stopped: whoever saw the old one
 * holds nothing now. One batch with its history entry, each rule asked again inside the write.
 */
export async function handOverServiceAccount(
  ctx: Ctx,
  caller: Caller,
  id: number,
  input: ServiceHandover,
): Promise<{ clientSecret?: string }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const to = input.utilisateur.id
  // Whether the user `to` administers the account's structure (`s` of the account's query).
  const administers = administersPath(String(to), 's.path', viewer.today)
  const { actor, rows, person, proof } = await checkedAdmin(ctx, caller, input.preuve, {
    rows: accountsQuery(db, viewer).where('cs.id', '=', id),
    person: db
      .selectFrom('utilisateur as u')
      .select(['u.id', 'u.nom', 'u.prenom'])
      .where('u.id', '=', to)
      .where(sql<SqlBool>`exists (select 1 from compte_service cs join structure s on s.id = cs.structure_id
        where cs.id = ${id} and ${administers})`),
  })
  const account = rows[0]
  if (!account) throw notFound('Unknown service account')
  if (account.admin === 1 && !input.preuve) throw proofRequired()
  const chosen = person[0]
  if (!chosen) {
    throw invalidField(
      'utilisateur',
      'This user does not administer the account’s structure',
      'serviceAccounts.handover.notAdministrator',
    )
  }
  const secret = account.has_secret === 1 ? randomToken() : null
  const guard = accountInScope(db, viewer, id).where(liveAdmin(ctx, caller)).where(administers)
  const { handed } = await namedBatch(ctx.d1, {
    proof,
    log: adminLogWhen(
      db,
      actor,
      'COMPTE_SERVICE_RESPONSABLE',
      `${account.nom} (${account.client_id}) : ${[chosen.prenom, chosen.nom].filter(Boolean).join(' ')}${
        secret === null ? '' : ', secret renouvelé'
      }`,
      ctx.request.userAgent,
      guard,
    ),
    handed: db
      .updateTable('compte_service')
      .set({
        cree_par: to,
        ...(secret === null
          ? {}
          : { secret_hash: await sha256Hex(secret), ancien_secret_hash: null, ancien_secret_expire: null }),
      })
      .where('id', 'in', guard)
      .returning('id'),
  })
  // The account left the caller's scope, or the chosen administrator their rights, between the check and the write.
  if ((handed?.results.length ?? 0) === 0) throw notFound('Unknown service account')
  return secret === null ? {} : { clientSecret: secret }
}

/**
 * GET rest/bd/compteService/{id}/responsables: whom the caller may hand the account to — the administrators, active and
 * not deleted, whose current post's sub-tree holds its structure, among the users the caller sees, the caller and the
 * one it acts for aside; by name, paged, searched by name and mail. Read from the structure up (its ancestors' current
 * posts), a few index lookups whatever the organisation's size. 404 for an account outside the caller's scope.
 */
export async function listServiceHeirs(
  ctx: Ctx,
  caller: Caller,
  id: number,
  query: PageQuery & { q?: string | undefined },
): Promise<{ items: ServiceHeir[]; total: number | null }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const candidates = db
    .withRecursive('up(id, parent_id)', (q) =>
      q
        .selectFrom('compte_service as cs')
        .innerJoin('structure as s', 's.id', 'cs.structure_id')
        .select(['s.id', 's.parent_id'])
        .where('cs.id', '=', id)
        .where('cs.supprime', '=', 0)
        .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
        .unionAll(
          q
            .selectFrom('structure as parent')
            .innerJoin('up', 'up.parent_id', 'parent.id')
            .select(['parent.id', 'parent.parent_id']),
        ),
    )
    .selectFrom('utilisateur as heir')
    .where(
      sql<SqlBool>`exists (select 1 from up join poste heir_post on heir_post.structure_id = up.id
        where heir_post.utilisateur_id = heir.id and heir_post.date_debut <= ${viewer.today}
          and heir_post.date_fin >= ${viewer.today})`,
    )
    .where('heir.admin', '=', 1)
    .where('heir.actif', '=', 1)
    .where('heir.supprime', '=', 0)
    .where('heir.id', '<>', viewer.id)
    .where(sql<SqlBool>`heir.id is not (select cree_par from compte_service where id = ${id})`)
    .where(userVisible(db, viewer, 'heir'))
  const search = containsEveryWord(['heir.recherche', 'heir.mail'], query.q)
  const matching = search === null ? candidates : candidates.where(search)
  // Without `page`, the whole list, refused past its bound (LIST_TOO_LARGE) as the other lists are.
  const { size, offset } = pageWindow(query)
  const { account, rows, total } = await adminWith(ctx, caller, {
    account: accountInScope(db, viewer, id),
    rows: matching
      .select(['heir.id', 'heir.nom', 'heir.prenom'])
      .orderBy('heir.nom')
      .orderBy('heir.prenom')
      .orderBy('heir.id')
      .limit(size)
      .offset(offset),
    total: query.page === undefined ? null : matching.select((eb) => eb.fn.countAll<number>().as('total')),
  })
  if (account.length === 0) throw notFound('Unknown service account')
  const items = rows.map(({ id, nom, prenom }) => ({ id, nom, prenom }))
  return { items: query.page === undefined ? wholeList(items) : items, total: total?.[0]?.total ?? null }
}
