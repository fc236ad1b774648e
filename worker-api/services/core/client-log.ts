import { type SqlBool, sql } from 'kysely'
import { CLIENT_LOG_TYPES, type ClientLogInput } from '../../contract/history/logs'
import { insertWhen, namedBatch } from '../../db/client'
import { invalidField } from '../../lib/errors'
import { logTypeForName } from '../../lib/log-types'
import type { Ctx } from '../../lib/types'
import { actorWith, type Caller } from './actor'
import { logEntry } from './audit'
import { userCounter } from './rate-limit'

/** Entries a user may post a minute (POST logs/), unless `CLIENT_LOG_RATE_PER_MINUTE` says otherwise. */
export const CLIENT_LOGS_PER_MINUTE = 60

/**
 * spec §7 POST logs/: an action of the caller as a client reports it. `nomLog` must be a log type a
 * client may report or the name of an application of the catalogue (its type by spec §9); the entry
 * is the caller's, and marked as the client's (`source`), so that it never passes for one the server
 * recorded with the action.
 */
export async function writeClientLog(ctx: Ctx, caller: Caller, input: ClientLogInput) {
  const db = ctx.db
  const isType = (CLIENT_LOG_TYPES as readonly string[]).includes(input.nomLog)
  const { actor, applications } = await actorWith(ctx, caller, {
    applications: // An application switched off in the catalogue is launched no more: nothing to report of it.
      db.selectFrom('application').select('id').where('libelle', '=', input.nomLog).where('actif', '=', 1),
  })
  if (!isType && applications.length === 0) {
    throw invalidField('nomLog', 'nomLog is neither a log type nor an application', 'validation.nomLog')
  }
  // Each entry is a row kept for good: a client cannot fill the table at will. The entry is written
  // in the batch that counts it, only when the count is within the limit.
  const counter = userCounter(
    'client-log',
    actor.id,
    Number(ctx.env.CLIENT_LOG_RATE_PER_MINUTE ?? CLIENT_LOGS_PER_MINUTE),
  )
  const written = await namedBatch(ctx.d1, {
    count: counter.statement(),
    entry: insertWhen(
      db,
      'log',
      {
        ...logEntry(actor.id, logTypeForName(input.nomLog), input.nomLog, ctx.request.userAgent, input),
        source: 'CLIENT',
      },
      db.selectNoFrom(sql.lit(1).as('within')).where(sql.raw<SqlBool>(counter.within)),
    ).returning('id'),
  })
  counter.check(written.count?.results[0])
  const [entry] = written.entry?.results ?? []
  if (!entry) throw new Error('The entry was not written')
  return { id: entry.id }
}
