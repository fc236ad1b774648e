import { type Expression, type ExpressionBuilder, type InferResult, sql } from 'kysely'
import { nowIso, toWireDate } from '../../contract/dates'
import type { Poste, User } from '../../contract/organisation/user'
import { type DB, prepared } from '../../db/client'
import type { Database, UtilisateurRow } from '../../db/schema'
import { BusinessError, forbidden, notFound } from '../../lib/errors'
import { isUserAccount, scopeColumns, type Viewer, type ViewerValues, viewerIn, viewerValues } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { type Actor, actorWith, type Caller, viewerOf } from './actor'

/**
 * A user as the API answers them (spec §3): their columns, pending address and posts, and what the
 * viewer may do with them, read in one statement.
 */

type PosteWithPath = Poste & { path: string; current: boolean }

/** A post as the queries below read it (columns of `poste`, its structure and its function). */
type PosteRow = {
  id: number
  utilisateur_id: number
  date_debut: string
  date_fin: string
  structure_id: number
  structure_nom: string
  path: string
  fonction_id: number
  fonction_libelle: string
}

/** Posts in the order of the wire (oldest start first), each marked current or future. */
function toPostes(rows: PosteRow[], today: string): PosteWithPath[] {
  return [...rows]
    .sort((a, b) => (a.date_debut === b.date_debut ? a.id - b.id : a.date_debut < b.date_debut ? -1 : 1))
    .map((r) => ({
      id: r.id,
      structure: { id: r.structure_id, nom: r.structure_nom },
      fonction: { id: r.fonction_id, libelle: r.fonction_libelle },
      utilisateur: { id: r.utilisateur_id },
      dateDebut: toWireDate(r.date_debut),
      dateFin: toWireDate(r.date_fin),
      path: r.path,
      current: r.date_debut <= today,
    }))
}

/**
 * The current and future posts of the user of a query on `utilisateur`, as one JSON column (read
 * back with `postesFrom`): a user and their posts in one statement.
 */
export function postesColumn(today: string) {
  return (eb: ExpressionBuilder<Database, 'utilisateur'>) =>
    eb
      .selectFrom('poste as p')
      .innerJoin('structure as s', 's.id', 'p.structure_id')
      .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
      .select(
        sql<string>`json_group_array(json_object(
          'id', p.id, 'utilisateur_id', p.utilisateur_id, 'date_debut', p.date_debut, 'date_fin', p.date_fin,
          'structure_id', s.id, 'structure_nom', s.nom, 'path', s.path,
          'fonction_id', f.id, 'fonction_libelle', f.libelle))`.as('postes'),
      )
      .whereRef('p.utilisateur_id', '=', 'utilisateur.id')
      .where('p.date_fin', '>=', today)
      .as('postes')
}

export const postesFrom = (column: string | null, today: string) =>
  toPostes(JSON.parse(column ?? '[]') as PosteRow[], today)

function strip({ path: _path, current: _current, ...poste }: PosteWithPath): Poste {
  return poste
}

/**
 * The address a user asked to move to and has not confirmed yet (their latest live request), as a
 * column of a query on `utilisateur`: no round trip of its own.
 */
export function pendingMail(eb: ExpressionBuilder<Database, 'utilisateur'>) {
  return eb
    .selectFrom('mail_token as pending')
    .select('pending.new_mail')
    .whereRef('pending.utilisateur_id', '=', 'utilisateur.id')
    .where('pending.purpose', '=', 'MAIL_CHANGE')
    .where('pending.used_at', 'is', null)
    .where('pending.expires_at', '>', nowIso())
    .orderBy('pending.id', 'desc')
    .limit(1)
    .as('mail_en_attente')
}

/** What a user's answer (spec §3) is made of: the columns it shows and their pending address. */
type UserRow = Pick<
  UtilisateurRow,
  | 'id'
  | 'login'
  | 'nom'
  | 'prenom'
  | 'mail'
  | 'actif'
  | 'supprime'
  | 'admin'
  | 'token_register_expires_at'
  | 'registration_state'
> & { mail_en_attente?: string | null }

export function toUser(row: UserRow, postes: PosteWithPath[], modification: boolean): User {
  return {
    id: row.id,
    login: row.login,
    nom: row.nom,
    prenom: row.prenom,
    mail: row.mail,
    actif: row.actif === 1,
    supprime: row.supprime === 1,
    admin: row.admin === 1,
    modification,
    postesEnCours: postes.filter((p) => p.current).map(strip),
    postesFutur: postes.filter((p) => !p.current).map(strip),
    tokenRegister: row.token_register_expires_at ? Date.parse(row.token_register_expires_at) : null,
    motDePasseChoisi: row.registration_state === 'COMPLETE',
    mailEnAttente: row.mail_en_attente ?? null,
  }
}

/** A user, their pending address, their posts and what the viewer may do with them, in one statement. */
export function userQuery(db: DB, id: number | Expression<number>, viewer: Viewer) {
  return (
    db
      .selectFrom('utilisateur')
      .selectAll()
      .select(pendingMail)
      .select(postesColumn(viewer.today))
      .select(scopeColumns(db, viewer))
      .where('id', '=', id)
      // A pending registration is the authorisation queue's: unknown here (DESIGN §4).
      .where(isUserAccount())
  )
}

/** `userQuery` of a user by id, compiled once per viewer's domain (db/client.ts `prepared`): the pages' hot read. */
const userStatement = prepared(
  (db, values: { id: number } & ViewerValues) => userQuery(db, values.id, viewerIn(values)),
  ['domain'],
)

/** A user by id as `viewer` may see them: `userQuery`, compiled once. */
export const userRead = (db: DB, id: number, viewer: Viewer) => userStatement(db, { id, ...viewerValues(viewer) })

/** The user of a `userQuery` row as `actor` may see them: themself, or a user an admin sees in scope; else 403/404. */
export function userAs(
  actor: Actor,
  id: number,
  row: InferResult<ReturnType<typeof userQuery>>[number] | undefined,
  today: string,
) {
  // A non-admin may read only themself; answering 404 for unknown ids would reveal which exist.
  if (!actor.admin && id !== actor.id) throw forbidden('You may only read your own profile')
  if (!row) throw notFound('Unknown user')
  const postes = postesFrom(row.postes, today)
  if (id === actor.id) return toUser(row, postes, false)
  if (!row.visible) throw forbidden('This user is outside your scope')
  return toUser(row, postes, row.modification === 1)
}

/** GET rest/bd/utilisateur/{id}: the caller's check and the user in one round trip. */
export async function getUser(ctx: Ctx, caller: Caller, id: number): Promise<User> {
  const viewer = viewerOf(caller)
  const { actor, rows } = await actorWith(ctx, caller, { rows: userRead(ctx.db, id, viewer) })
  return userAs(actor, id, rows[0], viewer.today)
}

/** The user as an already checked `actor` may see them (after a write, or to check a permission). */
export async function readUser(db: DB, actor: Actor, id: number): Promise<User> {
  const viewer = viewerOf(actor)
  const { rows } = await db.executeQuery(userRead(db, id, viewer).compile())
  return userAs(actor, id, rows[0], viewer.today)
}

/** MAIL_ALREADY_USED: the address belongs to another account (also when it was taken in a race). */
export const mailTaken = (mail: string) =>
  new BusinessError('MAIL_ALREADY_USED', 409, 'This e-mail address is already used', [mail])
