import { getDb } from '../db/client'
import type { Env } from '../env'
import { browserOf } from '../lib/browser'
import { nowIso } from '../lib/dates'
import { logTypeForName } from '../lib/log-types'
import type { Actor } from './actor'

/** spec §7 POST logs/: a client-reported action; the browser falls back to the User-Agent. */
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
  const parsed = browserOf(userAgent)
  const result = await getDb(env.DB)
    .insertInto('log')
    .values({
      date: nowIso(),
      utilisateur_id: actor.id,
      type_log: logTypeForName(input.nomLog),
      nom_log: input.nomLog,
      commentaire: input.commentaire ?? null,
      nom_navigateur: input.nomNavigateur || parsed.name,
      version_navigateur: input.versionNavigateur || parsed.version,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id: result.id }
}
