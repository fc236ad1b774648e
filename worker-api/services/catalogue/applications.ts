import { type Expression, type SqlBool, sql } from 'kysely'
import {
  type APPLICATION_SORTS,
  type CatalogueApplication,
  LIST_GRANTS_SHOWN,
} from '../../contract/catalogue/catalogue'
import { type DB, prepared } from '../../db/client'
import { notFound } from '../../lib/errors'
import { containsPattern, pageWindow, sortOf, WHOLE_LIST_READ, wholeList } from '../../lib/query'
import { type Viewer, type ViewerValues, viewerIn, viewerValues, wholeTreeInScope } from '../../lib/scope'
import { likePattern } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { type Caller, rootAdminWith, viewerOf } from '../core/actor'
import { CLIENT_COLUMNS, type ClientColumns, toClient } from './oidc-clients'
import { SAML_COLUMNS, type SamlColumns, toSamlProvider } from './saml-providers'

/**
 * The catalogue's reads (the root administrators'): each application with the functions that grant it
 * and how many users may launch it today, that count kept between writes.
 */

type FonctionRow = { id: number; libelle: string; structure_id: number; structure_nom: string; path: string }

/**
 * The number of users who may launch an application today: accounts that can sign in (active, not
 * deleted, their password chosen) with a current post of a granting function, of an application
 * switched on — what the launcher derives (DESIGN §4).
 */
function launchersCount(db: DB, today: string, application: Expression<number>) {
  return db
    .selectFrom('poste as p')
    .innerJoin('fonction_application as fa', 'fa.fonction_id', 'p.fonction_id')
    .innerJoin('utilisateur as u', 'u.id', 'p.utilisateur_id')
    .innerJoin('application as counted', 'counted.id', 'fa.application_id')
    .select(sql<number>`count(distinct p.utilisateur_id)`.as('n'))
    .where('fa.application_id', '=', application)
    .where('counted.actif', '=', 1)
    .where('p.date_debut', '<=', today)
    .where('p.date_fin', '>=', today)
    .where('u.actif', '=', 1)
    .where('u.supprime', '=', 0)
    .where('u.registration_state', '=', 'COMPLETE')
}

/** Where an application's count of today is kept (`utilisateur_liste_total`, migration 0020). */
const keptCountKey = (today: string, application: Expression<number>) =>
  sql<string>`json_array('application', ${today}, ${application})`

/** An application's count of today as kept (no row while it is not). */
const keptCount = (db: DB, today: string, application: Expression<number>) =>
  db
    .selectFrom('utilisateur_liste_total as kept')
    .select('kept.total')
    .where('kept.cle', '=', keptCountKey(today, application))

/**
 * Counts and keeps today's `nbUtilisateurs` of the applications read (`which`, on `a`) not kept yet, for a root
 * administrator only, as the read. Counting them all takes 0.4 s on 100 000 users; the triggers of migrations 0010 and
 * 0020 empty the kept counts on any user, post or grant write, and the key holds the day.
 */
function keepLaunchersCounts(db: DB, viewer: Viewer, which: Expression<SqlBool>) {
  const id = sql.ref<number>('a.id')
  return db
    .insertInto('utilisateur_liste_total')
    .columns(['cle', 'jour', 'total'])
    .expression(
      db
        .selectFrom('application as a')
        .select([
          keptCountKey(viewer.today, id).as('cle'),
          sql<string>`${viewer.today}`.as('jour'),
          launchersCount(db, viewer.today, id).as('total'),
        ])
        .where(which)
        .where(wholeTreeInScope(db, viewer))
        .where(({ not, exists }) => not(exists(keptCount(db, viewer.today, id)))),
    )
    .onConflict((oc) => oc.column('cle').doNothing())
}

/**
 * The applications with the functions that grant them (one JSON column) and the number of users who
 * may launch each today: kept (`keepLaunchersCounts`, earlier in the same batch) or, for what a write
 * answers, counted. Only for a root administrator: anyone else's call reads no row (and gets 403).
 */
export function catalogueQuery(db: DB, viewer: Viewer, counts: 'kept' | 'counted' = 'counted', fonctionsMax?: number) {
  const id = sql.ref<number>('a.id')
  // The granting functions in the order the answer gives them (by structure, then name), the first
  // `fonctionsMax` only when asked: an application may be granted by thousands.
  const granting = db
    .selectFrom('fonction_application as fa')
    .innerJoin('fonction as f', 'f.id', 'fa.fonction_id')
    .innerJoin('structure as s', 's.id', 'f.structure_id')
    .select(['f.id', 'f.libelle', 's.id as structure_id', 's.nom as structure_nom', 's.path'])
    .where(sql<SqlBool>`fa.application_id = a.id`)
    .orderBy('s.path')
    .orderBy(sql`f.libelle collate nocase`)
    .$if(fonctionsMax !== undefined, (q) => q.limit(fonctionsMax ?? 0))
  return db
    .selectFrom('application as a')
    .leftJoin('oidc_client as c', 'c.application_id', 'a.id')
    .leftJoin('saml_sp as sp', 'sp.application_id', 'a.id')
    .where(wholeTreeInScope(db, viewer))
    .select([
      'a.id',
      'a.libelle',
      'a.icone',
      'a.url',
      'a.actif',
      'a.demandable',
      'a.protocole',
      ...CLIENT_COLUMNS,
      ...SAML_COLUMNS,
    ])
    .select((eb) =>
      eb
        .selectFrom(granting.as('g'))
        .select(
          sql<string>`json_group_array(json_object('id', g.id, 'libelle', g.libelle, 'structure_id', g.structure_id,
            'structure_nom', g.structure_nom, 'path', g.path))`.as('fonctions'),
        )
        .as('fonctions'),
    )
    .select((eb) =>
      eb
        .selectFrom('fonction_application as counted')
        .select((count) => count.fn.countAll<number>().as('n'))
        .whereRef('counted.application_id', '=', 'a.id')
        .as('nb_fonctions'),
    )
    .select(() =>
      (counts === 'kept' ? keptCount(db, viewer.today, id) : launchersCount(db, viewer.today, id)).as(
        'nb_utilisateurs',
      ),
    )
}

export type CatalogueRow = ClientColumns &
  SamlColumns & {
    id: number
    libelle: string
    icone: string
    url: string
    actif: number
    demandable: number
    protocole: 'CODE' | 'OIDC' | 'SAML'
    fonctions: string | null
    nb_fonctions: number | null
    nb_utilisateurs: number | null
  }

export function toApplication(row: CatalogueRow): CatalogueApplication {
  const fonctions = (JSON.parse(row.fonctions ?? '[]') as FonctionRow[]).sort(
    (a, b) => a.path.localeCompare(b.path) || a.libelle.localeCompare(b.libelle, 'fr'),
  )
  return {
    id: row.id,
    libelle: row.libelle,
    icone: row.icone,
    url: row.url,
    actif: row.actif === 1,
    demandable: row.demandable === 1,
    protocole: row.protocole,
    oidc: row.protocole === 'OIDC' ? toClient(row) : null,
    saml: row.protocole === 'SAML' ? toSamlProvider(row) : null,
    fonctions: fonctions.map((f) => ({
      id: f.id,
      libelle: f.libelle,
      structure: { id: f.structure_id, nom: f.structure_nom },
    })),
    nbFonctions: row.nb_fonctions ?? 0,
    nbUtilisateurs: row.nb_utilisateurs ?? 0,
  }
}

/**
 * What the list's statements bind (`prepared`): the viewer and the name searched, as a pattern. The viewer's domain
 * and whether a name is searched decide the SQL (and, for the page, whether each application's grants are cut).
 */
type ListValues = ViewerValues & { searched: boolean; pattern?: string }
const LIST_SHAPE = ['domain', 'searched'] as const

const listFilter = (values: ListValues) =>
  values.searched ? containsPattern(['a.libelle'], values.pattern ?? '') : sql<SqlBool>`1`

const pageStatement = prepared(
  (
    db,
    values: ListValues & {
      fonctionsMax: number
      sort: 'libelle' | 'nbUtilisateurs'
      direction: 'asc' | 'desc'
      paged: boolean
      size?: number
      offset?: number
    },
  ) => {
    const viewer = viewerIn(values)
    const filtered = catalogueQuery(db, viewer, 'kept', values.fonctionsMax).where(listFilter(values))
    const sorted = (
      values.sort === 'nbUtilisateurs' ? filtered.orderBy('nb_utilisateurs', values.direction) : filtered
    ).orderBy(sql`a.libelle collate nocase`, values.sort === 'libelle' ? values.direction : 'asc')
    return values.paged ? sorted.limit(values.size ?? 0).offset(values.offset ?? 0) : sorted.limit(WHOLE_LIST_READ)
  },
  [...LIST_SHAPE, 'sort', 'direction', 'paged'],
)

const countStatement = prepared(
  (db, values: ListValues) =>
    db
      .selectFrom('application as a')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(wholeTreeInScope(db, viewerIn(values)))
      .where(listFilter(values)),
  LIST_SHAPE,
)

const keepStatement = prepared(
  (db, values: ListValues) => keepLaunchersCounts(db, viewerIn(values), listFilter(values)),
  LIST_SHAPE,
)

/**
 * GET rest/bd/application: the catalogue, searched by name, sorted by name or by how many may launch
 * each, whole or one page (its total in X-Total-Count).
 */
export async function listApplications(
  ctx: Ctx,
  caller: Caller,
  query: {
    page?: number | undefined
    taille?: number | undefined
    q?: string | undefined
    tri?: (typeof APPLICATION_SORTS)[number] | undefined
    fonctionsMax?: number | undefined
  },
): Promise<{ items: CatalogueApplication[]; total: number }> {
  const db = ctx.db
  // A value each use binds is one its statement holds: no pattern for a list not searched, and so on.
  // The name as typed (LIKE: any ASCII case), bounded as every search box is.
  const values: ListValues = {
    ...viewerValues(viewerOf(caller)),
    searched: Boolean(query.q),
    ...(query.q ? { pattern: likePattern(query.q) } : {}),
  }
  const { key: sort, direction } = sortOf(query.tri, 'libelle')
  const paged = query.page !== undefined
  const page = {
    ...values,
    fonctionsMax: query.fonctionsMax ?? LIST_GRANTS_SHOWN,
    sort,
    direction,
    paged,
    ...(paged ? pageWindow(query) : {}),
  }
  const {
    rows,
    count: [counted],
  } = await rootAdminWith(ctx, caller, {
    keep: keepStatement(db, values),
    rows: pageStatement(db, page),
    count: countStatement(db, values),
  })
  const items = (rows as CatalogueRow[]).map(toApplication)
  return { items: paged ? items : wholeList(items), total: counted?.total ?? 0 }
}

/** GET rest/bd/application/{id}: one application of the catalogue (the first `fonctionsMax` of its grants when asked). */
export async function getApplication(
  ctx: Ctx,
  caller: Caller,
  id: number,
  fonctionsMax?: number,
): Promise<CatalogueApplication> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    application: [row],
  } = await rootAdminWith(ctx, caller, {
    keep: keepLaunchersCounts(db, viewer, sql<SqlBool>`a.id = ${id}`),
    application: catalogueQuery(db, viewer, 'kept', fonctionsMax).where('a.id', '=', id),
  })
  if (!row) throw notFound('Unknown application')
  return toApplication(row as CatalogueRow)
}
