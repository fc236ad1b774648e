import { type Expression, type SqlBool, sql } from 'kysely'
import { addDays, addSeconds, dayStartInstant, nowIso, toWireDate } from '../../contract/dates'
import { DEVICE_ACTIONS } from '../../contract/log-labels'
import {
  ENDING_POST_DAYS,
  ENDING_POSTS_PAGE,
  EXPIRING_LINK_HOURS,
  HOME_ACCOUNTS,
  HOME_DAYS,
  HOME_USER_LISTS,
  type Home,
  type HomeQuery,
} from '../../contract/organisation/home'
import { type DB, prepared } from '../../db/client'
import { LAUNCH_LOG_TYPES } from '../../lib/log-types'
import { pageWindow } from '../../lib/query'
import {
  isUserAccount,
  modificationColumn,
  scopeStructureIds,
  type Viewer,
  type ViewerValues,
  viewerIn,
  viewerValues,
} from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, type CallerValues, callerValues, liveAdminOf, viewerOf } from '../core/actor'
import { atInstant, authorInScope, LATEST_ENTRY } from '../history/logs'
import { storageFigures, storageRead } from '../history/storage'
import { pendingInScope } from './registration-queue'
import { keepTotal, keptRead, keptUserTotal } from './user-list'

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
  return (
    db
      .selectFrom('poste as p')
      .innerJoin('utilisateur as u', 'u.id', 'p.utilisateur_id')
      // Down `poste_date_fin` (migration 0025), not the structures' index: a root's scope is every structure.
      .where(sql<number>`+p.structure_id`, 'in', scopeStructureIds(db, viewer))
      .where('p.date_fin', '>=', viewer.today)
      .where('p.date_fin', '<=', last)
      .where('u.actif', '=', 1)
      .where('u.supprime', '=', 0)
      .where(isUserAccount('u'))
      .where(({ not, exists }) => not(exists(continued)))
  )
}

/** The viewer's day and domain decide the SQL of the home's statements; the viewer's id and the caller are bound. */
const HOME_SHAPE = ['today', 'domain'] as const

/** A page of the posts ending soon (`endingPosts`), those the viewer may manage said so. */
const endingPage = prepared((db, values: ViewerValues & { size: number; offset: number }) => {
  const viewer = viewerIn(values)
  return endingPosts(db, viewer)
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
    .limit(values.size)
    .offset(values.offset)
}, HOME_SHAPE)

/** The ending posts' total, kept as the user counts are (`keepTotal`): the key holds the day. */
const keepEndingTotal = prepared((db, values: ViewerValues & CallerValues & { key: string }) => {
  const count = endingPosts(db, viewerIn(values)).select((eb) => eb.fn.countAll<number>().as('n'))
  return keepTotal(db, viewerIn(values), {
    key: values.key,
    count: sql<number>`(${count})`,
    allowed: liveAdminOf(db, values),
  })
}, HOME_SHAPE)

/** The pending registrations in scope, and those whose link ends between `now` and `until`. */
const registrationCounts = prepared(
  (db, values: ViewerValues & { now: string; until: string }) =>
    pendingInScope(db, viewerIn(values)).select((eb) => [
      eb.fn.countAll<number>().as('waiting'),
      sql<number>`coalesce(sum(u.token_register_expires_at > ${values.now}
        and u.token_register_expires_at <= ${values.until}), 0)`.as('expiring'),
    ]),
  HOME_SHAPE,
)

/** The kept rows whose key lies between `from` and `to` (a prefix and its end). */
const keptRange = prepared((db, values: { from: string; to: string }) =>
  db
    .selectFrom('utilisateur_liste_total as kept')
    .select(['kept.cle', 'kept.total'])
    .where('kept.cle', '>', values.from)
    .where('kept.cle', '<', values.to),
)

/**
 * The last `HOME_DAYS` days to `today` and the instants each starts at (and the next day), kept for the
 * day: a day's start in the organisation's time zone takes a few date formats to find.
 */
let daysKept: { today: string; days: string[]; starts: string[] } | null = null
function homeDays(today: string) {
  if (daysKept?.today !== today) {
    const days = Array.from({ length: HOME_DAYS }, (_, index) => addDays(today, index - HOME_DAYS + 1))
    daysKept = { today, days, starts: [...days, addDays(today, 1)].map(dayStartInstant) }
  }
  return daysKept
}
const startsOf = (today: string) => homeDays(today).starts

/**
 * The day of an entry among the last `HOME_DAYS` (0 the oldest), from the instants each day starts at
 * in the organisation's time zone — written as literals: D1 binds at most 100 values a statement.
 */
function dayIndex(starts: string[]) {
  const branches = starts
    .slice(1, -1)
    .map((start, index) => sql`when log.instant < ${atInstant(start)} then ${sql.lit(index)}`)
  return sql<number>`case ${sql.join(branches, sql` `)} else ${sql.lit(starts.length - 2)} end`
}

/** The sign-ins and launches of a range (`range`, instants) the charts count, in one pass down `log (type_log, instant)`. */
function activityEntries(db: DB, range: [string, string]) {
  return (
    db
      .selectFrom('log')
      .where('log.type_log', 'in', ['CONNEXION', ...LAUNCH_LOG_TYPES])
      .where(sql<SqlBool>`(log.type_log = 'CONNEXION' or log.source = 'SERVEUR')`)
      // A device's request and its decision are no sign-in of a person (its tokens are a launch).
      .where(
        sql<SqlBool>`not (log.type_log = 'CONNEXION' and log.nom_log in (${sql.join(DEVICE_ACTIONS.map((a) => sql.lit(a)))}))`,
      )
      .where(sql<SqlBool>`log.instant >= ${atInstant(range[0])} and log.instant < ${atInstant(range[1])}`)
  )
}

/** An entry's group: the JSON `["c", day]` of a sign-in, `["l", name]` of a launch. */
const activityGroup = (starts: string[]) =>
  sql<string>`case when log.type_log = 'CONNEXION' then json_array('c', ${dayIndex(starts)})
    else json_array('l', log.nom_log) end`

/**
 * The scope users' sign-ins per day and launches per application over closed days, as rows `{grp, n}`, the scope's
 * users gathered once (a month of the root's 100 000 users).
 */
function activity(db: DB, viewer: Viewer, starts: string[], range: [string, string]) {
  return activityEntries(db, range)
    .select([activityGroup(starts).as('grp'), (eb) => eb.fn.countAll<number>().as('n')])
    .where(authorInScope(db, viewer, 'set'))
    .groupBy('grp')
}

/**
 * Today's, counted per user first, then each user checked against the scope once: a day's thousands of launches come
 * from far fewer users. Only the entries after `after` (an entry's id): none, without reading the day, when there is
 * no newer entry.
 */
function activityToday(db: DB, viewer: Viewer, starts: string[], after: Expression<number>) {
  const perAuthor = activityEntries(db, [starts[starts.length - 2] as string, starts[starts.length - 1] as string])
    .where(sql<SqlBool>`${after} < ${LATEST_ENTRY} and log.id > ${after}`)
    .select([
      'log.utilisateur_id',
      'log.compte_service_id',
      activityGroup(starts).as('grp'),
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .groupBy(['log.utilisateur_id', 'log.compte_service_id', 'grp'])
  return db
    .selectFrom(perAuthor.as('log'))
    .select(['log.grp', sql<number>`sum(log.n)`.as('n')])
    .where(authorInScope(db, viewer, 'log'))
    .groupBy('log.grp')
}

/**
 * Today's activity kept as the closed days' is, and brought up to date on each read with the entries written since the
 * newest one counted (a `"jusqua"` row): a day's launches are counted once, not on every read. Both writes wait for
 * `allowed`; the table's triggers empty it when the scope changes, and the key holds the day.
 */
const todayCount = prepared((db, values: ViewerValues & CallerValues & { prefix: string; markKey: string }) => {
  const counted = sql<number>`coalesce((select mark.jusqua from utilisateur_liste_total as mark
      where mark.cle = ${values.markKey}), 0)`
  const since = db
    .selectFrom(activityToday(db, viewerIn(values), startsOf(values.today), counted).as('since'))
    .select([sql<string>`${values.prefix} || since.grp || ']'`.as('cle'), sql.val(values.today).as('jour'), 'since.n'])
    .where(liveAdminOf(db, values))
  return db
    .insertInto('utilisateur_liste_total')
    .columns(['cle', 'jour', 'total'])
    .expression(since)
    .onConflict((oc) =>
      oc.column('cle').doUpdateSet({ total: sql<number>`utilisateur_liste_total.total + excluded.total` }),
    )
}, HOME_SHAPE)

const todayMark = prepared(
  (db, values: CallerValues & { today: string; markKey: string }) =>
    db
      .insertInto('utilisateur_liste_total')
      .columns(['cle', 'jour', 'total', 'jusqua'])
      .expression(
        db
          .selectNoFrom([
            sql.val(values.markKey).as('cle'),
            sql.val(values.today).as('jour'),
            sql.lit(0).as('n'),
            LATEST_ENTRY.as('jusqua'),
          ])
          .where(liveAdminOf(db, values)),
      )
      .onConflict((oc) =>
        oc
          .column('cle')
          .doUpdateSet({ jusqua: sql<number>`excluded.jusqua` })
          .where(sql<SqlBool>`utilisateur_liste_total.jusqua < excluded.jusqua`),
      ),
  ['today'],
)

function keptToday(db: DB, viewer: Viewer, caller: CallerValues) {
  const prefix = `${JSON.stringify(['accueil-jour', viewer.today, viewer.id, viewer.domain]).slice(0, -1)},`
  const markKey = `${prefix}"jusqua"]`
  const values = { ...viewerValues(viewer), ...caller }
  return {
    prefix,
    count: todayCount(db, { ...values, prefix, markKey }),
    mark: todayMark(db, { ...caller, today: viewer.today, markKey }),
    read: keptRange(db, { from: prefix, to: `${prefix}~` }),
  }
}

/**
 * The home's activity of closed days, kept in `utilisateur_liste_total`: entries are never rewritten, so only the scope
 * changes a closed day's counts, and the table's triggers empty it on any user, post or structure write. Kept once a
 * day per administrator (rows keyed `prefix` + `grp`, and a `"done"` row); today's are counted on each read.
 */
const keepClosedDays = prepared((db, values: ViewerValues & CallerValues & { prefix: string; doneKey: string }) => {
  const starts = startsOf(values.today)
  const done = db
    .selectFrom('utilisateur_liste_total as kept')
    .select('kept.cle')
    .where('kept.cle', '=', values.doneKey)
  const missing = sql<SqlBool>`not exists ${done} and ${liveAdminOf(db, values)}`
  // Said inside the count too, as its limit: once kept, the month is not counted again only to be
  // thrown away. A limit of 0 ends the count before its first row; the same test in its `where` would
  // be made for each of the month's entries, after the scope's users were gathered.
  const closed = activity(db, viewerIn(values), starts, [
    starts[0] as string,
    starts[starts.length - 2] as string,
  ]).limit(sql<number>`case when ${missing} then -1 else 0 end`)
  return db
    .insertInto('utilisateur_liste_total')
    .columns(['cle', 'jour', 'total'])
    .expression(
      db
        .selectFrom(closed.as('closed'))
        .select([
          sql<string>`${values.prefix} || closed.grp || ']'`.as('cle'),
          sql.val(values.today).as('jour'),
          'closed.n',
        ])
        .unionAll(
          db
            .selectNoFrom([sql.val(values.doneKey).as('cle'), sql.val(values.today).as('jour'), sql.lit(0).as('n')])
            .where(missing),
        ),
    )
    .onConflict((oc) => oc.column('cle').doNothing())
}, HOME_SHAPE)

function keptActivity(db: DB, viewer: Viewer, caller: CallerValues) {
  const prefix = `${JSON.stringify(['accueil', viewer.today, viewer.id, viewer.domain]).slice(0, -1)},`
  const values = { ...viewerValues(viewer), ...caller }
  return {
    prefix,
    keep: keepClosedDays(db, { ...values, prefix, doneKey: `${prefix}"done"]` }),
    read: keptRange(db, { from: prefix, to: `${prefix}~` }),
  }
}

/** The activity rows, kept and counted, summed as the home's two charts. */
function activityFigures(kept: { prefix: string; rows: { cle: string; total: number }[] }[]) {
  const perDay = new Map<number, number>()
  const perApplication = new Map<string, number>()
  const rows = kept.flatMap(({ prefix, rows }) =>
    rows.map((row) => ({ grp: row.cle.slice(prefix.length, -1), n: row.total })),
  )
  for (const { grp, n } of rows) {
    // The `"done"` and `"jusqua"` rows are the keeping's own.
    const parsed = JSON.parse(grp) as ['c', number] | ['l', string] | string
    if (typeof parsed === 'string') continue
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
  const { days } = homeDays(viewer.today)
  const who = callerValues(caller)
  const values = viewerValues(viewer)
  const kept = keptActivity(db, viewer, who)
  const today = keptToday(db, viewer, who)
  const withPost = keptUserTotal(db, viewer, HOME_USER_LISTS.avecPoste, who)
  const withoutPost = keptUserTotal(db, viewer, HOME_USER_LISTS.sansPoste, who)
  const inactive = keptUserTotal(db, viewer, HOME_USER_LISTS.inactifs, who)
  const endingKey = JSON.stringify(['accueil-fin', viewer.today, viewer.id, viewer.domain])
  const { size, offset } = pageWindow({ page: query.page ?? 1, taille: ENDING_POSTS_PAGE })
  const read = await adminWith(ctx, caller, {
    keepAvecPoste: withPost.keep,
    avecPoste: withPost.kept,
    keepSansPoste: withoutPost.keep,
    sansPoste: withoutPost.kept,
    keepInactifs: inactive.keep,
    inactifs: inactive.kept,
    registrations: registrationCounts(db, {
      ...values,
      now: nowIso(now),
      until: nowIso(addSeconds(EXPIRING_LINK_HOURS * 3600, now)),
    }),
    postes: endingPage(db, { ...values, size, offset }),
    keepPostesTotal: keepEndingTotal(db, { ...values, ...who, key: endingKey }),
    postesTotal: keptRead(db, { key: endingKey }),
    keepDays: kept.keep,
    closedDays: kept.read,
    countToday: today.count,
    markToday: today.mark,
    today: today.read,
    comptesService: accountCalls(db, viewer, now.toISOString().slice(0, 10)),
    stockage: storageRead(db, viewer),
  })
  const [registrations] = read.registrations
  const { perDay, perApplication } = activityFigures([
    { prefix: kept.prefix, rows: read.closedDays },
    { prefix: today.prefix, rows: read.today },
  ])
  return {
    utilisateurs: {
      avecPoste: read.avecPoste[0]?.total ?? 0,
      sansPoste: read.sansPoste[0]?.total ?? 0,
      inactifs: read.inactifs[0]?.total ?? 0,
    },
    inscriptions: { enAttente: registrations?.waiting ?? 0, liensExpirant: Number(registrations?.expiring ?? 0) },
    postesFinissant: {
      total: read.postesTotal[0]?.total ?? 0,
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
    comptesService: read.comptesService.map((row) => ({
      id: row.id,
      nom: row.nom,
      appels: row.appels_jour,
      derniereUtilisation: row.derniere_utilisation,
    })),
    stockage: read.stockage[0] ? storageFigures(read.stockage[0], read.databaseBytes) : null,
  }
}

/** The service accounts of the scope's structures that called today (their count is kept on their row). */
const accountCalls = (db: DB, viewer: Viewer, day: string) =>
  db
    .selectFrom('compte_service_usage as usage')
    .innerJoin('compte_service as cs', 'cs.id', 'usage.compte_service_id')
    .select(['cs.id', 'cs.nom', 'usage.appels_jour', 'usage.derniere_utilisation'])
    .where('cs.supprime', '=', 0)
    .where('usage.jour', '=', day)
    .where('cs.structure_id', 'in', scopeStructureIds(db, viewer))
    .orderBy('usage.appels_jour', 'desc')
    .orderBy('cs.nom')
    .limit(HOME_ACCOUNTS)
