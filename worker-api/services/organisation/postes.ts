import { type InferResult, type SqlBool, sql } from 'kysely'
import { fromWireDate, toWireDate } from '../../contract/dates'
import type { PosteInput, PosteUpdate } from '../../contract/organisation/structure'
import type { Poste } from '../../contract/organisation/user'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden, invalidField, notFound } from '../../lib/errors'
import { foreignKeyViolation } from '../../lib/query'
import {
  inScopeColumn,
  isUserAccount,
  modificationColumn,
  pathInScope,
  userManageable,
  type Viewer,
} from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { countsOn, ofUser, tellAccess } from '../catalogue/access-told'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { afterOneRow, posteEvents } from '../core/events'

/**
 * The structure and the function a new post names (with whether the structure lies in the viewer's
 * scope), for the batch of the caller's check.
 */
export function placementReads(db: DB, viewer: Viewer, input: { structure: { id: number }; fonction: { id: number } }) {
  return {
    structures: db
      .selectFrom('structure as s')
      .select(['s.id', 's.nom'])
      .select(inScopeColumn(db, viewer, 's'))
      .where('s.id', '=', input.structure.id),
    fonctions: db.selectFrom('fonction').select(['id', 'libelle', 'structure_id']).where('id', '=', input.fonction.id),
  }
}

type Placement = InferResult<ReturnType<typeof placementReads>['structures']>[number]
type PlacementFonction = InferResult<ReturnType<typeof placementReads>['fonctions']>[number]

/**
 * The rules of a new post's place (spec §5, DESIGN §4): a structure of the scope, one of its own
 * functions, an end not past; refusals name the body's fields under `prefix` (`poste.` at creation).
 */
export function checkPlacement(
  structure: Placement | undefined,
  fonction: PlacementFonction | undefined,
  fin: string,
  today: string,
  prefix = '',
) {
  if (!structure) throw invalidField(`${prefix}structure.id`, 'Unknown structure', 'validation.unknown')
  if (!structure.in_scope) throw forbidden('This structure is outside your scope')
  if (!fonction) throw invalidField(`${prefix}fonction.id`, 'Unknown function', 'validation.unknown')
  if (fonction.structure_id !== structure.id)
    throw invalidField(
      `${prefix}fonction.id`,
      'This function does not belong to the structure',
      'validation.fonctionStructure',
    )
  requireNotOver(fin, today, `${prefix}dateFin`)
  return { structure, fonction }
}

/** A post given or changed must not be over already (its end `fin`, 'YYYY-MM-DD'): else 400 on `field`. */
export function requireNotOver(fin: string, today: string, field: string) {
  if (fin < today) throw invalidField(field, 'The post would already be over', 'validation.datePast')
}

/**
 * POST rest/bd/poste (spec §7): a function of a structure in scope, over a date range, to a user the caller may manage
 * (`modification`, DESIGN §4). POSTE_ALREADY_EXIST if the user holds it there on any day of the range, a check the
 * insert repeats; its audit entry is written only with it.
 */
export async function createPoste(ctx: Ctx, caller: Caller, input: PosteInput): Promise<Poste> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const debut = fromWireDate(input.dateDebut) ?? ''
  const fin = fromWireDate(input.dateFin) ?? ''
  const overlapping = db
    .selectFrom('poste')
    .select('poste.id')
    .where('poste.utilisateur_id', '=', input.utilisateur.id)
    .where('poste.structure_id', '=', input.structure.id)
    .where('poste.fonction_id', '=', input.fonction.id)
    .where('poste.date_debut', '<=', fin)
    .where('poste.date_fin', '>=', debut)
  const {
    actor,
    structures,
    fonctions,
    user: [user],
    overlaps,
  } = await adminWith(ctx, caller, {
    ...placementReads(db, viewer, input),
    user: db
      .selectFrom('utilisateur')
      .select(['utilisateur.id', 'utilisateur.login', 'utilisateur.supprime'])
      .select(modificationColumn(db, viewer))
      .where('utilisateur.id', '=', input.utilisateur.id)
      // A pending registration is the authorisation queue's: unknown here (DESIGN §4).
      .where(isUserAccount()),
    overlaps: overlapping.limit(1),
  })
  const { structure, fonction } = checkPlacement(structures[0], fonctions[0], fin, viewer.today)
  if (!user) throw invalidField('utilisateur.id', 'Unknown user', 'validation.unknown')
  // Out of scope first: whether someone else's user is deleted is not the caller's to learn.
  if (!user.modification) throw forbidden('You may not manage this user')
  if (user.supprime) throw invalidField('utilisateur.id', 'Unknown user', 'validation.unknown')
  const exists = () =>
    new BusinessError('POSTE_ALREADY_EXIST', 409, 'The user already holds this function here over these dates')
  if (overlaps.length > 0) throw exists()

  const manageable = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where('utilisateur.id', '=', user.id)
    .where('utilisateur.supprime', '=', 0)
    .where(userManageable(db, viewer))
  const row = {
    utilisateur_id: user.id,
    structure_id: structure.id,
    fonction_id: fonction.id,
    date_debut: debut,
    date_fin: fin,
  }
  // The post, once written.
  const written = db
    .selectFrom('poste')
    .select('poste.id')
    .where('poste.utilisateur_id', '=', row.utilisateur_id)
    .where('poste.structure_id', '=', row.structure_id)
    .where('poste.fonction_id', '=', row.fonction_id)
    .where('poste.date_debut', '=', row.date_debut)
    .where('poste.date_fin', '=', row.date_fin)
  const { inserted } = await namedBatch(ctx.d1, {
    inserted: insertWhen(
      db,
      'poste',
      row,
      // Free over these dates, and the user still the caller's to manage (the check above, held here).
      db
        .selectNoFrom(sql.lit(1).as('free'))
        .where(({ not, exists }) => not(exists(overlapping)))
        .where(({ exists }) => exists(manageable)),
    ).returning('id'),
    event: posteEvents(db, 'poste.cree', actor.id, (id) => sql<SqlBool>`${id} = last_insert_rowid()`, afterOneRow),
    access: countsOn(viewer.today, { debut, fin })
      ? tellAccess(db, actor.id, ofUser(user.id), undefined, sql<SqlBool>`exists ${written}`)
      : null,
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'POSTE_CREATION', ctx.request.userAgent, {
        commentaire: `#${user.id} ${user.login} : ${fonction.libelle}, ${structure.nom}, ${input.dateDebut} → ${input.dateFin}`,
      }),
      written,
    ),
  }).catch((error) => {
    // The function was deleted meanwhile (its key refuses the post): nothing was written.
    if (foreignKeyViolation(error)) throw invalidField('fonction.id', 'Unknown function', 'validation.unknown')
    throw error
  })
  const created = inserted?.results[0]
  // An overlapping post was written between the check and the insert.
  if (!created) throw exists()
  return {
    id: created.id,
    structure: { id: structure.id, nom: structure.nom },
    fonction: { id: fonction.id, libelle: fonction.libelle },
    utilisateur: { id: user.id },
    dateDebut: toWireDate(debut),
    dateFin: toWireDate(fin),
  }
}

/** A post with what its checks need: its place, its user, whether both are the viewer's to manage. */
function posteQuery(db: DB, viewer: Viewer, id: number) {
  return db
    .selectFrom('poste as p')
    .innerJoin('structure as s', 's.id', 'p.structure_id')
    .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
    .innerJoin('utilisateur as u', 'u.id', 'p.utilisateur_id')
    .select([
      'p.id',
      'p.date_debut',
      'p.date_fin',
      'p.structure_id',
      'p.fonction_id',
      's.nom as structure_nom',
      'f.libelle',
      'u.id as user_id',
      'u.login',
    ])
    .select([inScopeColumn(db, viewer, 's'), modificationColumn(db, viewer, 'u')])
    .where('p.id', '=', id)
}

/**
 * A row while the post `id` is still the viewer's to change as the statement runs: its structure in
 * scope and its user theirs to manage (the checks read before, held inside the write).
 */
function posteManageable(db: DB, viewer: Viewer, id: number) {
  return db
    .selectFrom('poste as held')
    .innerJoin('structure as held_structure', 'held_structure.id', 'held.structure_id')
    .innerJoin('utilisateur', 'utilisateur.id', 'held.utilisateur_id')
    .select('held.id')
    .where('held.id', '=', id)
    .where(pathInScope(db, viewer, sql.ref<string>('held_structure.path')))
    .where(userManageable(db, viewer))
}

const describePoste = (poste: { user_id: number; login: string; libelle: string; structure_nom: string }) =>
  `#${poste.user_id} ${poste.login} : ${poste.libelle}, ${poste.structure_nom}`

/**
 * PUT rest/bd/poste: a post's new period (what "extend" does on the administration home), under the
 * rules of its creation: a post of the caller's scope whose user they may manage, an end not past,
 * no overlap with another post of the same function there (POSTE_ALREADY_EXIST). The update re-checks
 * them when it runs; its audit entry is written under the same condition.
 */
export async function updatePoste(ctx: Ctx, caller: Caller, input: PosteUpdate): Promise<Poste> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const debut = fromWireDate(input.dateDebut) ?? ''
  const fin = fromWireDate(input.dateFin) ?? ''
  const same = sql<SqlBool>`other.utilisateur_id = p.utilisateur_id and other.structure_id = p.structure_id
    and other.fonction_id = p.fonction_id`
  const overlapping = db
    .selectFrom('poste as other')
    .innerJoin('poste as p', (join) => join.on(same))
    .select('other.id')
    .where('p.id', '=', input.id)
    .where('other.id', '!=', input.id)
    .where('other.date_debut', '<=', fin)
    .where('other.date_fin', '>=', debut)
  const {
    actor,
    poste: [poste],
    overlaps,
  } = await adminWith(ctx, caller, { poste: posteQuery(db, viewer, input.id), overlaps: overlapping.limit(1) })
  if (!poste) throw notFound('Unknown post')
  if (!poste.in_scope || !poste.modification) throw forbidden('You may not manage this post')
  requireNotOver(fin, viewer.today, 'dateFin')
  const taken = () =>
    new BusinessError('POSTE_ALREADY_EXIST', 409, 'The user already holds this function here over these dates')
  if (overlaps.length > 0) throw taken()
  const guard = posteManageable(db, viewer, input.id).where(({ not, exists }) => not(exists(overlapping)))
  const { updated } = await namedBatch(ctx.d1, {
    // Before the update, under its very condition.
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'POSTE_MODIFICATION', ctx.request.userAgent, {
        commentaire: `${describePoste(poste)}, ${toWireDate(poste.date_debut)} → ${toWireDate(poste.date_fin)} devient ${input.dateDebut} → ${input.dateFin}`,
      }),
      guard,
    ),
    updated: db
      .updateTable('poste')
      .set({ date_debut: debut, date_fin: fin })
      .where('id', '=', input.id)
      .where(({ exists }) => exists(guard))
      .returning('id'),
    // Integrators hear of new dates only (the same ones sent again are no change).
    event:
      poste.date_debut === debut && poste.date_fin === fin
        ? null
        : posteEvents(db, 'poste.modifie', actor.id, (id) => sql<SqlBool>`${id} = ${input.id}`, afterOneRow),
    // Its new dates start or stop it counting today: what that gives or takes away.
    access:
      countsOn(viewer.today, { debut: poste.date_debut, fin: poste.date_fin }) !==
      countsOn(viewer.today, { debut, fin })
        ? tellAccess(db, actor.id, ofUser(poste.user_id), undefined, sql<SqlBool>`exists ${guard}`)
        : null,
  })
  if ((updated?.results.length ?? 0) === 0) {
    // Between the check and the write: the post was deleted, left the caller's reach, or another
    // post now overlaps it. The post as it stands says which.
    const [now] = await posteQuery(db, viewer, input.id).execute()
    if (!now) throw notFound('Unknown post')
    if (!now.in_scope || !now.modification) throw forbidden('You may not manage this post')
    throw taken()
  }
  return {
    id: poste.id,
    structure: { id: poste.structure_id, nom: poste.structure_nom },
    fonction: { id: poste.fonction_id, libelle: poste.libelle },
    utilisateur: { id: poste.user_id },
    dateDebut: toWireDate(debut),
    dateFin: toWireDate(fin),
  }
}

/**
 * DELETE rest/bd/poste/suppression/{id}: an administrator removes a post of a user they may manage
 * (spec §6: "when the user's modification flag allows"), in a structure of their scope; with its
 * audit entry in the same batch, both under those conditions as the batch runs.
 */
export async function deletePoste(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    actor,
    poste: [poste],
  } = await adminWith(ctx, caller, { poste: posteQuery(db, viewer, id) })
  if (!poste) throw notFound('Unknown post')
  if (!poste.in_scope || !poste.modification) throw forbidden('You may not manage this post')
  const guard = posteManageable(db, viewer, id)
  const { deleted } = await namedBatch(ctx.d1, {
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'POSTE_SUPPRESSION', ctx.request.userAgent, {
        commentaire: `${describePoste(poste)}, ${toWireDate(poste.date_debut)} → ${toWireDate(poste.date_fin)}`,
      }),
      guard,
    ),
    // Before the deletion, while the post is there to tell of.
    event: posteEvents(
      db,
      'poste.supprime',
      actor.id,
      (post) => sql<SqlBool>`${post} = ${id}`,
      sql<SqlBool>`exists ${guard}`,
    ),
    deleted: db
      .deleteFrom('poste')
      .where('id', '=', id)
      .where(({ exists }) => exists(guard))
      .returning('id'),
    // Under the deletion's condition: the post gone.
    access: countsOn(viewer.today, { debut: poste.date_debut, fin: poste.date_fin })
      ? tellAccess(
          db,
          actor.id,
          ofUser(poste.user_id),
          undefined,
          sql<SqlBool>`not exists (select 1 from poste where id = ${id})`,
        )
      : null,
  })
  if ((deleted?.results.length ?? 0) === 0) {
    // Deleted meanwhile (404), or no longer the caller's to manage (403).
    const [now] = await posteQuery(db, viewer, id).execute()
    throw now ? forbidden('You may not manage this post') : notFound('Unknown post')
  }
}
