import { sql } from 'kysely'
import type { ProfileInput } from '../contract/user'
import { batch, type DB, getDb } from '../db/client'
import type { UtilisateurRow } from '../db/schema'
import type { Env } from '../env'
import { todayIso, toWireDate } from '../lib/dates'
import { sameDomain } from '../lib/domain'
import { BusinessError, forbidden, notFound } from '../lib/errors'
import { mailChangedMail, mailLanguage } from '../lib/mail/templates'
import type { Actor } from './actor'
import { voidResetLinks } from './mail-tokens'
import { queuedIds, queueMail } from './outbox'

export type Poste = {
  id: number
  structure: { id: number; nom: string }
  fonction: { id: number; libelle: string }
  utilisateur: { id: number }
  dateDebut: string
  dateFin: string
}

export type User = {
  id: number
  login: string
  nom: string
  prenom: string
  mail: string
  actif: boolean
  supprime: boolean
  admin: boolean
  modification: boolean
  postesEnCours: Poste[]
  postesFutur: Poste[]
  /** Expiry of the pending registration token, in epoch milliseconds, or null. */
  tokenRegister: number | null
}

type PosteWithPath = Poste & { path: string; current: boolean }

/** Current (today within the range) and future posts of some users, oldest start first. */
export async function postesOf(db: DB, userIds: number[], today = todayIso()): Promise<PosteWithPath[]> {
  if (userIds.length === 0) return []
  const rows = await db
    .selectFrom('poste as p')
    .innerJoin('structure as s', 's.id', 'p.structure_id')
    .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
    .select([
      'p.id',
      'p.utilisateur_id',
      'p.date_debut',
      'p.date_fin',
      's.id as structure_id',
      's.nom as structure_nom',
      's.path',
      'f.id as fonction_id',
      'f.libelle as fonction_libelle',
    ])
    .where('p.utilisateur_id', 'in', userIds)
    .where('p.date_fin', '>=', today)
    .orderBy('p.date_debut')
    .orderBy('p.id')
    .execute()
  return rows.map((r) => ({
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

/** An admin's scope: the paths of the structures where they hold a current post (DESIGN §4). */
export async function adminScope(db: DB, actor: Actor, today = todayIso()): Promise<string[]> {
  if (!actor.admin) return []
  const rows = await db
    .selectFrom('poste as p')
    .innerJoin('structure as s', 's.id', 'p.structure_id')
    .select('s.path')
    .where('p.utilisateur_id', '=', actor.id)
    .where('p.date_debut', '<=', today)
    .where('p.date_fin', '>=', today)
    .execute()
  return rows.map((r) => r.path)
}

export const inScope = (path: string, scope: string[]) => scope.some((root) => path.startsWith(root))

/** DESIGN §4: may this admin manage a user with these current and future posts? */
export function canManage(actor: Actor, target: UtilisateurRow, postes: PosteWithPath[], scope: string[]) {
  if (!actor.admin || target.id === actor.id) return false
  if (postes.length === 0) return sameDomain(target.domain, actor.domain)
  return postes.every((p) => inScope(p.path, scope))
}

/** May this admin see the user at all: one post in scope, or no post and the same domain. */
function canSee(actor: Actor, target: UtilisateurRow, postes: PosteWithPath[], scope: string[]) {
  if (!actor.admin) return false
  if (postes.length === 0) return sameDomain(target.domain, actor.domain)
  return postes.some((p) => inScope(p.path, scope))
}

function strip({ path: _path, current: _current, ...poste }: PosteWithPath): Poste {
  return poste
}

export function toUser(row: UtilisateurRow, postes: PosteWithPath[], modification: boolean): User {
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
  }
}

/** The user as `actor` may see them: themself, or a user an admin sees in scope; else 403/404. */
export async function getUser(db: DB, actor: Actor, id: number): Promise<User> {
  // A non-admin may read only themself; answering 404 for unknown ids would reveal which exist.
  if (!actor.admin && id !== actor.id) throw forbidden('You may only read your own profile')
  // Independent reads, in parallel: this runs on every page load (the layout's guard).
  const [row, postes, scope] = await Promise.all([
    db.selectFrom('utilisateur').selectAll().where('id', '=', id).executeTakeFirst(),
    postesOf(db, [id]),
    id === actor.id ? [] : adminScope(db, actor),
  ])
  if (!row) throw notFound('Unknown user')
  if (id === actor.id) return toUser(row, postes, false)
  if (!canSee(actor, row, postes, scope)) throw forbidden('This user is outside your scope')
  return toUser(row, postes, canManage(actor, row, postes, scope))
}

/**
 * PUT rest/bd/utilisateur/{id}: nom, prenom and mail (spec §5; the login stays). A user edits
 * themself; an admin edits a user whose `modification` flag they get (DESIGN §4). A new mail must be
 * free; the former address is told of the change, in the same batch.
 */
export async function updateProfile(env: Env, actor: Actor, id: number, input: ProfileInput): Promise<number[]> {
  const db = getDb(env.DB)
  // The permission check and the reads the update needs, in parallel; a refusal still comes first.
  const [, row, taken] = await Promise.all([
    id === actor.id
      ? null
      : getUser(db, actor, id).then((target) => {
          if (!target.modification) throw forbidden('You may not edit this user')
        }),
    db
      .selectFrom('utilisateur')
      .select(['id', 'login', 'nom', 'prenom', 'mail', 'langue'])
      .where('id', '=', id)
      .executeTakeFirst(),
    db
      .selectFrom('utilisateur')
      .select('id')
      .where(sql<boolean>`mail = ${input.mail} COLLATE NOCASE`)
      .where('id', '!=', id)
      .executeTakeFirst(),
  ])
  if (!row) throw notFound('Unknown user')
  if (taken) throw new BusinessError('MAIL_ALREADY_USED', 409, 'This e-mail address is already used', [input.mail])
  const now = new Date()
  const update = db
    .updateTable('utilisateur')
    .set({ nom: input.nom, prenom: input.prenom, mail: input.mail, updated_at: now.toISOString() })
    .where('id', '=', id)
  const mailChanged = row.mail.toLowerCase() !== input.mail.toLowerCase()
  // A reset link sent to the former address must not outlive the change.
  const notice = mailChanged
    ? [
        voidResetLinks(db, id, now.toISOString()),
        queueMail(
          db,
          {
            ...mailChangedMail(mailLanguage(row.langue), { ...row, ...input }, input.mail),
            to: row.mail,
            userId: id,
            kind: 'MAIL_CHANGED',
          },
          now,
        ),
      ]
    : []
  try {
    return queuedIds(await batch(env.DB, [update, ...notice]))
  } catch (error) {
    // Another request took the address meanwhile (the unique index): the same answer as above.
    if (String(error).includes('UNIQUE')) {
      throw new BusinessError('MAIL_ALREADY_USED', 409, 'This e-mail address is already used', [input.mail])
    }
    throw error
  }
}
