import { sql } from 'kysely'
import { EVENTS_PAGE_DEFAULT, type EventsPage, type EventsQuery } from '../../contract/machines/events'
import { pathsInScopeRoots, withScopeRoots } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { eventOf } from '../core/events'

/** How many events one pull reads at most to fill its page: a small scope among many others' still ends its turn. */
export const EVENTS_READ_PER_PULL = 1000

/**
 * GET rest/bd/evenements: the events of the caller's scope after `depuis`, oldest first, from a window of the next
 * `EVENTS_READ_PER_PULL`: a page may hold fewer than asked while more follow (`fin` says). One round trip.
 */
export async function listEvents(ctx: Ctx, caller: Caller, query: EventsQuery): Promise<EventsPage> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const after = query.depuis ?? 0
  const limit = query.limite ?? EVENTS_PAGE_DEFAULT
  const window = db
    .selectFrom('evenement')
    .select(['id', 'type', 'date', 'acteur', 'sujet', 'data', 'chemins', 'domain'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(EVENTS_READ_PER_PULL)
  const { events, read } = await adminWith(ctx, caller, {
    events: withScopeRoots(db, viewer)
      .with('event_window', () => window)
      .selectFrom('event_window')
      .select(['id', 'type', 'date', 'acteur', 'sujet', 'data'])
      .where(pathsInScopeRoots(db, viewer, sql.ref('event_window.chemins'), sql.ref('event_window.domain')))
      .orderBy('id')
      .limit(limit),
    read: db
      .selectFrom(window.as('event_window'))
      .select([sql<number | null>`max(event_window.id)`.as('last'), sql<number>`count(*)`.as('count')]),
  })
  const last = read[0]?.last ?? after
  const full = events.length === limit
  return {
    evenements: events.map(eventOf),
    suivant: full ? (events.at(-1)?.id ?? after) : last,
    fin: !full && (read[0]?.count ?? 0) < EVENTS_READ_PER_PULL,
  }
}
