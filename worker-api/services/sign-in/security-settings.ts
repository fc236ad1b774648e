import { type SqlBool, sql } from 'kysely'
import { HISTORY_MONTHS, type SecuritySettings, type SecuritySettingsUpdate } from '../../contract/sign-in/mfa'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden } from '../../lib/errors'
import { hasSecondFactor, wholeTreeInScope } from '../../lib/scope'
import type { Caller, Ctx } from '../../lib/types'
import { adminWith, liveAdmin, rootAdminWith, viewerOf } from '../core/actor'
import { adminLog } from '../core/audit'

const settingsQuery = (db: DB) =>
  db
    .selectFrom('parametre_securite')
    .select(['mfa_requis_administrateurs', 'demande_duree_max_jours', 'historique_mois_en_ligne'])
    .where('id', '=', 1)

/** GET rest/bd/parametres/securite: for administrators. */
export async function securitySettings(ctx: Ctx, caller: Caller): Promise<SecuritySettings> {
  const { rows } = await adminWith(ctx, caller, { rows: settingsQuery(ctx.db) })
  return toSettings(rows[0])
}

type SettingsRow = {
  mfa_requis_administrateurs: number
  demande_duree_max_jours: number
  historique_mois_en_ligne: number
}

const toSettings = (row: SettingsRow | undefined): SecuritySettings => ({
  mfaRequisAdministrateurs: row?.mfa_requis_administrateurs === 1,
  demandeDureeMaxJours: row?.demande_duree_max_jours ?? 0,
  historiqueMoisEnLigne: row?.historique_mois_en_ligne ?? HISTORY_MONTHS.default,
})

/**
 * PUT rest/bd/parametres/securite: a root administrator's. Turning the requirement on needs the caller
 * to have a second factor themself (else they would lock themself out of the administration); the
 * write repeats both conditions, so that a caller losing either meanwhile changes nothing.
 */
export async function updateSecuritySettings(
  ctx: Ctx,
  caller: Caller,
  input: SecuritySettingsUpdate,
): Promise<SecuritySettings> {
  const db = ctx.db
  const {
    actor,
    factors,
    settings: [settings],
  } = await rootAdminWith(ctx, caller, {
    factors: db.selectNoFrom(sql<number>`${hasSecondFactor(caller.id)}`.as('has_factor')),
    settings: settingsQuery(db),
  })
  const required = input.mfaRequisAdministrateurs ?? settings?.mfa_requis_administrateurs === 1
  const duree = input.demandeDureeMaxJours ?? settings?.demande_duree_max_jours ?? 0
  const months = input.historiqueMoisEnLigne ?? settings?.historique_mois_en_ligne ?? HISTORY_MONTHS.default
  if (required && factors[0]?.has_factor !== 1) {
    throw new BusinessError('MFA_FACTOR_REQUIRED', 403, 'Register a second factor for your own account first')
  }
  const allowed = sql<SqlBool>`${liveAdmin(ctx, caller)} and ${wholeTreeInScope(db, viewerOf(actor))}
    and (${required ? 1 : 0} = 0 or ${hasSecondFactor(actor.id)})`
  // Only what the call names changes: a setting it leaves out keeps what another administrator may be writing.
  const changes = {
    ...(input.mfaRequisAdministrateurs === undefined ? {} : { mfa_requis_administrateurs: required ? 1 : 0 }),
    ...(input.demandeDureeMaxJours === undefined ? {} : { demande_duree_max_jours: duree }),
    ...(input.historiqueMoisEnLigne === undefined ? {} : { historique_mois_en_ligne: months }),
  }
  const described = Object.entries({
    mfaRequisAdministrateurs: input.mfaRequisAdministrateurs,
    demandeDureeMaxJours: input.demandeDureeMaxJours,
    historiqueMoisEnLigne: input.historiqueMoisEnLigne,
  })
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name} = ${value}`)
  const written = await namedBatch(ctx.d1, {
    // The entry first, for a change only, on the same conditions as the change.
    log:
      described.length === 0
        ? null
        : insertWhen(
            db,
            'log',
            adminLog(actor, 'PARAMETRES_SECURITE', described.join(', '), ctx.request.userAgent),
            settingsQuery(db)
              .where((eb) => eb.or(Object.entries(changes).map(([column, value]) => eb(sql.ref(column), '!=', value))))
              .where(allowed),
          ),
    set: db
      .updateTable('parametre_securite')
      .set({ id: 1, ...changes })
      .where('id', '=', 1)
      .where(allowed),
  })
  if ((written.set?.meta.changes ?? 0) === 0) throw forbidden('Root administrators only')
  return { mfaRequisAdministrateurs: required, demandeDureeMaxJours: duree, historiqueMoisEnLigne: months }
}
