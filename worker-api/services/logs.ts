import { getDb } from '../db/client'
import type { LogType, NewLog } from '../db/schema'
import type { Env } from '../env'
import { browserOf } from '../lib/browser'
import { nowIso } from '../lib/dates'
import { logTypeForName } from '../lib/log-types'
import type { Actor } from './actor'

/**
 * A row of the audit history (DESIGN §8). The browser comes from what the client says, else from the
 * User-Agent, parsed on the server.
 */
export function logEntry(
  userId: number,
  type: LogType,
  nomLog: string,
  userAgent: string | null,
  extra: { commentaire?: string | null; nomNavigateur?: string | null; versionNavigateur?: string | null } = {},
): NewLog {
  const parsed = browserOf(userAgent)
  return {
    date: nowIso(),
    utilisateur_id: userId,
    type_log: type,
    nom_log: nomLog,
    commentaire: extra.commentaire ?? null,
    nom_navigateur: extra.nomNavigateur || parsed.name,
    version_navigateur: extra.versionNavigateur || parsed.version,
  }
}

/** spec §7 POST logs/: a client-reported action; its type follows from its name (spec §9). */
export async function writeClientLog(
  env: Env,
  actor: Actor,
  input: {
    nomLog: string
    commentaire?: string | null | undefined
    nomNavigateur?: string | null | undefined
    versionNavigateur?: string | null | undefined
  },
  userAgent: string | null,
) {
  const result = await getDb(env.DB)
    .insertInto('log')
    .values(logEntry(actor.id, logTypeForName(input.nomLog), input.nomLog, userAgent, input))
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id: result.id }
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
