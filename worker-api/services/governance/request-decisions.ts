import { type Compilable, type Expression, type SqlBool, sql } from 'kysely'
import {
  type DecisionInput,
  type DecisionResult,
  type PendingRequest,
  type PendingRequestsQuery,
  REQUEST_PROPOSALS_MAX,
  type RequestDetail,
  type RequestState,
} from '../../contract/access-requests'
import { fromWireDate, toWireDate } from '../../contract/dates'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden, invalidField, notFound } from '../../lib/errors'
import { accessAnsweredMail, mailLanguage } from '../../lib/mail/templates'
import { containsEveryWord, onePage } from '../../lib/query'
import { modificationColumn, pathInScope, userManageable, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { mailQueued, queueMail } from '../core/outbox'
import { checkPlacement, placementReads } from '../organisation/postes'
import { decidedBy, expiryCutoff, expiryDay } from './request-notices'

/** A request with its requester (under `utilisateur`, as the scope's rules read a user) and its application. */
function requestsQuery(db: DB, viewer: Viewer) {
  const postes = sql<string>`(select coalesce(json_group_array(json_array(held.structure_id, held.nom, held.fonction_id,
      held.libelle, held.date_debut, held.date_fin)), '[]')
    from (select p.structure_id, s.nom, p.fonction_id, f.libelle, p.date_debut, p.date_fin from poste p
      join structure s on s.id = p.structure_id join fonction f on f.id = p.fonction_id
      where p.utilisateur_id = utilisateur.id and p.date_fin >= ${viewer.today} order by p.date_debut, p.id) held)`
  return db
    .selectFrom('demande_acces as d')
    .innerJoin('utilisateur', 'utilisateur.id', 'd.utilisateur_id')
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
    .$if(search !== null, (q) => q.where(search as NonNullable<typeof search>))
  const direction = query.tri === '-dateDemande' ? 'desc' : 'asc'
  const { rows, total } = await adminWith(ctx, caller, {
    rows: onePage(waiting.orderBy('d.created_at', direction).orderBy('d.id', direction), query),
    total: query.page === undefined ? null : waiting.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')),
  })
  return { items: rows.map(toPendingRequest), total: total?.[0]?.total ?? null }
}

/** The request `id` with whether the viewer manages its requester (`modification`). */
const requestRead = (db: DB, viewer: Viewer, id: number) =>
  requestsQuery(db, viewer).select(modificationColumn(db, viewer)).where('d.id', '=', id)

/** A request the caller may decide: 403 their own, 404 unknown or another administrator's. */
function decidable<R extends { user_id: number; modification: number; supprime: number }>(
  row: R | undefined,
  actorId: number,
): R {
  if (row?.user_id === actorId) throw forbidden('Nobody decides their own request')
  if (!row?.modification || row.supprime) throw notFound('Unknown request')
  return row
}

/** Whether a request still waits: not decided, and not past its waiting time (expired, whatever the job has done). */
const stillWaiting = (request: { etat: RequestState; created_at: string }) =>
  request.etat === 'EN_ATTENTE' && request.created_at > expiryCutoff()

const postTaken = () =>
  new BusinessError('POSTE_ALREADY_EXIST', 409, 'The user already holds this function here over these dates')

const alreadyDecided = () => new BusinessError('DEMANDE_TRAITEE', 409, 'This request is no longer waiting')

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
  const search = containsEveryWord(['s.nom', 'f.libelle'], q)
  const actuelle = sql<number>`exists (select 1 from poste held where held.utilisateur_id = d.utilisateur_id
    and held.structure_id = s.id and held.date_fin >= ${viewer.today})`
  const proposals = db
    .selectFrom('demande_acces as d')
    .innerJoin('fonction_application as fa', 'fa.application_id', 'd.application_id')
    .innerJoin('fonction as f', 'f.id', 'fa.fonction_id')
    .innerJoin('structure as s', 's.id', 'f.structure_id')
    .select(['f.id as fonction_id', 'f.libelle', 's.id as structure_id', 's.nom'])
    .select(actuelle.as('actuelle'))
    .where('d.id', '=', id)
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
    .$if(search !== null, (query) => query.where(search as NonNullable<typeof search>))
    .orderBy(sql`${actuelle}`, 'desc')
    .orderBy('s.path')
    .orderBy('f.libelle')
    .limit(REQUEST_PROPOSALS_MAX)
  const {
    actor,
    request: [found],
    proposals: rows,
  } = await adminWith(ctx, caller, { request: requestRead(db, viewer, id), proposals })
  const request = decidable(found, actor.id)
  return {
    ...toPendingRequest(request),
    etat: request.etat,
    propositions: rows.map((row) => ({
      fonction: { id: row.fonction_id, libelle: row.libelle },
      structure: { id: row.structure_id, nom: row.nom },
      actuelle: row.actuelle === 1,
    })),
  }
}

/**
 * POST rest/bd/demande/{id}/decision. Granting creates the post that opens the application — a function of a structure
 * of the caller's scope that grants it, over the request's dates unless others are given — with the post's own entry;
 * refusing takes a reason. The requester is told by mail either way. The request's state changes first, in the batch,
 * under every check read before (still waiting, the requester still the caller's to manage, the structure in scope,
 * the function granting the application, no overlapping post): two administrators deciding at once, one wins and the
 * other gets 409 DEMANDE_TRAITEE. The rest of the batch is written only under the mark of that change.
 */
export async function decideRequest(
  ctx: Ctx,
  caller: Caller,
  id: number,
  input: DecisionInput,
): Promise<DecisionResult> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const placement = {
    structure: { id: input.structure?.id ?? 0 },
    fonction: { id: input.fonction?.id ?? 0 },
  }
  // The post's period: the one given, else the request's (read in SQL, so that the overlap is read with the request).
  const asked = (column: 'date_debut' | 'date_fin', wire: string | undefined) =>
    wire
      ? sql<string>`${fromWireDate(wire) ?? ''}`
      : sql<string>`(select ${sql.ref(column)} from demande_acces where id = ${id})`
  const overlapping = db
    .selectFrom('poste')
    .select('poste.id')
    .where('poste.utilisateur_id', '=', sql<number>`(select utilisateur_id from demande_acces where id = ${id})`)
    .where('poste.structure_id', '=', placement.structure.id)
    .where('poste.fonction_id', '=', placement.fonction.id)
    .where(sql<SqlBool>`poste.date_debut <= ${asked('date_fin', input.dateFin)}`)
    .where(sql<SqlBool>`poste.date_fin >= ${asked('date_debut', input.dateDebut)}`)
  const {
    actor,
    request: [found],
    structures,
    fonctions,
    grants,
    overlaps,
  } = await adminWith(ctx, caller, {
    request: requestRead(db, viewer, id),
    ...(input.accord ? placementReads(db, viewer, placement) : { structures: null, fonctions: null }),
    grants: input.accord
      ? db
          .selectFrom('fonction_application as fa')
          .innerJoin('demande_acces as d', 'd.application_id', 'fa.application_id')
          .select('fa.fonction_id')
          .where('d.id', '=', id)
          .where('fa.fonction_id', '=', placement.fonction.id)
      : null,
    overlaps: input.accord ? overlapping.limit(1) : null,
  })
  const request = decidable(found, actor.id)
  if (!stillWaiting(request)) throw alreadyDecided()
  const commentaire = input.commentaire?.trim() || null
  const mark = crypto.randomUUID()
  const done = decidedBy(db, id, mark)
  const now = new Date()
  const admin = `${actor.prenom} ${actor.nom}`.trim()
  const facts = { application: request.libelle, debut: '', fin: '' }
  const requester = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where('utilisateur.id', '=', request.user_id)
    .where('utilisateur.supprime', '=', 0)
    .where(userManageable(db, viewer))
  const decide = (etat: RequestState, guards: Expression<SqlBool>[] = []) =>
    db
      .updateTable('demande_acces')
      .set({ etat, decided_at: now.toISOString(), decideur_id: actor.id, commentaire, decision: mark })
      .where('id', '=', id)
      .where('etat', '=', 'EN_ATTENTE')
      .where('created_at', '>', expiryCutoff(now))
      .where(({ exists }) => exists(requester))
      .$call((query) => guards.reduce((q, guard) => q.where(guard), query))
      .returning('id')
  const tell = (answer: Parameters<typeof accessAnsweredMail>[2], dates: { debut: string; fin: string }) =>
    queueMail(
      db,
      {
        ...accessAnsweredMail(mailLanguage(request.langue), request, answer, {
          ...facts,
          debut: toWireDate(dates.debut),
          fin: toWireDate(dates.fin),
        }),
        to: request.mail,
        userId: request.user_id,
        kind: 'ACCESS_DECISION',
      },
      now,
      done,
    )
  const entry = (nomLog: 'DEMANDE_ACCORD' | 'DEMANDE_REFUS', detail: string) =>
    insertWhen(
      db,
      'log',
      logEntry(actor.id, 'DEMANDE_ACCES', nomLog, ctx.request.userAgent, {
        commentaire: `#${id} #${request.user_id} ${request.login} : ${request.libelle}${detail}`,
      }),
      done,
    )

  if (!input.accord) {
    const reason = commentaire ?? ''
    const written = await namedBatch(ctx.d1, {
      decided: decide('REFUSEE'),
      log: entry('DEMANDE_REFUS', ` — ${reason}`),
      mail: tell({ kind: 'refused', admin, commentaire: reason }, { debut: request.date_debut, fin: request.date_fin }),
    })
    if ((written.decided?.results.length ?? 0) === 0) throw await whyNot(ctx, viewer, id, actor.id, null)
    mailQueued(ctx, [written.mail])
    return { id, etat: 'REFUSEE', poste: null }
  }

  const debut = input.dateDebut ? (fromWireDate(input.dateDebut) ?? '') : request.date_debut
  const fin = input.dateFin ? (fromWireDate(input.dateFin) ?? '') : request.date_fin
  if (fin < debut) throw invalidField('dateFin', 'The end comes before the start', 'validation.dateRange')
  const { structure, fonction } = checkPlacement(structures?.[0], fonctions?.[0], fin, viewer.today)
  if ((grants ?? []).length === 0)
    throw invalidField('fonction.id', 'This function does not open the application', 'validation.fonctionApplication')
  const row = {
    utilisateur_id: request.user_id,
    structure_id: structure.id,
    fonction_id: fonction.id,
    date_debut: debut,
    date_fin: fin,
  }
  if ((overlaps ?? []).length > 0) throw postTaken()
  const inScope = db
    .selectFrom('structure as placed')
    .select('placed.id')
    .where('placed.id', '=', structure.id)
    .where(pathInScope(db, viewer, sql.ref<string>('placed.path')))
  const granting = db
    .selectFrom('fonction_application')
    .select('fonction_id')
    .where('fonction_id', '=', fonction.id)
    .where('application_id', '=', request.application_id)
  const dates = `${toWireDate(debut)} → ${toWireDate(fin)}`
  const written = await namedBatch(ctx.d1, {
    decided: decide('ACCORDEE', [
      sql<SqlBool>`exists ${inScope}`,
      sql<SqlBool>`exists ${granting}`,
      sql<SqlBool>`not exists ${overlapping}`,
    ]),
    poste: insertWhen(db, 'poste', row, done).returning('id'),
    linked: db
      .updateTable('demande_acces')
      .set({
        poste_id: db
          .selectFrom('poste')
          .select((eb) => eb.fn.max('poste.id').as('id'))
          .where('poste.utilisateur_id', '=', row.utilisateur_id)
          .where('poste.structure_id', '=', row.structure_id)
          .where('poste.fonction_id', '=', row.fonction_id)
          .where('poste.date_debut', '=', debut)
          .where('poste.date_fin', '=', fin),
      })
      .where('id', '=', id)
      .where(sql<SqlBool>`decision = ${mark}`),
    posteLog: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'POSTE_CREATION', ctx.request.userAgent, {
        commentaire: `#${request.user_id} ${request.login} : ${fonction.libelle}, ${structure.nom}, ${dates}`,
      }),
      done,
    ),
    log: entry('DEMANDE_ACCORD', ` — ${fonction.libelle}, ${structure.nom}, ${dates}`),
    mail: tell(
      { kind: 'granted', admin, fonction: fonction.libelle, structure: structure.nom, commentaire },
      { debut, fin },
    ),
  }).catch((error) => {
    // The function was deleted meanwhile (its key refuses the post): nothing was written.
    if (String(error).includes('FOREIGN KEY'))
      throw invalidField('fonction.id', 'Unknown function', 'validation.unknown')
    throw error
  })
  if ((written.decided?.results.length ?? 0) === 0)
    throw await whyNot(ctx, viewer, id, actor.id, { overlapping, granting })
  mailQueued(ctx, [written.mail])
  return { id, etat: 'ACCORDEE', poste: { id: written.poste?.results[0]?.id ?? 0 } }
}

/**
 * Why a decision's change did not take place, as the request stands now: decided or expired meanwhile (409), its
 * requester no longer the caller's (404), an overlapping post written meanwhile (409), the function no longer granting
 * the application (400), else the structure left the caller's scope (403).
 */
async function whyNot(
  ctx: Ctx,
  viewer: Viewer,
  id: number,
  actorId: number,
  grant: { overlapping: Compilable; granting: Compilable } | null,
): Promise<BusinessError> {
  const db = ctx.db
  const { now, overlaps, grants } = await namedBatch(ctx.d1, {
    now: requestRead(db, viewer, id),
    overlaps: grant?.overlapping ?? null,
    grants: grant?.granting ?? null,
  })
  const request = now?.results[0]
  if (request && !stillWaiting(request)) return alreadyDecided()
  try {
    decidable(request, actorId)
  } catch (error) {
    return error as BusinessError
  }
  if ((overlaps?.results.length ?? 0) > 0) return postTaken()
  if (grant && (grants?.results.length ?? 0) === 0)
    return invalidField('fonction.id', 'This function does not open the application', 'validation.fonctionApplication')
  return forbidden('This structure is outside your scope')
}
