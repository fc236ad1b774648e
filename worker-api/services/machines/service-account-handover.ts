import { type SqlBool, sql } from 'kysely'
import type { ServiceHandover } from '../../contract/service-accounts'
import { namedBatch } from '../../db/client'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { invalidField, notFound } from '../../lib/errors'
import { administersPath } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { type Caller, liveAdmin, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { accountInScope, accountsQuery, checkedAdmin, proofRequired } from './service-accounts'

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
