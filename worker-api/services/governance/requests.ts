import { type SqlBool, sql } from 'kysely'
import type { AccessList } from '../../contract/catalogue/access'
import { addDays, addSeconds, fromWireDate, toWireDate } from '../../contract/dates'
import {
  type OwnRequest,
  REQUEST_APPROVERS_TOLD,
  REQUEST_START_MAX_DAYS,
  REQUESTS_PER_DAY,
  type Requestable,
  type RequestInput,
  type RequestState,
} from '../../contract/governance/access-requests'
import { type DB, insertWhen, namedBatch, prepared } from '../../db/client'
import { BusinessError, invalidField, notFound } from '../../lib/errors'
import { type PageQuery, pageWindow, uniqueViolation, wholeList } from '../../lib/query'
import { userManagers } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { currentAndFuture, currentAndFutureApplicationsQuery, launchableApplications } from '../catalogue/access'
import { actorWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { afterOneRow, requestEvent } from '../core/events'
import { mailQueued } from '../core/outbox'
import { approverMails, decidedBy, expiryDay, requestFacts } from './request-notices'

/** The columns of a request as its author reads it, from `demande_acces as d` joined to `application as a`. */
export const OWN_REQUEST_COLUMNS = [
  'd.id',
  'd.motif',
  'd.date_debut',
  'd.date_fin',
  'd.etat',
  'd.created_at',
  'd.decided_at',
  'd.commentaire',
  'a.id as application_id',
  'a.libelle',
  'a.icone',
] as const

type OwnRequestRow = {
  id: number
  motif: string
  date_debut: string
  date_fin: string
  etat: RequestState
  created_at: string
  decided_at: string | null
  commentaire: string | null
  application_id: number
  libelle: string
  icone: string
}

export function toOwnRequest(row: OwnRequestRow): OwnRequest {
  return {
    id: row.id,
    application: { id: row.application_id, libelle: row.libelle, icone: row.icone },
    motif: row.motif,
    dateDebut: toWireDate(row.date_debut),
    dateFin: toWireDate(row.date_fin),
    etat: row.etat,
    dateDemande: row.created_at,
    expiration: toWireDate(expiryDay(row.created_at)),
    dateDecision: row.decided_at,
    commentaire: row.commentaire,
  }
}

/**
 * The demandable applications of the catalogue (on) that the user cannot launch today, each with their request of it
 * waiting, and the longest period one may ask for.
 */
export function requestableQuery(ctx: Pick<Ctx, 'db'>, userId: number, today: string) {
  const db = ctx.db
  return db
    .selectFrom('application as a')
    .innerJoin('parametre_securite as ps', (join) => join.on('ps.id', '=', 1))
    .leftJoin('demande_acces as d', (join) =>
      join.onRef('d.application_id', '=', 'a.id').on('d.utilisateur_id', '=', userId).on('d.etat', '=', 'EN_ATTENTE'),
    )
    .select(['a.id as application_id', 'a.libelle', 'a.icone', 'ps.demande_duree_max_jours'])
    .select([
      'd.id',
      'd.motif',
      'd.date_debut',
      'd.date_fin',
      'd.etat',
      'd.created_at',
      'd.decided_at',
      'd.commentaire',
    ])
    .where('a.actif', '=', 1)
    .where('a.demandable', '=', 1)
    .where('a.id', 'not in', launchableApplications(ctx, userId, today).clearSelect().select('a.id'))
    .orderBy('a.libelle')
}

type RequestableRow = Omit<OwnRequestRow, 'id' | 'motif' | 'date_debut' | 'date_fin' | 'etat' | 'created_at'> & {
  id: number | null
  motif: string | null
  date_debut: string | null
  date_fin: string | null
  etat: RequestState | null
  created_at: string | null
  demande_duree_max_jours: number
}

export function toRequestable(row: RequestableRow): Requestable {
  const { id, motif, date_debut, date_fin, etat, created_at } = row
  return {
    application: { id: row.application_id, libelle: row.libelle, icone: row.icone },
    dureeMaxJours: row.demande_duree_max_jours,
    demande:
      id === null || motif === null || date_debut === null || date_fin === null || etat === null || created_at === null
        ? null
        : toOwnRequest({ ...row, id, motif, date_debut, date_fin, etat, created_at }),
  }
}

/** GET rest/bd/demande/applications: what the caller may ask for, with their requests waiting. */
export async function requestableApplications(ctx: Ctx, caller: Caller): Promise<Requestable[]> {
  const { rows } = await actorWith(ctx, caller, { rows: requestableQuery(ctx, caller.id, viewerOf(caller).today) })
  return rows.map(toRequestable)
}

/** The caller's requests, newest first. */
export function ownRequestsQuery(db: DB, userId: number) {
  return db
    .selectFrom('demande_acces as d')
    .innerJoin('application as a', 'a.id', 'd.application_id')
    .select(OWN_REQUEST_COLUMNS)
    .where('d.utilisateur_id', '=', userId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
}

/**
 * GET rest/bd/demande/miennes: the caller's requests, newest first, paged (total in X-Total-Count); without a page, the
 * `taille` newest, uncounted (the launcher's latest), else the whole list.
 */
export async function ownRequests(
  ctx: Ctx,
  caller: Caller,
  query: PageQuery,
): Promise<{ items: OwnRequest[]; total: number | null }> {
  const db = ctx.db
  const newest = query.page === undefined && query.taille !== undefined
  const window = newest ? { size: query.taille as number, offset: 0 } : pageWindow(query)
  const { rows, total } = await actorWith(ctx, caller, {
    rows: ownRequestsQuery(db, caller.id).limit(window.size).offset(window.offset),
    total:
      query.page === undefined
        ? null
        : db
            .selectFrom('demande_acces')
            .select((eb) => eb.fn.countAll<number>().as('total'))
            .where('utilisateur_id', '=', caller.id),
  })
  const items = query.page === undefined && !newest ? wholeList(rows) : rows
  return { items: items.map(toOwnRequest), total: total?.[0]?.total ?? null }
}

/** The launcher's statements, compiled once per isolate (each page of every user's launcher reads them). */
type UserDay = { userId: number; today: string }
const launcherStatements = {
  applications: prepared((db, v: UserDay) => currentAndFutureApplicationsQuery({ db }, v.userId, v.today)),
  requestable: prepared((db, v: UserDay) => requestableQuery({ db }, v.userId, v.today)),
  requests: prepared(
    (db, v: { userId: number; latest: number }) => ownRequestsQuery(db, v.userId).limit(v.latest),
    ['latest'],
  ),
}

/**
 * GET rest/bd/acces/utilisateur/{own id}?demandes=N: the launcher's whole read in one round trip — what the caller
 * may launch (and with `futurs`, what future posts will open), the demandable applications they cannot launch with
 * their requests waiting, and their N newest requests. Only on one's own list: another user's requests are theirs.
 */
export async function launcherAccess(
  ctx: Ctx,
  caller: Caller,
  userId: number,
  futurs: boolean,
  latest: number,
): Promise<AccessList> {
  if (userId !== caller.id) throw invalidField('demandes', "Only on one's own access list", 'validation.invalid')
  const today = viewerOf(caller).today
  const day = { userId: caller.id, today }
  const { applications, requestable, requests } = await actorWith(ctx, caller, {
    applications: launcherStatements.applications(ctx.db, day),
    requestable: launcherStatements.requestable(ctx.db, day),
    requests: launcherStatements.requests(ctx.db, { userId: caller.id, latest }),
  })
  const { accesApplication, accesFuturs } = currentAndFuture(applications)
  return {
    accesApplication,
    ...(futurs ? { accesFuturs } : {}),
    demandables: requestable.map(toRequestable),
    demandes: requests.map(toOwnRequest),
  }
}

const DAY_SECONDS = 24 * 3600

/** Days from `from` to `to` ('YYYY-MM-DD'), both counted. */
const daysCounted = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1

/**
 * POST rest/bd/demande: the caller asks for a demandable application they cannot launch, for a period starting today
 * or later (within a year) no longer than the settings allow. One request waits per application (409 DEMANDE_EN_COURS,
 * which the insert repeats through its unique index). Written with its entry and the mail of the nearest sub-tree's
 * administrators who manage the caller, all under the condition that the application is still demandable.
 */
export async function createRequest(
  ctx: Ctx,
  caller: Caller,
  input: RequestInput,
): Promise<{ id: number; etat: 'EN_ATTENTE' }> {
  const db = ctx.db
  const today = viewerOf(caller).today
  const debut = fromWireDate(input.dateDebut) ?? ''
  const fin = fromWireDate(input.dateFin) ?? ''
  const dayAgo = addSeconds(-DAY_SECONDS).toISOString()
  // The caller's requests of the last 24 hours, the oldest first: each mailed their administrators.
  const lately = db
    .selectFrom('demande_acces')
    .select('created_at')
    .where('utilisateur_id', '=', caller.id)
    .where('created_at', '>', dayAgo)
  const demandable = db
    .selectFrom('application')
    .select(['application.id', 'application.libelle'])
    .where('application.id', '=', input.application.id)
    .where('application.actif', '=', 1)
    .where('application.demandable', '=', 1)
  const {
    actor,
    application: [application],
    recent,
    launchable,
    waiting,
    settings: [settings],
    managers,
  } = await actorWith(ctx, caller, {
    application: demandable,
    launchable: launchableApplications(ctx, caller.id, today).where('a.id', '=', input.application.id),
    waiting: db
      .selectFrom('demande_acces')
      .select('id')
      .where('utilisateur_id', '=', caller.id)
      .where('application_id', '=', input.application.id)
      .where('etat', '=', 'EN_ATTENTE'),
    settings: db.selectFrom('parametre_securite').select('demande_duree_max_jours').where('id', '=', 1),
    managers: userManagers(caller.id, today),
    recent: lately.orderBy('created_at').limit(REQUESTS_PER_DAY),
  })
  const tooMany = () => {
    const oldest = Date.parse(recent[0]?.created_at ?? new Date().toISOString())
    const wait = Math.max(1, Math.ceil((oldest + DAY_SECONDS * 1000 - Date.now()) / 1000))
    return new BusinessError('TOO_MANY_ATTEMPTS', 429, `Too many requests today; retry in ${wait} s`, [wait])
  }
  if (recent.length >= REQUESTS_PER_DAY) throw tooMany()
  if (!application) throw invalidField('application.id', 'Unknown or not demandable application', 'validation.unknown')
  if (launchable.length > 0) throw new BusinessError('ACCES_DEJA_OUVERT', 409, 'You may already launch it')
  const pending = () =>
    new BusinessError('DEMANDE_EN_COURS', 409, 'A request of yours for this application is already waiting')
  if (waiting.length > 0) throw pending()
  if (debut < today)
    throw invalidField('dateDebut', 'The period would start in the past', 'validation.requestStartPast')
  if (debut > addDays(today, REQUEST_START_MAX_DAYS))
    throw invalidField(
      'dateDebut',
      `The period must start within ${REQUEST_START_MAX_DAYS} days`,
      'validation.requestStartFar',
    )
  const max = settings?.demande_duree_max_jours ?? 0
  if (daysCounted(debut, fin) > max)
    throw invalidField('dateFin', `The period may last ${max} days at most`, 'validation.requestTooLong')

  const now = new Date()
  const createdAt = now.toISOString()
  const mine = db
    .selectFrom('demande_acces')
    .select('id')
    .where('utilisateur_id', '=', actor.id)
    .where('application_id', '=', application.id)
    .where('etat', '=', 'EN_ATTENTE')
    .where('created_at', '=', createdAt)
  const facts = requestFacts({
    application: application.libelle,
    debut,
    fin,
    motif: input.motif,
    createdAt,
  })
  // The nearest sub-tree's administrators (the deepest scope over the caller), in their language.
  const nearest = managers.filter((manager) => manager.profondeur === managers[0]?.profondeur)
  const mails = approverMails(db, nearest.slice(0, REQUEST_APPROVERS_TOLD), actor, facts, mine, now)
  const written = await namedBatch(ctx.d1, {
    inserted: insertWhen(
      db,
      'demande_acces',
      {
        utilisateur_id: actor.id,
        application_id: application.id,
        motif: input.motif,
        date_debut: debut,
        date_fin: fin,
        created_at: createdAt,
      },
      // Still demandable, and the caller still under the day's count (two requests sent at once).
      demandable.where(sql<SqlBool>`(select count(*) from (${lately})) < ${REQUESTS_PER_DAY}`),
    ).returning('id'),
    event: requestEvent(
      db,
      'demande.creee',
      actor.id,
      (request) => sql<SqlBool>`${request} = last_insert_rowid()`,
      afterOneRow,
      now,
    ),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'DEMANDE_ACCES', 'DEMANDE_CREATION', ctx.request.userAgent, {
        commentaire: `${application.libelle}, ${input.dateDebut} → ${input.dateFin} : ${input.motif}`,
      }),
      mine,
    ),
    mails,
  }).catch((error) => {
    // Another request of the caller for it was written meanwhile: the index of waiting requests refused this one.
    if (uniqueViolation(error)) throw pending()
    throw error
  })
  mailQueued(ctx, written.mails)
  const id = written.inserted?.results[0]?.id
  // The day's count reached meanwhile, or the application taken off the demandable list (or the catalogue).
  if (id === undefined && recent.length >= REQUESTS_PER_DAY - 1) throw tooMany()
  if (id === undefined)
    throw invalidField('application.id', 'Unknown or not demandable application', 'validation.unknown')
  return { id, etat: 'EN_ATTENTE' }
}

/**
 * DELETE rest/bd/demande/{id}: the author withdraws a request still waiting (409 DEMANDE_TRAITEE once decided); anyone
 * else's is unknown (404). The change and its entry are one batch, the entry written only if the change took place.
 */
export async function withdrawRequest(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const own = db
    .selectFrom('demande_acces as d')
    .innerJoin('application as a', 'a.id', 'd.application_id')
    .select(['d.id', 'd.etat', 'a.libelle'])
    .where('d.id', '=', id)
    .where('d.utilisateur_id', '=', caller.id)
  const {
    actor,
    request: [request],
  } = await actorWith(ctx, caller, { request: own })
  if (!request) throw notFound('Unknown request')
  const decided = () => new BusinessError('DEMANDE_TRAITEE', 409, 'This request is no longer waiting')
  if (request.etat !== 'EN_ATTENTE') throw decided()
  const mark = crypto.randomUUID()
  const { withdrawn } = await namedBatch(ctx.d1, {
    withdrawn: db
      .updateTable('demande_acces')
      .set({ etat: 'RETIREE', decided_at: new Date().toISOString(), decision: mark })
      .where('id', '=', id)
      .where('utilisateur_id', '=', actor.id)
      .where('etat', '=', 'EN_ATTENTE')
      .returning('id'),
    event: requestEvent(
      db,
      'demande.retiree',
      actor.id,
      (request) => sql<SqlBool>`${request} = ${id}`,
      sql<SqlBool>`exists ${decidedBy(db, id, mark)}`,
    ),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'DEMANDE_ACCES', 'DEMANDE_RETRAIT', ctx.request.userAgent, {
        commentaire: `#${id} ${request.libelle}`,
      }),
      decidedBy(db, id, mark),
    ),
  })
  if ((withdrawn?.results.length ?? 0) === 0) throw decided()
}
