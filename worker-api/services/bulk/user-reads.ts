import { type SqlBool, sql } from 'kysely'
import type { DB } from '../../db/client'
import { modificationColumn, registrationInScope, userVisible, type Viewer } from '../../lib/scope'

/**
 * What a users file's rows are planned against, read once per chunk: the users its addresses and logins name, whether
 * the importer sees and manages each, and the functions of the structures it names.
 */

/** A user as the rows of a chunk find them. */
export type FoundUser = {
  id: number
  login: string
  mail: string
  nom: string
  prenom: string
  admin: number
  actif: number
  supprime: number
  registration_state: string
  /** Until when their invitation's link lives (null: none sent, or it died). */
  token_register_expires_at: string | null
  version: number
  domain: string
  langue: 'fr' | 'en'
  /** Whether the importer may see them at all (their page, their registration in the importer's queue). */
  visible: number
  modification: number
  /** Their posts, as JSON `[[structure, fonction, 'YYYY-MM-DD', 'YYYY-MM-DD'], …]`. */
  postes: string
}

/**
 * Whether an imported user waits for an invitation nobody sent: invited, active, with none under way (never sent, or
 * lapsed at `now`). What an import that invites sends them, and what its preview counts.
 */
export const awaitsInvitation = (
  found: Pick<FoundUser, 'registration_state' | 'actif' | 'token_register_expires_at'>,
  now: string,
) =>
  found.registration_state === 'INVITED' &&
  found.actif === 1 &&
  (found.token_register_expires_at === null || found.token_register_expires_at < now)

/** A post held: `[structure, fonction, 'YYYY-MM-DD', 'YYYY-MM-DD']`. */
export type HeldPoste = [number, number, string, string]

/** The users whose address or login the chunk names, and the functions of the structures it names: one read. */
export function userChunkReads(db: DB, viewer: Viewer, names: string[], structureIds: number[]) {
  const listed = JSON.stringify(names)
  return {
    users: db
      .selectFrom('utilisateur')
      .select([
        'utilisateur.id',
        'utilisateur.login',
        'utilisateur.mail',
        'utilisateur.nom',
        'utilisateur.prenom',
        'utilisateur.admin',
        'utilisateur.actif',
        'utilisateur.supprime',
        'utilisateur.registration_state',
        'utilisateur.token_register_expires_at',
        'utilisateur.version',
        'utilisateur.domain',
        'utilisateur.langue',
      ])
      .select(
        sql<number>`(${userVisible(db, viewer, 'utilisateur')} or (utilisateur.registration_state = 'PENDING'
        and ${registrationInScope(db, viewer, 'utilisateur')}))`.as('visible'),
      )
      .select(modificationColumn(db, viewer))
      .select(
        sql<string>`(select coalesce(json_group_array(json_array(p.structure_id, p.fonction_id, p.date_debut, p.date_fin)), '[]')
          from poste p where p.utilisateur_id = utilisateur.id)`.as('postes'),
      )
      // Each name down the index of addresses, then of logins (both unique whatever the case).
      .where(
        sql<SqlBool>`utilisateur.id in (
          select by_mail.id from json_each(${listed}) wanted
            join utilisateur by_mail on by_mail.mail = wanted.value collate nocase
          union select by_login.id from json_each(${listed}) wanted
            join utilisateur by_login on by_login.login = wanted.value collate nocase)`,
      ),
    fonctions: db
      .selectFrom('fonction')
      .select(['id', 'libelle', 'structure_id'])
      .where(sql<SqlBool>`structure_id in (select value from json_each(${JSON.stringify(structureIds)}))`)
      .orderBy('libelle'),
  }
}
