import { type SqlBool, sql } from 'kysely'
import type { APPLICATION_SORTS, CatalogueApplication } from '../contract/catalogue'
import { type DB, getDb } from '../db/client'
import type { Env } from '../env'
import { forbidden, notFound } from '../lib/errors'
import { type Viewer, wholeTreeInScope } from '../lib/scope'
import { type Actor, actorWith, type Caller, viewerOf } from './actor'
import { containsText, onePage, WHOLE_LIST_READ, wholeList } from './structures'

/**
 * The catalogue (applications, and which functions grant them) is the root administrators' to
 * manage: administrators with a current post on a root of the tree. The check rides in the batch of
 * the call's reads, as a one-row column.
 */
const rootAdminQuery = (db: DB, viewer: Viewer) =>
  db.selectNoFrom(sql<number>`${wholeTreeInScope(db, viewer)}`.as('root'))

function requireRootAdmin(actor: Actor, row: { root: number } | undefined) {
  if (!actor.admin || !row?.root) throw forbidden('Root administrators only')
}

type FonctionRow = { id: number; libelle: string; structure_id: number; structure_nom: string; path: string }

/**
 * The applications with the functions that grant them (one JSON column) and the number of users who
 * may launch each today: accounts that can sign in (active, not deleted, their password chosen) with a
 * current post of a granting function, of an application switched on — what the launcher derives
 * (DESIGN §4). Only for a root administrator: anyone else's call reads no row (and gets 403).
 */
function catalogueQuery(db: DB, viewer: Viewer) {
  return db
    .selectFrom('application as a')
    .where(wholeTreeInScope(db, viewer))
    .select(['a.id', 'a.libelle', 'a.icone', 'a.url', 'a.actif', 'a.protocole'])
    .select((eb) =>
      eb
        .selectFrom('fonction_application as fa')
        .innerJoin('fonction as f', 'f.id', 'fa.fonction_id')
        .innerJoin('structure as s', 's.id', 'f.structure_id')
        .select(
          sql<string>`json_group_array(json_object('id', f.id, 'libelle', f.libelle, 'structure_id', s.id,
            'structure_nom', s.nom, 'path', s.path))`.as('fonctions'),
        )
        .whereRef('fa.application_id', '=', 'a.id')
        .as('fonctions'),
    )
    .select((eb) =>
      eb
        .selectFrom('poste as p')
        .innerJoin('fonction_application as fa', 'fa.fonction_id', 'p.fonction_id')
        .innerJoin('utilisateur as u', 'u.id', 'p.utilisateur_id')
        .select(sql<number>`count(distinct p.utilisateur_id)`.as('n'))
        .whereRef('fa.application_id', '=', 'a.id')
        .where('a.actif', '=', 1)
        .where('p.date_debut', '<=', viewer.today)
        .where('p.date_fin', '>=', viewer.today)
        .where('u.actif', '=', 1)
        .where('u.supprime', '=', 0)
        .where('u.registration_state', '=', 'COMPLETE')
        .as('nb_utilisateurs'),
    )
}

type CatalogueRow = {
  id: number
  libelle: string
  icone: string
  url: string
  actif: number
  protocole: 'CODE'
  fonctions: string | null
  nb_utilisateurs: number | null
}

function toApplication(row: CatalogueRow): CatalogueApplication {
  const fonctions = (JSON.parse(row.fonctions ?? '[]') as FonctionRow[]).sort(
    (a, b) => a.path.localeCompare(b.path) || a.libelle.localeCompare(b.libelle, 'fr'),
  )
  return {
    id: row.id,
    libelle: row.libelle,
    icone: row.icone,
    url: row.url,
    actif: row.actif === 1,
    protocole: row.protocole,
    fonctions: fonctions.map((f) => ({
      id: f.id,
      libelle: f.libelle,
      structure: { id: f.structure_id, nom: f.structure_nom },
    })),
    nbUtilisateurs: row.nb_utilisateurs ?? 0,
  }
}

/**
 * GET rest/bd/application: the catalogue, searched by name, sorted by name or by how many may launch
 * each, whole or one page (its total in X-Total-Count).
 */
export async function listApplications(
  env: Env,
  caller: Caller,
  query: {
    page?: number | undefined
    taille?: number | undefined
    q?: string | undefined
    tri?: (typeof APPLICATION_SORTS)[number] | undefined
  },
): Promise<{ items: CatalogueApplication[]; total: number }> {
  const db = getDb(env.DB)
  const viewer = viewerOf(caller)
  // The name as typed (LIKE: any ASCII case), bounded as every search box is.
  const filter = query.q ? containsText(['a.libelle'], query.q) : sql<SqlBool>`1`
  const tri = query.tri ?? 'libelle'
  const direction = tri.startsWith('-') ? 'desc' : 'asc'
  const filtered = catalogueQuery(db, viewer).where(filter)
  const sorted = (tri.endsWith('nbUtilisateurs') ? filtered.orderBy('nb_utilisateurs', direction) : filtered).orderBy(
    sql`a.libelle collate nocase`,
    tri === '-libelle' ? 'desc' : 'asc',
  )
  const list = query.page === undefined ? sorted.limit(WHOLE_LIST_READ) : onePage(sorted, query)
  const count = db
    .selectFrom('application as a')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where(wholeTreeInScope(db, viewer))
    .where(filter)
  const [actor, [root], rows, [counted]] = await actorWith(env, caller, rootAdminQuery(db, viewer), list, count)
  requireRootAdmin(actor, root)
  const items = (rows as CatalogueRow[]).map(toApplication)
  return { items: query.page === undefined ? wholeList(items) : items, total: counted?.total ?? 0 }
}

/** GET rest/bd/application/{id}: one application of the catalogue. */
export async function getApplication(env: Env, caller: Caller, id: number): Promise<CatalogueApplication> {
  const db = getDb(env.DB)
  const viewer = viewerOf(caller)
  const [actor, [root], [row]] = await actorWith(
    env,
    caller,
    rootAdminQuery(db, viewer),
    catalogueQuery(db, viewer).where('a.id', '=', id),
  )
  requireRootAdmin(actor, root)
  if (!row) throw notFound('Unknown application')
  return toApplication(row as CatalogueRow)
}
