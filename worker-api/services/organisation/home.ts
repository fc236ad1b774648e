import { type Expression, type SqlBool, sql } from 'kysely'
import { addDays, addSeconds, dayStartInstant, nowIso, toWireDate } from '../../contract/dates'
import {
  ENDING_POST_DAYS,
  ENDING_POSTS_PAGE,
  EXPIRING_LINK_HOURS,
  HOME_DAYS,
  HOME_USER_LISTS,
  type Home,
  type HomeQuery,
} from '../../contract/home'
import type { DB } from '../../db/client'
import { LAUNCH_LOG_TYPES } from '../../lib/log-types'
import { onePage } from '../../lib/query'
import { isUserAccount, modificationColumn, scopeStructureIds, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, liveAdmin, viewerOf } from '../core/actor'
import { authorInScope } from '../history/logs'
import { pendingInScope } from './registration-queue'
import { keptUserTotal } from './user-list'

/**
 * The posts of active users in scope ending from today to `ENDING_POST_DAYS - 1` days on — not those
 * a post of the same function and structure already continues the next day (extended by a new post).
 */
function endingPosts(db: DB, viewer: Viewer) {
  const last = addDays(viewer.today, ENDING_POST_DAYS - 1)
  const continued = db
    .selectFrom('poste as next')
    .select('next.id')
    .where(sql<SqlBool>`next.utilisateur_id = p.utilisateur_id and next.structure_id = p.structure_id
      and next.fonction_id = p.fonction_id and next.date_fin > p.date_fin
      and next.date_debut <= date(p.date_fin, '+1 day')`)
  return db
    .selectFrom('poste as p')
    .innerJoin('utilisateur as u', 'u.id', 'p.utilisateur_id')
    .where('p.structure_id', 'in', scopeStructureIds(db, viewer))
    .where('p.date_fin', '>=', viewer.today)
    .where('p.date_fin', '<=', last)
    .where('u.actif', '=', 1)
    .where('u.supprime', '=', 0)
    .where(isUserAccount('u'))
    .where(({ not, exists }) => not(exists(continued)))
}

/**
 * The day of an entry among the last `HOME_DAYS` (0 the oldest), from the instants each day starts at
 * in the organisation's time zone — written as literals: D1 binds at most 100 values a statement.
 */
function dayIndex(starts: string[]) {
  const branches = starts
    .slice(1, -1)
    .map((start, index) => sql`when log.date < ${sql.lit(start)} then ${sql.lit(index)}`)
  return sql<number>`case ${sql.join(branches, sql` `)} else ${sql.lit(starts.length - 2)} end`
}

/**
 * The scope users' sign-ins per day and launches per application over a range, as rows `{grp, n}` (`grp` the JSON
 * `["c", day]` or `["l", name]`), in one pass down `log (type_log, date, utilisateur_id)`. `way`: `set` for a month,
 * `log` for today's few entries (no set of the root's 100 000 users to gather).
 */
function activity(db: DB, viewer: Viewer, starts: string[], range: [string, string], way: 'set' | 'log') {
  const group = sql<string>`case when log.type_log = 'CONNEXION' then json_array('c', ${dayIndex(starts)})
    else json_array('l', log.nom_log) end`
  return db
    .selectFrom('log')
    .select([group.as('grp'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('log.type_log', 'in', ['CONNEXION', ...LAUNCH_LOG_TYPES])
    .where(sql<SqlBool>`(log.type_log = 'CONNEXION' or log.source = 'SERVEUR')`)
    .where(sql<SqlBool>`log.date >= ${sql.lit(range[0])} and log.date < ${sql.lit(range[1])}`)
    .where(authorInScope(db, viewer, way))
    .groupBy('grp')
}

/**
 * The home's activity of closed days, kept in `utilisateur_liste_total`: entries are never rewritten, so only the scope
 * changes a closed day's counts, and the table's triggers empty it on any user, post or structure write. Kept once a
 * day per administrator (rows keyed `prefix` + `grp`, and a `"done"` row); today's are counted on each read.
 */
function keptActivity(db: DB, viewer: Viewer, starts: string[], allowed: Expression<SqlBool>) {
  const prefix = `${JSON.stringify(['accueil', viewer.today, viewer.id, viewer.domain]).slice(0, -1)},`
  const done = db
    .selectFrom('utilisateur_liste_total as kept')
    .select('kept.cle')
    .where('kept.cle', '=', `${prefix}"done"]`)
  const missing = sql<SqlBool>`not exists ${done} and ${allowed}`
  // Said inside the count too, as its limit: once kept, the month is not counted again only to be
  // thrown away. A limit of 0 ends the count before its first row; the same test in its `where` would
  // be made for each of the month's entries, after the scope's users were gathered.
  const closed = activity(db, viewer, starts, [starts[0] as string, starts[starts.length - 2] as string], 'set').limit(
    sql<number>`case when ${missing} then -1 else 0 end`,
  )
  const keep = db
    .insertInto('utilisateur_liste_total')
    .columns(['cle', 'jour', 'total'])
    .expression(
      db
        .selectFrom(closed.as('closed'))
        .select([sql<string>`${prefix} || closed.grp || ']'`.as('cle'), sql.val(viewer.today).as('jour'), 'closed.n'])
        .unionAll(
          db
            .selectNoFrom([sql.val(`${prefix}"done"]`).as('cle'), sql.val(viewer.today).as('jour'), sql.lit(0).as('n')])
            .where(missing),
        ),
    )
    .onConflict((oc) => oc.column('cle').doNothing())
  const read = db
    .selectFrom('utilisateur_liste_total as kept')
    .select(['kept.cle', 'kept.total'])
    .where('kept.cle', '>', prefix)
    .where('kept.cle', '<', `${prefix}~`)
  return { prefix, keep, read }
}

/** The activity rows, kept and counted, summed as the home's two charts. */
function activityFigures(prefix: string, kept: { cle: string; total: number }[], today: { grp: string; n: number }[]) {
  const perDay = new Map<number, number>()
  const perApplication = new Map<string, number>()
  const rows = [
    ...kept.map((row) => ({ grp: row.cle.slice(prefix.length, -1), n: row.total })),
    ...today.map((row) => ({ grp: row.grp, n: Number(row.n) })),
  ]
  for (const { grp, n } of rows) {
    const parsed = JSON.parse(grp) as ['c', number] | ['l', string] | 'done'
    if (parsed === 'done') continue
    if (parsed[0] === 'c') perDay.set(parsed[1], (perDay.get(parsed[1]) ?? 0) + n)
    else perApplication.set(parsed[1], (perApplication.get(parsed[1]) ?? 0) + n)
  }
  return { perDay, perApplication }
}

/**
 * GET rest/bd/accueil: the administration home's figures, everything in the caller's scope, read with
 * the caller's check in one round trip. The user counts are the user list's totals (kept between
 * writes: counted once a day for the root's 100 000 users); the charts are the history's entries of
 * the last `HOME_DAYS` days, the closed days' counts kept the same way and today's counted.
 */
export async function readHome(ctx: Ctx, caller: Caller, query: HomeQuery): Promise<Home> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const now = new Date()
  const days = Array.from({ length: HOME_DAYS }, (_, index) => addDays(viewer.today, index - HOME_DAYS + 1))
  const starts = [...days, addDays(viewer.today, 1)].map(dayStartInstant)
  const allowed = liveAdmin(ctx, caller)
  const kept = keptActivity(db, viewer, starts, allowed)
  const withPost = keptUserTotal(db, viewer, HOME_USER_LISTS.avecPoste, allowed)
  const withoutPost = keptUserTotal(db, viewer, HOME_USER_LISTS.sansPoste, allowed)
  const inactive = keptUserTotal(db, viewer, HOME_USER_LISTS.inactifs, allowed)
  const ending = endingPosts(db, viewer)
  const page = query.page ?? 1
  const read = await adminWith(ctx, caller, {
    keepAvecPoste: withPost.keep,
    avecPoste: withPost.kept,
    keepSansPoste: withoutPost.keep,
    sansPoste: withoutPost.kept,
    keepInactifs: inactive.keep,
    inactifs: inactive.kept,
    registrations: pendingInScope(db, viewer).select((eb) => [
      eb.fn.countAll<number>().as('waiting'),
      sql<number>`coalesce(sum(u.token_register_expires_at > ${nowIso(now)}
        and u.token_register_expires_at <= ${nowIso(addSeconds(EXPIRING_LINK_HOURS * 3600, now))}), 0)`.as('expiring'),
    ]),
    postes: ending
      .innerJoin('structure as s', 's.id', 'p.structure_id')
      .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
      .select([
        'p.id',
        'p.date_debut',
        'p.date_fin',
        'u.id as utilisateur_id',
        'u.nom',
        'u.prenom',
        's.id as structure_id',
        's.nom as structure_nom',
        'f.id as fonction_id',
        'f.libelle as fonction_libelle',
      ])
      .select(modificationColumn(db, viewer, 'u'))
      .orderBy('p.date_fin')
      .orderBy(sql`u.nom collate nocase`)
      .orderBy(sql`u.prenom collate nocase`)
      .orderBy('p.id')
      .$call((rows) => onePage(rows, { page, taille: ENDING_POSTS_PAGE })),
    postesTotal: ending.select((eb) => eb.fn.countAll<number>().as('n')),
    keepDays: kept.keep,
    closedDays: kept.read,
    today: activity(
      db,
      viewer,
      starts,
      [starts[starts.length - 2] as string, starts[starts.length - 1] as string],
      'log',
    ),
  })
  const [registrations] = read.registrations
  const { perDay, perApplication } = activityFigures(kept.prefix, read.closedDays, read.today)
  return {
    utilisateurs: {
      avecPoste: read.avecPoste[0]?.total ?? 0,
      sansPoste: read.sansPoste[0]?.total ?? 0,
      inactifs: read.inactifs[0]?.total ?? 0,
    },
    inscriptions: { enAttente: registrations?.waiting ?? 0, liensExpirant: Number(registrations?.expiring ?? 0) },
    postesFinissant: {
      total: read.postesTotal[0]?.n ?? 0,
      items: read.postes.map((row) => ({
        id: row.id,
        dateDebut: toWireDate(row.date_debut),
        dateFin: toWireDate(row.date_fin),
        utilisateur: { id: row.utilisateur_id, nom: row.nom, prenom: row.prenom },
        structure: { id: row.structure_id, nom: row.structure_nom },
        fonction: { id: row.fonction_id, libelle: row.fonction_libelle },
        modification: row.modification === 1,
      })),
    },
    connexions: days.map((day, index) => ({ jour: toWireDate(day), nombre: perDay.get(index) ?? 0 })),
    lancements: [...perApplication]
      .map(([application, nombre]) => ({ application, nombre }))
      // Most launched first, then by name (the code points' order, as SQL's).
      .sort(
        (a, b) => b.nombre - a.nombre || (a.application < b.application ? -1 : a.application > b.application ? 1 : 0),
      ),
  }
}
