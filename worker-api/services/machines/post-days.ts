import { type SqlBool, sql } from 'kysely'
import { addDays, nextDay, todayIso } from '../../contract/dates'
import { batch } from '../../db/client'
import type { Ctx } from '../../lib/types'
import { ofUsers, tellAccess } from '../catalogue/access-told'
import { posteEvents } from '../core/events'

/**
 * A date passing is an event too (issue 65): on each day of the organisation's calendar, once, the posts that start
 * that day are told (`poste.debut`), and those whose last day was the day before (`poste.fin`: they no longer count).
 * The minute's cron asks; a day is told with its row in `evenement_jour` (migration 0047), in one batch, so that two
 * runs never tell it twice. A post written after its day's run is told by its own write (migration 0050's trigger).
 * The same batch tells the access those starts and ends gave and took away (catalogue/access-told.ts), by the portal.
 */

/** The days a late run catches up at most: a cron stopped for longer tells the last week's. */
export const POST_DAYS_CAUGHT_UP = 7

/** Tells the days not told yet, up to today; answers them. */
export async function tellPostDays(ctx: Ctx, now = new Date()): Promise<string[]> {
  const db = ctx.db
  const today = todayIso(now)
  const last = await db.selectFrom('evenement_jour').select(sql<string | null>`max(jour)`.as('jour')).executeTakeFirst()
  const told = last?.jour ?? null
  if (told !== null && told >= today) return []
  const earliest = addDays(today, 1 - POST_DAYS_CAUGHT_UP)
  // The first run tells today; a late one, each day since the last told (the last week's at most).
  // Days as 'YYYY-MM-DD' compare as text.
  const first = told === null ? today : ([nextDay(told), earliest].sort().at(-1) ?? today)
  const days: string[] = []
  for (let day = first; day <= today; day = nextDay(day)) days.push(day)
  // The access those days moved: since the last day told, or, the first time, since the day before the access was
  // first recorded (migration 0051, in UTC).
  const since = told ?? addDays(today, -2)
  const run = crypto.randomUUID()
  const held = (day: string) =>
    sql<SqlBool>`exists (select 1 from evenement_jour where jour = ${day} and fait_le = ${run})`
  await batch(ctx.d1, [
    ...days.flatMap((day) => [
      db
        .insertInto('evenement_jour')
        .values({ jour: day, fait_le: run })
        .onConflict((conflict) => conflict.doNothing()),
      // The ends first: someone moving from one post to the next leaves the first before taking the second.
      // Each once (migration 0050): a post written after its day's run was told then.
      posteEvents(
        db,
        'poste.fin',
        'systeme',
        () =>
          sql<SqlBool>`event_poste.date_fin = ${addDays(day, -1)} and event_poste.fin_dit is not event_poste.date_fin`,
        held(day),
        now,
      ),
      posteEvents(
        db,
        'poste.debut',
        'systeme',
        () => sql<SqlBool>`event_poste.date_debut = ${day} and event_poste.debut_dit is not event_poste.date_debut`,
        held(day),
        now,
      ),
    ]),
    // What those starts and ends give and take away, as it holds today: the holders of every post that started or
    // ended since then, even beyond the week whose posts' days are told.
    ...tellAccess(
      db,
      'systeme',
      ofUsers(
        db
          .selectFrom('poste as turning')
          .select('turning.utilisateur_id')
          .where((eb) =>
            eb.or([
              eb.and([eb('turning.date_debut', '>', since), eb('turning.date_debut', '<=', today)]),
              eb.and([eb('turning.date_fin', '>=', since), eb('turning.date_fin', '<', today)]),
            ]),
          ),
      ),
      now,
      held(today),
    ),
  ])
  return days
}
