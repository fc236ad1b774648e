import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { addSeconds, fromWireDate, todayIso } from '../../contract/dates'
import type { AuthorizeInput, AuthorizeResult } from '../../contract/organisation/registration'
import { type DB, type Guard, insertWhen, namedBatch } from '../../db/client'
import type { Database, NewLog } from '../../db/schema'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { linkOrigin } from '../../lib/domain'
import { BusinessError, invalidField, notFound } from '../../lib/errors'
import { mailLanguage, registrationMail } from '../../lib/mail/templates'
import { wireDateSql } from '../../lib/query'
import { registrationInScope } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { copyTemplate } from '../catalogue/templates'
import { type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { registrationEvent } from '../core/events'
import { REGISTRATION_TTL_HOURS, underHourlyCap, voidLinks } from '../core/mail-tokens'
import { mailQueued, queueMail } from '../core/outbox'
import { requireNotOver } from './postes'
import { carrierSettings, creationFailed } from './registration'
import { fonctionField, offeredFonction, posteAtAuthorisation } from './registration-poste'
import { type PendingRow, pendingTarget, toPendingUser } from './registration-queue'
import { insertStructure } from './structure-writes'
import { nomTaken } from './structures'

/**
 * The authorisation of a carrier's registration (spec §4): accepted with a post (the company it typed
 * created then, from its type's template) and a link to choose a password, or refused.
 */

/** Links an administrator may send one registration per hour (each is a mail). */
export const REGISTRATION_LINKS_PER_HOUR = 5

/**
 * POST rest/bd/authorize/user (spec §4, §7): a link to choose a password (7 days, `REGISTRATION_LINKS_PER_HOUR`), and a
 * typed company created in the same batch, unless another kind of structure holds the name (409
 * STRUCTURE_NOM_ALREADY_USED). Refusing deletes the registration. Every write holds only while the registration is
 * pending, so two administrators acting at once leave one outcome.
 */
export async function authorizeRegistration(ctx: Ctx, caller: Caller, input: AuthorizeInput): Promise<AuthorizeResult> {
  const { db, actor, target, holder, read, offered } = await pendingTarget(ctx, caller, input.user.id)
  const id = target.id
  const stillPending = db
    .selectFrom('utilisateur')
    .select('id')
    .where('id', '=', id)
    .where('registration_state', '=', 'PENDING')
    .where('supprime', '=', 0)
    // Still in the caller's queue as the batch runs (its structure may have moved meanwhile).
    .where(registrationInScope(db, viewerOf(caller), 'utilisateur'))
  const log = (nomLog: string) =>
    logEntry(actor.id, 'ADMINISTRATION', nomLog, ctx.request.userAgent, { commentaire: `#${id} ${target.mail}` })

  if (!input.authorize) {
    const refused = await namedBatch(ctx.d1, {
      told: registrationEvent(db, 'inscription.refusee', actor.id, id, sql<SqlBool>`exists ${stillPending}`),
      log: insertWhen(db, 'log', log('INSCRIPTION_REFUS'), stillPending),
      // The post an authorisation gave goes with the registration: said as its own deletion is.
      postesLog: postesGoneLog(
        db,
        target,
        logEntry(actor.id, 'ADMINISTRATION', 'POSTE_SUPPRESSION', ctx.request.userAgent),
        stillPending,
      ),
      deleted: db
        .deleteFrom('utilisateur')
        .where('id', '=', id)
        .where('registration_state', '=', 'PENDING')
        .where('supprime', '=', 0),
    })
    if ((refused.deleted?.meta.changes ?? 0) === 0) throw notFound('Unknown registration')
    return { supprime: true, user: toPendingUser(target) }
  }

  const { typeId } = carrierSettings(ctx)
  const typed = target.registration_structure_id === null ? target.registration_structure_nom : null
  if (typed !== null && holder && holder.type_id !== typeId) throw nomTaken(typed)
  const fonction = input.poste ? offeredFonction(offered, input.poste.fonction) : null
  if (input.poste) requireNotOver(fromWireDate(input.poste.dateFin) ?? '', todayIso(), 'poste.dateFin')
  const now = new Date()
  const at = now.toISOString()
  const token = randomToken()
  const tokenHash = await sha256Hex(token)
  const expiresAt = addSeconds(REGISTRATION_TTL_HOURS * 3600, now).toISOString()
  const url = `${linkOrigin(target.domain, ctx.request.origin)}/renewPassword/${token}`
  const company = target.company_nom ?? holder?.nom ?? typed ?? ''
  const mail = registrationMail(mailLanguage(target.langue), target, company, url, REGISTRATION_TTL_HOURS)
  const written = db.selectFrom('mail_token').select('id').where('token_hash', '=', tokenHash)
  // The cap's count is an aggregate, which yields a row even when nothing matches: the pending
  // condition must enclose it, not sit inside it.
  const underCap = stillPending.where(({ exists }) =>
    exists(underHourlyCap(db, id, 'REGISTRATION', REGISTRATION_LINKS_PER_HOUR, now)),
  )
  const companyWrites =
    typed === null || typeId === null
      ? null
      : typedCompany(db, actor.id, target, typed, typeId, underCap, at, ctx.request.userAgent)
  const posteWrites =
    input.poste && fonction
      ? posteAtAuthorisation(
          db,
          viewerOf(caller),
          actor.id,
          target,
          input.poste,
          fonction.libelle,
          written,
          ctx.request.userAgent,
        )
      : null
  const results = await namedBatch(ctx.d1, {
    creationLog: companyWrites?.creationLog ?? null,
    company: companyWrites?.company ?? null,
    templateFonctions: companyWrites?.templateFonctions ?? null,
    templateGrants: companyWrites?.templateGrants ?? null,
    attached: companyWrites?.attached ?? null,
    // No link until the registration has its company.
    linked: insertWhen(
      db,
      'mail_token',
      {
        token_hash: tokenHash,
        utilisateur_id: id,
        purpose: 'REGISTRATION',
        adresse: sql<string>`(select u.mail from utilisateur u where u.id = ${id})`,
        expires_at: expiresAt,
        created_at: at,
      },
      underCap
        .where('registration_structure_id', 'is not', null)
        .where(({ exists }) => (posteWrites ? exists(posteWrites.ready) : sql<SqlBool>`1`)),
    ),
    voided: voidLinks(db, id, 'REGISTRATION', at)
      .where('token_hash', '!=', tokenHash)
      .where(({ exists }) => exists(written)),
    activated: db
      .updateTable('utilisateur')
      .set({ actif: 1, token_register_expires_at: expiresAt, updated_at: at })
      .where('id', '=', id)
      .where(({ exists }) => exists(written)),
    // Told once: the link sent again later is no new decision.
    told: target.token_register_expires_at
      ? null
      : registrationEvent(db, 'inscription.validee', actor.id, id, sql<SqlBool>`exists ${written}`, now),
    posteLog: posteWrites?.posteLog ?? null,
    poste: posteWrites?.poste ?? null,
    queued: queueMail(db, { ...mail, to: target.mail, userId: id, kind: 'REGISTRATION' }, now, written),
    validationLog: insertWhen(
      db,
      'log',
      log(target.token_register_expires_at ? 'INSCRIPTION_RENVOI' : 'INSCRIPTION_VALIDATION'),
      written,
    ),
    after: read,
    state: db
      .selectFrom('utilisateur')
      .select(['registration_state', 'supprime', 'registration_structure_id'])
      .where('id', '=', id),
    holder: companyWrites?.holder ?? null,
    ready: posteWrites?.ready ?? null,
  })
  const [updated] = (results.after?.results ?? []) as PendingRow[]
  const [state] = (results.state?.results ?? []) as RegistrationState[]
  if (!updated) throw noLongerPending(state)
  if (typed !== null && updated.registration_structure_id === null) {
    throw noCompany(typed, typeId, (results.holder?.results ?? [])[0] as { type_id: number } | undefined)
  }
  if ((results.linked?.meta.changes ?? 0) === 0 && posteWrites && (results.ready?.results.length ?? 0) === 0) {
    // The function was deleted (or renamed) between the check and the write.
    throw invalidField(
      fonctionField(input.poste?.fonction ?? { id: 0 }),
      "Not a function of the carrier's company",
      'validation.fonctionStructure',
    )
  }
  if ((results.linked?.meta.changes ?? 0) === 0) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many links for this registration; retry later', [3600])
  }
  const queued = results.queued
  if (queued) mailQueued(ctx, [queued])
  return { supprime: false, user: toPendingUser(updated) }
}

/**
 * The writes giving a registration its typed company, each guarded when it runs (still pending, still typed, under the
 * link cap): the company and its audit entry when no structure holds the name, then the registration joins the carrier
 * company of that name, created now or meanwhile. `holder` reads what holds the name.
 */
function typedCompany(
  db: DB,
  actorId: number,
  target: PendingRow,
  typed: string,
  typeId: number,
  underCap: SelectQueryBuilder<Database, 'utilisateur', { id: number }>,
  at: string,
  userAgent: string | null,
) {
  const named = (alias: string) => sql<SqlBool>`${sql.ref(`${alias}.nom`)} = ${typed} collate nocase`
  const carrier = db
    .selectFrom('structure as carrier')
    .select('carrier.id')
    .where('carrier.type_id', '=', typeId)
    .where(named('carrier'))
  const stillTyped = underCap
    .where('registration_structure_id', 'is', null)
    .where('registration_structure_nom', '=', typed)
  const creatable = stillTyped.where(({ not, exists }) =>
    not(exists(db.selectFrom('structure as taken').select('taken.id').where(named('taken')))),
  )
  // The structure it waits in, still there (its deletion is refused while registrations wait in it).
  const parentId = target.rattachement_id ?? 0
  const parentExists = creatable.where(({ exists }) =>
    exists(db.selectFrom('structure as parent').select('parent.id').where('parent.id', '=', parentId)),
  )
  return {
    creationLog: insertWhen(
      db,
      'log',
      logEntry(actorId, 'ADMINISTRATION', 'STRUCTURE_CREATION', userAgent, {
        commentaire: `${typed} (#${target.id} ${target.mail})`,
      }),
      parentExists,
    ),
    company: insertStructure(db, { nom: typed, typeId, parentId, createdAt: at }, creatable),
    // The new company starts with its type's functions, so that the carrier can be given a post.
    ...templateCopy(copyTemplate(db, sql<number>`(${carrier})`, typeId, at)),
    attached: db
      .updateTable('utilisateur')
      .set({ registration_structure_id: sql<number>`(${carrier})`, registration_structure_nom: null, updated_at: at })
      .where('id', '=', target.id)
      .where(({ exists }) => exists(stillTyped))
      .where(({ exists }) => exists(carrier)),
    holder: db.selectFrom('structure as holder').select(['holder.id', 'holder.type_id']).where(named('holder')),
  }
}

/** `copyTemplate`'s two statements, named for the authorisation's batch. */
function templateCopy([templateFonctions, templateGrants]: ReturnType<typeof copyTemplate>) {
  return { templateFonctions, templateGrants }
}

type RegistrationState = { registration_state: string; supprime: number }

/**
 * A `POSTE_SUPPRESSION` entry (`entry`, its comment aside) for each post of a registration, as the
 * authorisation's `POSTE_CREATION` said it (`#id mail : function, start → end`), written while
 * `condition` holds — before the registration's deletion takes its posts with it.
 */
function postesGoneLog(db: DB, target: { id: number; mail: string }, entry: NewLog, condition: Guard) {
  const { commentaire: _, ...fixed } = entry
  return db
    .insertInto('log')
    .columns([...(Object.keys(fixed) as (keyof NewLog)[]), 'commentaire'])
    .expression(
      db
        .selectFrom('poste as p')
        .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
        .select((eb) => [
          ...Object.entries(fixed).map(([column, value]) => eb.val(value).as(column)),
          sql<string>`${`#${target.id} ${target.mail} : `} || f.libelle || ', ' || ${wireDateSql('p.date_debut')}
            || ' → ' || ${wireDateSql('p.date_fin')}`.as('commentaire'),
        ])
        .where('p.utilisateur_id', '=', target.id)
        .where(({ exists }) => exists(condition))
        .orderBy('p.id'),
    )
}

/**
 * Why a registration read at the start of a decision was no longer pending at its write: refused or
 * deleted meanwhile (gone: 404), or completed, its password chosen (409: nothing left to decide).
 */
function noLongerPending(state: RegistrationState | undefined) {
  if (!state || state.supprime === 1 || state.registration_state === 'PENDING') {
    return notFound('Unknown registration')
  }
  return new BusinessError('LISTE_UPDATE_FAILED', 409, 'This registration is no longer pending')
}

/**
 * Why an authorised registration did not get the company it typed: another kind of structure took
 * the name meanwhile (409, the name as the carrier typed it), or the structure it waited in is gone.
 */
function noCompany(typed: string, typeId: number | null, holder: { type_id: number } | undefined) {
  if (holder && holder.type_id !== typeId) return nomTaken(typed)
  return creationFailed('No structure to create the company under')
}
