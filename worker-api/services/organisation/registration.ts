import { type SqlBool, sql } from 'kysely'
import type { CarrierStructure, Registered, RegistrationInput } from '../../contract/organisation/registration'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, invalidField } from '../../lib/errors'
import { uniqueViolation } from '../../lib/query'
import type { Ctx } from '../../lib/types'
import { ofUser, tellAccess } from '../catalogue/access-told'
import { logEntry } from '../core/audit'
import { publicGate } from '../core/captcha'
import { afterOneRow, posteEvents, registrationEvent, userEvent } from '../core/events'
import { mailTaken } from '../core/users'

/**
 * Carrier self-registration (spec §1, §4): a request for a listed carrier company or a typed name waits, inactive, in
 * the queue of the administrators whose scope holds the company (or the carriers' parent) until accepted (a password
 * link; a typed company is created then) or refused (deleted, nothing else was written).
 */

/** The configured carrier type and the structure new carriers hang under (either may be missing). */
export function carrierSettings(ctx: Ctx) {
  const id = (value: string | undefined) => {
    const n = Number(value)
    return Number.isSafeInteger(n) && n > 0 ? n : null
  }
  return { typeId: id(ctx.env.CARRIER_TYPE_ID), parentId: id(ctx.env.CARRIER_PARENT_ID) }
}

/** A registration that cannot be written (spec §8 LISTE_CREATION_FAILED); nothing was. */
export const creationFailed = (message: string) => new BusinessError('LISTE_CREATION_FAILED', 503, message)

/** GET rest/public/bd/transporteur/structures: the carrier companies, by name. */
export async function carrierStructures(ctx: Ctx): Promise<CarrierStructure[]> {
  const { typeId } = carrierSettings(ctx)
  if (typeId === null) return []
  return ctx.db
    .selectFrom('structure')
    .select(['id', 'nom'])
    .where('type_id', '=', typeId)
    .orderBy(sql`nom collate nocase`)
    .orderBy('id')
    .execute()
}

/** The carrier company a registration names: by its id, or by its name in any case (names are unique that way). */
function namedCarrier(db: DB, typeId: number, structure: RegistrationInput['structure']) {
  const carriers = db.selectFrom('structure').select(['id', 'nom']).where('type_id', '=', typeId)
  return 'id' in structure
    ? carriers.where('id', '=', structure.id)
    : carriers.where(sql<SqlBool>`nom = ${structure.nom} collate nocase`)
}

/** The structure a typed company will be created under, if it is configured and of the right type. */
function carriersParent(db: DB, typeId: number, parentId: number | null) {
  return db
    .selectFrom('structure as parent')
    .innerJoin('type_structure as carrier', (join) => join.on('carrier.id', '=', typeId))
    .select('parent.id')
    .where('parent.id', '=', parentId ?? 0)
    .whereRef('parent.type_id', '=', 'carrier.parent_type_id')
}

/**
 * POST rest/public/bd/transporteur/inscription: a pending, inactive user. A typed company name is kept on the
 * registration only, until authorised, so an anonymous visitor writes no structure, holds no name and learns none of
 * the organisation's. The user and the audit entry are one batch: a second registration of the address fails on the
 * unique index and leaves nothing (MAIL_ALREADY_USED).
 */
export async function register(ctx: Ctx, input: RegistrationInput): Promise<Registered> {
  const gate = await publicGate(ctx, {
    kind: 'registration',
    limit: Number(ctx.env.REGISTRATION_RATE_PER_MINUTE ?? 5),
    captcha: input.captcha,
    remoteIp: ctx.request.ip,
  })
  const { typeId, parentId } = carrierSettings(ctx)
  if (typeId === null) {
    gate.check(await namedBatch(ctx.d1, gate.statements))
    throw creationFailed('Carrier registration is not configured')
  }
  const db = ctx.db
  const { mail, nom, prenom } = input.user
  const typed = 'nom' in input.structure ? input.structure.nom : null
  // (`collate nocase`, as the unique index on mail: an exact `=` would scan every user.)
  const holder = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where(sql<SqlBool>`mail = ${mail} collate nocase`)
  // The client's rate and the payload spent, with what the decision reads: one round trip.
  const read = await namedBatch(ctx.d1, {
    ...gate.statements,
    holders: holder,
    carriers: namedCarrier(db, typeId, input.structure),
    parents: carriersParent(db, typeId, parentId),
  })
  gate.check(read)
  if (read.holders?.results.length) throw mailTaken(mail)
  const [carrier] = (read.carriers?.results ?? []) as { id: number; nom: string }[]
  if (typed === null && !carrier) throw invalidField('structure.id', 'Not a carrier company', 'validation.unknown')
  const [parent] = (read.parents?.results ?? []) as { id: number }[]
  if (!carrier && !parent) throw creationFailed('No structure is configured for new carriers')

  const at = new Date().toISOString()
  let written: Record<'user' | 'told' | 'log', D1Result | undefined>
  try {
    written = await namedBatch(ctx.d1, {
      // It waits in its carrier, or the carriers' parent.
      user: pendingUserInsert(
        ctx,
        { mail, nom, prenom },
        { id: carrier?.id ?? parent?.id ?? 0, ...(carrier ? { typeId } : {}) },
        { id: carrier ? carrier.id : null, nom: carrier ? null : typed },
        at,
      ),
      told: registrationEvent(db, 'inscription.creee', 'systeme', sql<number>`(${holder})`, afterOneRow, new Date(at)),
      log: insertWhen(
        db,
        'log',
        {
          ...logEntry(0, 'ADMINISTRATION', 'INSCRIPTION', ctx.request.userAgent, {
            commentaire: `${mail} : ${carrier?.nom ?? typed}`,
          }),
          utilisateur_id: sql<number>`(${holder})`,
        },
        holder,
      ),
    })
  } catch (error) {
    // Another registration took the address meanwhile (the unique index).
    if (uniqueViolation(error)) throw mailTaken(mail)
    throw error
  }
  if (!written.user?.meta.changes) throw creationFailed('The company is no longer available')
  // Only what the visitor typed, or a carrier of the public list, is answered.
  const structure = carrier ? { id: carrier.id, nom: carrier.nom } : { id: null, nom: typed ?? '' }
  return { mail, nom, prenom, structure }
}

/**
 * A registration waiting for an administrator (spec §1): the user, inactive and without a password, in the queue of the
 * structure `waitsIn` (of type `typeId` when given), written only while that structure is still there (the insert
 * reads it); `requested` is the company asked for, a structure or a typed name.
 */
export function pendingUserInsert(
  ctx: Ctx,
  person: { mail: string; nom: string; prenom: string },
  waitsIn: { id: number; typeId?: number },
  requested: { id: number | null; nom: string | null },
  at: string,
) {
  const db = ctx.db
  const structure = db
    .selectFrom('structure as waits_in')
    .where('waits_in.id', '=', waitsIn.id)
    .$if(waitsIn.typeId !== undefined, (q) => q.where('waits_in.type_id', '=', waitsIn.typeId ?? 0))
  return db
    .insertInto('utilisateur')
    .columns([
      'login',
      'nom',
      'prenom',
      'mail',
      'password_hash',
      'actif',
      'domain',
      'langue',
      'registration_state',
      'registration_structure_id',
      'registration_structure_nom',
      'rattachement_id',
      'created_at',
      'updated_at',
    ])
    .expression(
      structure.select([
        sql.val(person.mail).as('login'),
        sql.val(person.nom).as('nom'),
        sql.val(person.prenom).as('prenom'),
        sql.val(person.mail).as('mail'),
        sql.val(null).as('password_hash'),
        sql.val(0).as('actif'),
        sql.val(ctx.request.origin).as('domain'),
        sql.val(ctx.request.language).as('langue'),
        sql.val('PENDING').as('registration_state'),
        sql.val(requested.id).as('registration_structure_id'),
        sql.val(requested.nom).as('registration_structure_nom'),
        'waits_in.id as rattachement_id',
        sql.val(at).as('created_at'),
        sql.val(at).as('updated_at'),
      ]),
    )
}

/**
 * What a carrier's registration completing tells integrators, placed right after the write that completes it (its
 * password set, or its first sign-in through a partner's provider): a user now, with their posts and the access they
 * give, each under the write before it.
 */
export function registrationCompleted(db: DB, userId: number, now: Date) {
  return [
    userEvent(db, 'utilisateur.cree', userId, userId, afterOneRow, now),
    posteEvents(
      db,
      'poste.cree',
      userId,
      (post) => sql<SqlBool>`${post} in (select id from poste where utilisateur_id = ${userId})`,
      afterOneRow,
      now,
    ),
    ...tellAccess(db, userId, ofUser(userId), now),
  ]
}
