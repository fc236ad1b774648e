import { sql } from 'kysely'
import type { Lien } from '../../contract/federation/links'
import type { DB } from '../../db/client'

/** A user's links to partners' identity providers, by provider name: the security page's and the administrators'. */
export const linksOf = (db: DB, userId: number) =>
  db
    .selectFrom('lien_fournisseur as l')
    .innerJoin('fournisseur as f', 'f.id', 'l.fournisseur_id')
    .select(['f.id', 'f.nom', 'l.mail', 'l.created_at', 'l.derniere_connexion'])
    .where('l.utilisateur_id', '=', userId)
    .orderBy(sql`f.nom collate nocase`)

type LinkRow = { id: number; nom: string; mail: string | null; created_at: string; derniere_connexion: string | null }

export const toLien = (row: LinkRow): Lien => ({
  fournisseur: { id: row.id, nom: row.nom },
  mail: row.mail,
  creeLe: row.created_at,
  derniereConnexion: row.derniere_connexion,
})
