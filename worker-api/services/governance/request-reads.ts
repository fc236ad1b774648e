import { type SqlBool, sql } from 'kysely'
import { toWireDate } from '../../contract/dates'
import {
  type PendingRequest,
  type PendingRequestsQuery,
  REQUEST_PROPOSALS_MAX,
  type RequestDetail,
  type RequestState,
} from '../../contract/governance/access-requests'
import type { DB } from '../../db/client'
import { forbidden, notFound } from '../../lib/errors'
import { containsEveryWord, onePage } from '../../lib/query'
import { actsFor, modificationColumn, pathInScope, userManageable, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { expiryCutoff, expiryDay } from './request-notices'

/**
 * The requests as their deciders read them: the list of those waiting in the caller's scope, and one request with the
 * functions that would grant it. The decision itself (request-decisions.ts) reads a request the same way.
 */

/** A request with its requester (under `utilisateur`, as the scope's rules read a user) and its application. */
function requestsQuery(db: DB, viewer: Viewer) {
  const postes = sql<string>`(select coalesce(json_group_array(json_array(held.structure_id, held.nom, held.fonction_id,
      held.libelle, held.date_debut, held.date_fin)), '[]')
    from (select p.structure_id, s.nom, p.fonction_id, f.libelle, p.date_debut, p.date_fin from poste p
      join structure s on s.id = p.structure_id join fonction f on f.id = p.fonction_id
      where p.utilisateur_id = utilisateur.id and p.date_fin >= ${viewer.today} order by p.date_debut, p.id) held)`
  return (
    db
      .selectFrom('demande_acces as d')
      // From the requests to their users, always: a few hundred requests against 100 000 users, which SQLite would
      // otherwise scan to count the waiting ones (a cross join keeps the order of its tables).
      .crossJoin('utilisateur')
      .whereRef('utilisateur.id', '=', 'd.utilisateur_id')
      .innerJoin('application as a', 'a.id', 'd.application_id')
      .select([
        'd.id',
        'utilisateur.supprime',
        'd.motif',
        'd.date_debut',
        'd.date_fin',
        'd.created_at',
        'd.etat',
        'utilisateur.id as user_id',
        'utilisateur.login',
        'utilisateur.nom',
        'utilisateur.prenom',
        'utilisateur.mail',
        'utilisateur.langue',
        'a.id as application_id',
        'a.libelle',
        'a.icone',
      ])
      .select(postes.as('postes'))
  )
}

type RequestRow = {
  id: number
  motif: string
  date_debut: string
  date_fin: string
  created_at: string
  etat: RequestState
  supprime: number
  user_id: number
  login: string
  nom: string
  prenom: string
  mail: string
  application_id: number
  libelle: string
  icone: string
  postes: string
}

function toPendingRequest(row: RequestRow): PendingRequest {
  const postes = JSON.parse(row.postes) as [number, string, number, string, string, string][]
  return {
    id: row.id,
    utilisateur: { id: row.user_id, login: row.login, nom: row.nom, prenom: row.prenom, mail: row.mail },
    application: { id: row.application_id, libelle: row.libelle, icone: row.icone },
    motif: row.motif,
    dateDebut: toWireDate(row.date_debut),
    dateFin: toWireDate(row.date_fin),
    dateDemande: row.created_at,
    expiration: toWireDate(expiryDay(row.created_at)),
    postes: postes.map(([structureId, nom, fonctionId, libelle, debut, fin]) => ({
      structure: { id: structureId, nom },
      fonction: { id: fonctionId, libelle },
      dateDebut: toWireDate(debut),
      dateFin: toWireDate(fin),
    })),
  }
}

/**
 * GET rest/bd/demande/aTraiter: the requests waiting for a decision whose requester the caller manages
 * (`userManageable`: their own never), the oldest (nearest its expiry) first, searched and paged in SQL.
 */
export async function pendingRequests(
  ctx: Ctx,
  caller: Caller,
  query: PendingRequestsQuery,
): Promise<{ items: PendingRequest[]; total: number | null }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const search = containsEveryWord(['utilisateur.recherche', 'utilisateur.mail', 'a.libelle'], query.q)
  // A deleted user's requests, and those past their waiting time (the hourly job expires them), wait for nobody.
  const waiting = requestsQuery(db, viewer)
    .where('d.etat', '=', 'EN_ATTENTE')
    .where('d.created_at', '>', expiryCutoff())
    .where('utilisateur.supprime', '=', 0)
    .where(userManageable(db, viewer))
    .where(sql<SqlBool>`not ${actsFor(viewer, sql.ref<number>('d.utilisateur_id'))}`)
    .$if(search !== null, (q) => q.where(search as NonNullable<typeof search>))
  const direction = query.tri === '-dateDemande' ? 'desc' : 'asc'
  const { rows, total } = await adminWith(ctx, caller, {
    rows: onePage(waiting.orderBy('d.created_at', direction).orderBy('d.id', direction), query),
    total: query.page === undefined ? null : waiting.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')),
  })
  return { items: rows.map(toPendingRequest), total: total?.[0]?.total ?? null }
}

/** The request `id` with whether the viewer manages its requester (`modification`). */
export const requestRead = (db: DB, viewer: Viewer, id: number) =>
  requestsQuery(db, viewer)
    .select(modificationColumn(db, viewer))
    .select(sql<number>`${actsFor(viewer, sql.ref<number>('d.utilisateur_id'))}`.as('own'))
    .where('d.id', '=', id)

/**
 * A request the caller may decide: 403 their own (or, for a service account, its maker's: `actsFor`), 404 unknown or
 * another administrator's.
 */
export function decidable<R extends { own: number; modification: number; supprime: number }>(row: R | undefined): R {
  if (row?.own) throw forbidden('Nobody decides their own request')
  if (!row?.modification || row.supprime) throw notFound('Unknown request')
  return row
}

/** Whether a request still waits: not decided, and not past its waiting time (expired, whatever the job has done). */
export const stillWaiting = (request: { etat: RequestState; created_at: string }) =>
  request.etat === 'EN_ATTENTE' && request.created_at > expiryCutoff()

/**
 * GET rest/bd/demande/{id}: a request the caller may decide, in any state, with the functions of their scope that open
 * the application (`propositions`): those of the requester's own structures first, searched by `q`.
 */
export async function requestDetail(
  ctx: Ctx,
  caller: Caller,
  id: number,
  q: string | undefined,
): Promise<RequestDetail> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const search = containsEveryWord(['s.recherche', 'f.libelle'], q)
  const actuelle = sql<number>`exists (select 1 from poste held where held.utilisateur_id = d.utilisateur_id
    and held.structure_id = s.id and held.date_fin >= ${viewer.today})`
  // What else each function opens (the active applications besides the one asked for): a post grants them all.
  const others = sql`(select x.application_id from fonction_application x join application other
    on other.id = x.application_id and other.actif = 1 where x.fonction_id = f.id and x.application_id <> d.application_id)`
  const proposals = db
    .selectFrom('demande_acces as d')
    .innerJoin('fonction_application as fa', 'fa.application_id', 'd.application_id')
    .innerJoin('fonction as f', 'f.id', 'fa.fonction_id')
    .innerJoin('structure as s', 's.id', 'f.structure_id')
    .select(['f.id as fonction_id', 'f.libelle', 's.id as structure_id', 's.nom'])
    .select(actuelle.as('actuelle'))
    .select(
      sql<string>`(select coalesce(json_group_array(libelle), '[]') from (select a.libelle from application a
        where a.id in ${others} order by a.libelle))`.as('ouvre_aussi'),
    )
    .where('d.id', '=', id)
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
    .$if(search !== null, (query) => query.where(search as NonNullable<typeof search>))
    .orderBy(sql`${actuelle}`, 'desc')
    // The narrowest first: a function that opens nothing else grants only what was asked for.
    .orderBy(sql`(select count(*) from ${others} counted)`)
    .orderBy('s.path')
    .orderBy('f.libelle')
    .limit(REQUEST_PROPOSALS_MAX)
  const {
    request: [found],
    proposals: rows,
  } = await adminWith(ctx, caller, { request: requestRead(db, viewer, id), proposals })
  const request = decidable(found)
  return {
    ...toPendingRequest(request),
    etat: request.etat,
    propositions: rows.map((row) => ({
      fonction: { id: row.fonction_id, libelle: row.libelle },
      structure: { id: row.structure_id, nom: row.nom },
      actuelle: row.actuelle === 1,
      ouvreAussi: JSON.parse(row.ouvre_aussi) as string[],
    })),
  }
}
