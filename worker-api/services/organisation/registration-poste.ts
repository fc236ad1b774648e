import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { fromWireDate } from '../../contract/dates'
import type { AuthorizeInput } from '../../contract/organisation/registration'
import { type DB, type Guard, insertWhen } from '../../db/client'
import type { Database } from '../../db/schema'
import { invalidField } from '../../lib/errors'
import { pathInScope, type Viewer } from '../../lib/scope'
import { logEntry } from '../core/audit'
import { companyOf } from './registration-queue'

/**
 * The post an authorisation gives a carrier (spec §4): a function offered by their company, by id or,
 * for a company created at authorisation, by name, with its dates checked as every post's are.
 */

export type PosteWanted = NonNullable<AuthorizeInput['poste']>

/** A name as SQLite's NOCASE compares it: only A–Z fold (É and é are two letters to it). */
const asciiFold = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase())

/** The field of the post's function, as the request named it. */
export const fonctionField = (wanted: PosteWanted['fonction']) =>
  'id' in wanted ? 'poste.fonction.id' : 'poste.fonction.libelle'

/** The function a post given at authorisation names, among those offered, or 400 on the field. */
export function offeredFonction(offered: { id: number | null; libelle: string }[], wanted: PosteWanted['fonction']) {
  const match =
    'id' in wanted
      ? offered.find((f) => f.id === wanted.id)
      : offered.find((f) => asciiFold(f.libelle) === asciiFold(wanted.libelle))
  if (!match) {
    throw invalidField(fonctionField(wanted), "Not a function of the carrier's company", 'validation.fonctionStructure')
  }
  return match
}

/**
 * The post given at authorisation and its audit entry, written with the link (the activation) unless the carrier
 * already holds it over those dates. `ready` finds a row while the function exists in the company: the link waits for
 * it, so that an activation never goes without the post asked for.
 */
export function posteAtAuthorisation(
  db: DB,
  viewer: Viewer,
  actorId: number,
  target: { id: number; mail: string },
  poste: PosteWanted,
  libelle: string,
  written: Guard,
  userAgent: string | null,
) {
  const company = companyOf(target.id)
  const wanted = poste.fonction
  const named =
    'id' in wanted
      ? sql<SqlBool>`ready.id = ${wanted.id}`
      : sql<SqlBool>`ready.libelle = ${wanted.libelle} collate nocase`
  const ready = db
    .selectFrom('fonction as ready')
    .innerJoin('structure as ready_company', 'ready_company.id', 'ready.structure_id')
    .select('ready.id')
    .where(sql<SqlBool>`ready.structure_id = ${company}`)
    .where(named)
    .where(pathInScope(db, viewer, sql.ref<string>('ready_company.path')))
  const fonction = sql<number>`(${ready.limit(1)})`
  const debut = fromWireDate(poste.dateDebut) ?? ''
  const fin = fromWireDate(poste.dateFin) ?? ''
  const free = (written as SelectQueryBuilder<Database, 'mail_token', { id: number }>).where(({ not, exists }) =>
    not(
      exists(
        db
          .selectFrom('poste as held')
          .select('held.id')
          .where('held.utilisateur_id', '=', target.id)
          .where(sql<SqlBool>`held.fonction_id = ${fonction}`)
          .where('held.date_debut', '<=', fin)
          .where('held.date_fin', '>=', debut),
      ),
    ),
  )
  return {
    ready: ready,
    posteLog: insertWhen(
      db,
      'log',
      logEntry(actorId, 'ADMINISTRATION', 'POSTE_CREATION', userAgent, {
        commentaire: `#${target.id} ${target.mail} : ${libelle}, ${poste.dateDebut} → ${poste.dateFin}`,
      }),
      free,
    ),
    poste: insertWhen(
      db,
      'poste',
      {
        utilisateur_id: target.id,
        structure_id: company as RawBuilder<number>,
        fonction_id: fonction,
        date_debut: debut,
        date_fin: fin,
      },
      free,
    ),
  }
}
