import { type Compilable, type Expression, type SqlBool, sql } from 'kysely'
import { fromWireDate, toWireDate } from '../../contract/dates'
import type { DecisionInput, DecisionResult, RequestState } from '../../contract/governance/access-requests'
import { insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden, invalidField } from '../../lib/errors'
import { accessAnsweredMail, mailLanguage } from '../../lib/mail/templates'
import { foreignKeyViolation } from '../../lib/query'
import { pathInScope, userManageable, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { ofUser, tellAccess } from '../catalogue/access-told'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { afterOneRow, posteEvents, requestEvent } from '../core/events'
import { mailQueued, queueMail } from '../core/outbox'
import { checkPlacement, placementReads } from '../organisation/postes'
import { decidedBy, expiryCutoff } from './request-notices'
import { decidable, requestRead, stillWaiting } from './request-reads'

const postTaken = () =>
  new BusinessError('POSTE_ALREADY_EXIST', 409, 'The user already holds this function here over these dates')

const alreadyDecided = () => new BusinessError('DEMANDE_TRAITEE', 409, 'This request is no longer waiting')

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
    alsoOpens,
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
    // What else the post opens: said with the decision, in the history.
    alsoOpens: input.accord
      ? db
          .selectFrom('fonction_application as other')
          .innerJoin('application as a', 'a.id', 'other.application_id')
          .innerJoin('demande_acces as d', (join) => join.on('d.id', '=', id))
          .select('a.libelle')
          .where('other.fonction_id', '=', placement.fonction.id)
          .where('a.actif', '=', 1)
          .whereRef('other.application_id', '<>', 'd.application_id')
          .orderBy('a.libelle')
      : null,
  })
  const request = decidable(found)
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
      event: requestEvent(
        db,
        'demande.refusee',
        actor.id,
        (request) => sql<SqlBool>`${request} = ${id}`,
        sql<SqlBool>`exists ${done}`,
        now,
      ),
      log: entry('DEMANDE_REFUS', ` — ${reason}`),
      mail: tell({ kind: 'refused', admin, commentaire: reason }, { debut: request.date_debut, fin: request.date_fin }),
    })
    if ((written.decided?.results.length ?? 0) === 0) throw await whyNot(ctx, viewer, id, null)
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
  const others = (alsoOpens ?? []).map((other) => other.libelle)
  const opensToo = others.length > 0 ? ` (ouvre aussi : ${others.join(', ')})` : ''
  const written = await namedBatch(ctx.d1, {
    decided: decide('ACCORDEE', [
      sql<SqlBool>`exists ${inScope}`,
      sql<SqlBool>`exists ${granting}`,
      sql<SqlBool>`not exists ${overlapping}`,
    ]),
    poste: insertWhen(db, 'poste', row, done).returning('id'),
    posteEvent: posteEvents(
      db,
      'poste.cree',
      actor.id,
      (post) => sql<SqlBool>`${post} = last_insert_rowid()`,
      afterOneRow,
      now,
    ),
    access: tellAccess(db, actor.id, ofUser(row.utilisateur_id), now, sql<SqlBool>`exists ${done}`),
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
    // Told with the post it opened.
    requestEvent: requestEvent(
      db,
      'demande.accordee',
      actor.id,
      (request) => sql<SqlBool>`${request} = ${id}`,
      sql<SqlBool>`exists ${done}`,
      now,
    ),
    posteLog: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'POSTE_CREATION', ctx.request.userAgent, {
        commentaire: `#${request.user_id} ${request.login} : ${fonction.libelle}, ${structure.nom}, ${dates}`,
      }),
      done,
    ),
    log: entry('DEMANDE_ACCORD', ` — ${fonction.libelle}, ${structure.nom}, ${dates}${opensToo}`),
    mail: tell(
      { kind: 'granted', admin, fonction: fonction.libelle, structure: structure.nom, commentaire },
      { debut, fin },
    ),
  }).catch((error) => {
    // The function was deleted meanwhile (its key refuses the post): nothing was written.
    if (foreignKeyViolation(error)) throw invalidField('fonction.id', 'Unknown function', 'validation.unknown')
    throw error
  })
  if ((written.decided?.results.length ?? 0) === 0) throw await whyNot(ctx, viewer, id, { overlapping, granting })
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
    decidable(request)
  } catch (error) {
    return error as BusinessError
  }
  if ((overlaps?.results.length ?? 0) > 0) return postTaken()
  if (grant && (grants?.results.length ?? 0) === 0)
    return invalidField('fonction.id', 'This function does not open the application', 'validation.fonctionApplication')
  return forbidden('This structure is outside your scope')
}
