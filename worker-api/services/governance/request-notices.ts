import { type SqlBool, sql } from 'kysely'
import { addDays, addSeconds, todayIso, toWireDate } from '../../contract/dates'
import {
  REQUEST_APPROVERS_TOLD,
  REQUEST_ESCALATION_DAYS,
  REQUEST_EXPIRY_DAYS,
} from '../../contract/governance/access-requests'
import { batch, type DB, insertWhen, namedBatch } from '../../db/client'
import { accessAnsweredMail, accessRequestedMail, mailLanguage, type RequestFacts } from '../../lib/mail/templates'
import { type UserManager, userManagers } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'
import { requestEvent } from '../core/events'
import { queueMail } from '../core/outbox'

/** The last day a request made at `createdAt` (an instant) waits for a decision, 'YYYY-MM-DD'. */
export const expiryDay = (createdAt: string) => addDays(todayIso(new Date(createdAt)), REQUEST_EXPIRY_DAYS)

/** The instant before which a request made is past its waiting time (`REQUEST_EXPIRY_DAYS`). */
export const expiryCutoff = (now = new Date()) => addSeconds(-REQUEST_EXPIRY_DAYS * 24 * 3600, now).toISOString()

/** A row while request `id` carries the mark of the batch that changed it: that change took place. */
export const decidedBy = (db: DB, id: number, mark: string) =>
  db.selectFrom('demande_acces').select('id').where('id', '=', id).where(sql<SqlBool>`decision = ${mark}`)

/** What the mails of a request name, its dates ('YYYY-MM-DD') as the screens write them. */
export function requestFacts(request: {
  application: string
  debut: string
  fin: string
  motif: string
  createdAt: string
}): RequestFacts {
  return {
    application: request.application,
    debut: toWireDate(request.debut),
    fin: toWireDate(request.fin),
    motif: request.motif,
    expiration: toWireDate(expiryDay(request.createdAt)),
  }
}

/** The condition a mail is queued under (`queueMail`'s). */
type MailCondition = NonNullable<Parameters<typeof queueMail>[3]>

/** Where an administrator decides the requests: on the domain their account is bound to. */
const requestsPage = (domain: string) => `${domain.replace(/\/+$/, '')}/pages/admin/demandes`

/**
 * The mail of each administrator told of a request, in their language, written only if `onlyIf` finds a row at its
 * place in the batch; `waitingDays` set, the reminder of a request still waiting.
 */
export function approverMails(
  db: DB,
  approvers: UserManager[],
  requester: { nom: string; prenom: string },
  facts: RequestFacts,
  onlyIf: MailCondition,
  now: Date,
  waitingDays?: number,
) {
  const demandeur = `${requester.prenom} ${requester.nom}`
  return approvers.map((approver) =>
    queueMail(
      db,
      {
        ...accessRequestedMail(
          mailLanguage(approver.langue),
          approver,
          demandeur,
          facts,
          requestsPage(approver.domain),
          waitingDays,
        ),
        to: approver.mail,
        userId: approver.id,
        kind: 'ACCESS_REQUEST',
      },
      now,
      onlyIf,
    ),
  )
}

/**
 * The requests one run of the hourly job expires (three statements each) or escalates (one, and a mail to each of up to
 * `REQUEST_APPROVERS_TOLD` administrators) at most, each run one batch well under a thousand statements; the next run
 * takes the rest.
 */
const EXPIRED_PER_RUN = 100
const ESCALATED_PER_RUN = 25

const DAY_SECONDS = 24 * 3600

/** A waiting request with what its mails name, for the hourly job. */
function waitingRequests(db: DB, before: string, limit: number) {
  return db
    .selectFrom('demande_acces as d')
    .innerJoin('application as a', 'a.id', 'd.application_id')
    .innerJoin('utilisateur as u', 'u.id', 'd.utilisateur_id')
    .select([
      'd.id',
      'd.utilisateur_id',
      'd.motif',
      'd.date_debut',
      'd.date_fin',
      'd.created_at',
      'a.libelle',
      'u.nom',
      'u.prenom',
      'u.mail',
      'u.langue',
      'u.supprime',
    ])
    .where('d.etat', '=', 'EN_ATTENTE')
    .where('d.created_at', '<', before)
    .orderBy('d.created_at')
    .limit(limit)
}

/**
 * The hourly job of the requests: one undecided for `REQUEST_EXPIRY_DAYS` expires (its author told, the history says
 * so); one undecided for `REQUEST_ESCALATION_DAYS` is told, once, to the administrators of the next sub-tree up.
 * Each change is guarded by the request still waiting, so a decision made meanwhile wins.
 */
export async function requestDeadlines(ctx: Ctx, now = new Date()) {
  return { expired: await expireRequests(ctx, now), escalated: await escalateRequests(ctx, now) }
}

async function expireRequests(ctx: Ctx, now: Date) {
  const db = ctx.db
  const rows = await waitingRequests(db, expiryCutoff(now), EXPIRED_PER_RUN).execute()
  if (rows.length === 0) return 0
  const at = now.toISOString()
  const statements = rows.flatMap((row) => {
    const mark = crypto.randomUUID()
    const done = decidedBy(db, row.id, mark)
    return [
      db
        .updateTable('demande_acces')
        .set({ etat: 'EXPIREE', decided_at: at, decision: mark })
        .where('id', '=', row.id)
        .where('etat', '=', 'EN_ATTENTE'),
      requestEvent(
        db,
        'demande.expiree',
        'systeme',
        (request) => sql<SqlBool>`${request} = ${row.id}`,
        sql<SqlBool>`exists ${done}`,
        now,
      ),
      insertWhen(
        db,
        'log',
        logEntry(row.utilisateur_id, 'DEMANDE_ACCES', 'DEMANDE_EXPIRATION', null, {
          commentaire: `#${row.id} ${row.libelle}`,
        }),
        done,
      ),
      // A deleted user is told nothing.
      row.supprime
        ? null
        : queueMail(
            db,
            {
              ...accessAnsweredMail(
                mailLanguage(row.langue),
                row,
                { kind: 'expired', days: REQUEST_EXPIRY_DAYS },
                { application: row.libelle, debut: toWireDate(row.date_debut), fin: toWireDate(row.date_fin) },
              ),
              to: row.mail,
              userId: row.utilisateur_id,
              kind: 'ACCESS_DECISION',
            },
            now,
            done,
          ),
    ]
  })
  await batch(
    ctx.d1,
    statements.filter((statement) => statement !== null),
  )
  return rows.length
}

async function escalateRequests(ctx: Ctx, now: Date) {
  const db = ctx.db
  const before = addSeconds(-REQUEST_ESCALATION_DAYS * DAY_SECONDS, now).toISOString()
  const rows = await waitingRequests(db, before, ESCALATED_PER_RUN)
    .where('d.relance_at', 'is', null)
    .where('u.supprime', '=', 0)
    .execute()
  if (rows.length === 0) return 0
  const today = todayIso(now)
  const managers = await batch(
    ctx.d1,
    rows.map((row) => userManagers(row.utilisateur_id, today)),
  )
  const at = now.toISOString()
  const statements = rows.flatMap((row, index) => {
    const found = (managers[index]?.results ?? []) as UserManager[]
    // The ring after the nearest: the administrators of the next sub-tree up (none left: the nearest again).
    const depths = [...new Set(found.map((manager) => manager.profondeur))]
    const ring = depths[1] ?? depths[0]
    const told = found.filter((manager) => manager.profondeur === ring).slice(0, REQUEST_APPROVERS_TOLD)
    const escalated = db
      .selectFrom('demande_acces')
      .select('id')
      .where('id', '=', row.id)
      .where('etat', '=', 'EN_ATTENTE')
      .where(sql<SqlBool>`relance_at = ${at}`)
    const facts = requestFacts({
      application: row.libelle,
      debut: row.date_debut,
      fin: row.date_fin,
      motif: row.motif,
      createdAt: row.created_at,
    })
    const days = Math.floor((now.getTime() - Date.parse(row.created_at)) / (DAY_SECONDS * 1000))
    return [
      db
        .updateTable('demande_acces')
        .set({ relance_at: at })
        .where('id', '=', row.id)
        .where('etat', '=', 'EN_ATTENTE')
        .where('relance_at', 'is', null),
      ...approverMails(db, told, row, facts, escalated, now, days),
    ]
  })
  await namedBatch(ctx.d1, { statements })
  return rows.length
}
