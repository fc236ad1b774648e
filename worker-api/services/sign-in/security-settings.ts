import { type SqlBool, sql } from 'kysely'
import type { SecuritySettings } from '../../contract/mfa'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden } from '../../lib/errors'
import { hasSecondFactor, wholeTreeInScope } from '../../lib/scope'
import type { Caller, Ctx } from '../../lib/types'
import { adminWith, liveAdmin, rootAdminWith, viewerOf } from '../core/actor'
import { adminLog } from '../core/audit'

const settingsQuery = (db: DB) =>
  db.selectFrom('parametre_securite').select('mfa_requis_administrateurs').where('id', '=', 1)

/** GET rest/bd/parametres/securite: for administrators. */
export async function securitySettings(ctx: Ctx, caller: Caller): Promise<SecuritySettings> {
  const { rows } = await adminWith(ctx, caller, { rows: settingsQuery(ctx.db) })
  return { mfaRequisAdministrateurs: rows[0]?.mfa_requis_administrateurs === 1 }
}

/**
 * PUT rest/bd/parametres/securite: a root administrator's. Turning the requirement on needs the caller
 * to have a second factor themself (else they would lock themself out of the administration); the
 * write repeats both conditions, so that a caller losing either meanwhile changes nothing.
 */
export async function updateSecuritySettings(
  ctx: Ctx,
  caller: Caller,
  input: SecuritySettings,
): Promise<SecuritySettings> {
  const db = ctx.db
  const required = input.mfaRequisAdministrateurs
  const { actor, factors } = await rootAdminWith(ctx, caller, {
    factors: db.selectNoFrom(sql<number>`${hasSecondFactor(caller.id)}`.as('has_factor')),
  })
  if (required && factors[0]?.has_factor !== 1) {
    throw new BusinessError('MFA_FACTOR_REQUIRED', 403, 'Register a second factor for your own account first')
  }
  const allowed = sql<SqlBool>`${liveAdmin(ctx, caller)} and ${wholeTreeInScope(db, viewerOf(actor))}
    and (${required ? 1 : 0} = 0 or ${hasSecondFactor(actor.id)})`
  const written = await namedBatch(ctx.d1, {
    // The entry first, for a change only, on the same conditions as the change.
    log: insertWhen(
      db,
      'log',
      adminLog(actor, 'PARAMETRES_SECURITE', `mfaRequisAdministrateurs = ${required}`, ctx.request.userAgent),
      settingsQuery(db)
        .where('mfa_requis_administrateurs', '!=', required ? 1 : 0)
        .where(allowed),
    ),
    set: db
      .updateTable('parametre_securite')
      .set({ mfa_requis_administrateurs: required ? 1 : 0 })
      .where('id', '=', 1)
      .where(allowed),
  })
  if ((written.set?.meta.changes ?? 0) === 0) throw forbidden('Root administrators only')
  return { mfaRequisAdministrateurs: required }
}
