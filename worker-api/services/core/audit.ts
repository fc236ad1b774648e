import { nowIso } from '../../contract/dates'
import type { AdministrationAction } from '../../contract/history/logs'
import type { LogType } from '../../contract/log-labels'
import { type DB, type Guard, insertWhen } from '../../db/client'
import type { NewLog } from '../../db/schema'
import { browserOf } from '../../lib/browser'
import { serviceAccountId } from '../../lib/scope'

/**
 * A row of the audit history (DESIGN §8), written by the API in the batch of the action it records.
 * The browser comes from what the client says, else from the User-Agent, parsed on the server. An
 * actor's negative id is a service account's (lib/scope.ts `serviceAccountId`): the entry names it.
 */
export function logEntry(
  userId: number,
  type: LogType,
  nomLog: string,
  userAgent: string | null,
  extra: { commentaire?: string | null; nomNavigateur?: string | null; versionNavigateur?: string | null } = {},
): NewLog {
  const parsed = browserOf(userAgent)
  const account = serviceAccountId(userId)
  return {
    date: nowIso(),
    utilisateur_id: account === null ? userId : null,
    compte_service_id: account,
    type_log: type,
    nom_log: nomLog,
    commentaire: extra.commentaire ?? null,
    nom_navigateur: extra.nomNavigateur || parsed.name,
    version_navigateur: extra.versionNavigateur || parsed.version,
  }
}

/** An audit entry of an administrator's action on the organisation (DESIGN §8). */
export function adminLog(
  actor: { id: number },
  nomLog: AdministrationAction,
  commentaire: string,
  userAgent: string | null,
): NewLog {
  return logEntry(actor.id, 'ADMINISTRATION', nomLog, userAgent, { commentaire })
}

/**
 * An administrator's audit entry that is written only if `guard` finds a row at its place in the
 * batch: the action's own condition, so that an action that did not take place leaves no entry.
 */
export function adminLogWhen(
  db: DB,
  actor: { id: number },
  nomLog: AdministrationAction,
  commentaire: string,
  userAgent: string | null,
  guard: Guard,
) {
  return insertWhen(db, 'log', adminLog(actor, nomLog, commentaire, userAgent), guard)
}

/**
 * The audit entry of a change of mail address (DESIGN §8), by the user who confirmed it or by the
 * administrator who made it (`about` names the user then).
 */
export function mailChangeLog(
  actorId: number,
  former: string,
  next: string,
  userAgent: string | null,
  about: number | null = null,
): NewLog {
  const change = `${former} → ${next}`
  return logEntry(actorId, 'ADMINISTRATION', 'MAIL_CHANGE', userAgent, {
    commentaire: about === null ? change : `#${about} : ${change}`,
  })
}
