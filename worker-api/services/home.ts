import { type SqlBool, sql } from 'kysely'
import {
  ENDING_POST_DAYS,
  ENDING_POSTS_PAGE,
  EXPIRING_LINK_HOURS,
  HOME_DAYS,
  HOME_USER_LISTS,
  type Home,
  type HomeQuery,
} from '../contract/home'
import { type DB, getDb } from '../db/client'
import type { Env } from '../env'
import { addDays, addSeconds, dayStartInstant, nowIso, toWireDate } from '../lib/dates'
import { LAUNCH_LOG_TYPES } from '../lib/log-types'
import { isUserAccount, modificationColumn, scopeStructureIds, type Viewer } from '../lib/scope'
import { actorWith, type Caller, viewerOf } from './actor'
import { authorInScope } from './logs'
import { pendingInScope } from './registration'
import { requireAdmin } from './structures'
import { keptUserTotal } from './user-admin'

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
 * GET rest/bd/accueil: the administration home's figures, everything in the caller's scope, read with
 * the caller's check in one round trip. The user counts are the user list's totals (kept between
 * writes: counted once a day for the root's 100 000 users); the charts count the history's entries of
 * the last `HOME_DAYS` days through the index of `log (type_log, date, utilisateur_id)`.
 */
export async function readHome(env: Env, caller: Caller, query: HomeQuery): Promise<Home> {
  const db = getDb(env.DB)
  const viewer = viewerOf(caller)
  const now = new Date()
  const days = Array.from({ length: HOME_DAYS }, (_, index) => addDays(viewer.today, index - HOME_DAYS + 1))
  const starts = [...days, addDays(viewer.today, 1)].map(dayStartInstant)
  const [from, until] = [starts[0] as string, starts[starts.length - 1] as string]
  const inRange = sql<SqlBool>`log.date >= ${sql.lit(from)} and log.date < ${sql.lit(until)}`
  const [withPost, withoutPost, inactive] = Object.values(HOME_USER_LISTS).map((list) =>
    keptUserTotal(db, viewer, list),
  ) as [ReturnType<typeof keptUserTotal>, ReturnType<typeof keptUserTotal>, ReturnType<typeof keptUserTotal>]
  const ending = endingPosts(db, viewer)
  const page = query.page ?? 1
  const [actor, , [avecPoste], , [sansPoste], , [inactifs], [registrations], postes, [postesTotal], signIns, launches] =
    await actorWith(
      env,
      caller,
      ...withPost,
      ...withoutPost,
      ...inactive,
      pendingInScope(db, viewer).select((eb) => [
        eb.fn.countAll<number>().as('waiting'),
        sql<number>`coalesce(sum(u.token_register_expires_at > ${nowIso(now)}
        and u.token_register_expires_at <= ${nowIso(addSeconds(EXPIRING_LINK_HOURS * 3600, now))}), 0)`.as('expiring'),
      ]),
      ending
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
        .limit(ENDING_POSTS_PAGE)
        .offset((page - 1) * ENDING_POSTS_PAGE),
      ending.select((eb) => eb.fn.countAll<number>().as('n')),
      db
        .selectFrom('log')
        .select([dayIndex(starts).as('day'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('log.type_log', '=', 'CONNEXION')
        .where(inRange)
        .where(authorInScope(db, viewer, 'set'))
        .groupBy('day'),
      db
        .selectFrom('log')
        .select(['log.nom_log', (eb) => eb.fn.countAll<number>().as('n')])
        .where('log.type_log', 'in', LAUNCH_LOG_TYPES)
        .where(inRange)
        .where('log.source', '=', 'SERVEUR')
        .where(authorInScope(db, viewer, 'set'))
        .groupBy('log.nom_log')
        .orderBy('n', 'desc')
        .orderBy('log.nom_log'),
    )
  requireAdmin(actor)
  const perDay = new Map(signIns.map((row) => [Number(row.day), Number(row.n)]))
  return {
    utilisateurs: {
      avecPoste: avecPoste?.total ?? 0,
      sansPoste: sansPoste?.total ?? 0,
      inactifs: inactifs?.total ?? 0,
    },
    inscriptions: { enAttente: registrations?.waiting ?? 0, liensExpirant: Number(registrations?.expiring ?? 0) },
    postesFinissant: {
      total: postesTotal?.n ?? 0,
      items: postes.map((row) => ({
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
    lancements: launches.map((row) => ({ application: row.nom_log, nombre: Number(row.n) })),
  }
}
