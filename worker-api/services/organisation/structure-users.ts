import { sql } from 'kysely'
import type { StructureUsers } from '../../contract/organisation/structure'
import { type DB, prepared } from '../../db/client'
import { containsPattern, type PageQuery, pageWindow } from '../../lib/query'
import { modificationColumn, userManageable, type ViewerValues, viewerIn, viewerValues } from '../../lib/scope'
import { likePattern } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { postesColumn, postesFrom, toUser } from '../core/users'
import { fonctionsQuery, inScopeOrFail, structureInScopeQuery } from './structures'

/**
 * What the users' statements bind (`prepared`): the day, the structure and the names searched, as a pattern (a page,
 * the viewer too). Which users (current or future) and whether a name is searched decide the SQL.
 */
type UsersValues = {
  today: string
  structureId: number
  which: 'current' | 'future'
  searched: boolean
  pattern?: string
}
const USERS_SHAPE = ['which', 'searched'] as const

/** Users with a post in a structure, filtered in SQL. */
function structureUsersQuery(db: DB, values: UsersValues) {
  const today = values.today
  // Driven by the structure's posts (their index), not by a scan of every user.
  const here = db
    .selectFrom('poste as here')
    .select('here.utilisateur_id')
    .where('here.structure_id', '=', values.structureId)
  const current = here.where('here.date_debut', '<=', today).where('here.date_fin', '>=', today)
  const future = here.where('here.date_debut', '>', today)
  return db
    .selectFrom('utilisateur')
    .where('utilisateur.supprime', '=', 0)
    .$if(values.which === 'current', (q) => q.where('utilisateur.id', 'in', current))
    .$if(values.which === 'future', (q) =>
      q.where('utilisateur.id', 'in', future).where('utilisateur.id', 'not in', current),
    )
    .$if(values.searched, (q) =>
      q.where(containsPattern(['utilisateur.nom', 'utilisateur.prenom'], values.pattern ?? '')),
    )
}

/** A page of them, by name. */
const usersPage = prepared(
  (db, values: UsersValues & ViewerValues & { paged: boolean; size?: number; offset?: number }) => {
    const viewer = viewerIn(values)
    const sorted = structureUsersQuery(db, values)
      .selectAll('utilisateur')
      .select(postesColumn(viewer.today))
      .select(modificationColumn(db, viewer))
      .orderBy(sql`utilisateur.nom collate nocase`)
      .orderBy(sql`utilisateur.prenom collate nocase`)
      .orderBy('utilisateur.id')
    return values.paged ? sorted.limit(values.size ?? 0).offset(values.offset ?? 0) : sorted
  },
  [...USERS_SHAPE, 'domain', 'paged'],
)

const usersCount = prepared(
  (db, values: UsersValues) => structureUsersQuery(db, values).select((eb) => eb.fn.countAll<number>().as('total')),
  USERS_SHAPE,
)

/** The users the viewer may give a post to, for the add-post dialog's autocomplete (20 at most). */
const candidatesStatement = prepared(
  (db, values: ViewerValues & { searched: boolean; pattern?: string }) =>
    db
      .selectFrom('utilisateur')
      .select(['utilisateur.id', 'utilisateur.prenom', 'utilisateur.nom', 'utilisateur.mail'])
      .where('utilisateur.supprime', '=', 0)
      .where('utilisateur.registration_state', '!=', 'PENDING')
      .where(userManageable(db, viewerIn(values)))
      .$if(values.searched, (q) =>
        q.where(containsPattern(['utilisateur.nom', 'utilisateur.prenom', 'utilisateur.mail'], values.pattern ?? '')),
      )
      .orderBy(sql`utilisateur.nom collate nocase`)
      .orderBy(sql`utilisateur.prenom collate nocase`)
      .limit(20),
  ['domain', 'searched'],
)

const structureStatement = prepared(
  (db, values: ViewerValues & { structureId: number }) =>
    structureInScopeQuery(db, viewerIn(values), values.structureId, false),
  ['domain'],
)

const fonctionsStatement = prepared((db, values: { structureId: number }) => fonctionsQuery(db, values.structureId))

/** A search box's text as what a statement binds: its pattern, only when it holds one. */
const searchValues = (text: string | undefined) =>
  text ? { searched: true, pattern: likePattern(text) } : { searched: false }

/**
 * GET rest/bd/utilisateur/structure/{idStructure} (spec §3): the structure's current and future users
 * (each with `modification`), the users a post may be given to and the structure's functions — with
 * the caller's check, one round trip.
 */
export async function structureUsers(
  ctx: Ctx,
  caller: Caller,
  structureId: number,
  query: PageQuery & { q?: string | undefined; recherche?: string | undefined },
): Promise<StructureUsers> {
  const db = ctx.db
  const viewer = viewerValues(viewerOf(caller))
  const paged = query.page !== undefined
  const window = { paged, ...(paged ? pageWindow(query) : {}) }
  const users = (which: 'current' | 'future'): UsersValues => ({
    today: viewer.today,
    structureId,
    which,
    ...searchValues(query.q),
  })
  const {
    row: [row],
    enCours,
    totalEnCours: [totalEnCours],
    futurs,
    totalFuturs: [totalFuturs],
    candidates,
    fonctions,
  } = await adminWith(ctx, caller, {
    row: structureStatement(db, { ...viewer, structureId }),
    enCours: usersPage(db, { ...viewer, ...users('current'), ...window }),
    totalEnCours: usersCount(db, users('current')),
    futurs: usersPage(db, { ...viewer, ...users('future'), ...window }),
    totalFuturs: usersCount(db, users('future')),
    candidates: candidatesStatement(db, { ...viewer, ...searchValues(query.recherche) }),
    fonctions: fonctionsStatement(db, { structureId }),
  })
  inScopeOrFail(row)
  const asUsers = (rows: typeof enCours) =>
    rows.map((user) => toUser(user, postesFrom(user.postes, viewer.today), user.modification === 1))
  return {
    utilisateursEnCours: asUsers(enCours),
    utilisateursFuturs: asUsers(futurs),
    totalEnCours: totalEnCours?.total ?? 0,
    totalFuturs: totalFuturs?.total ?? 0,
    rechercheUtilisateur: { utilisateurs: candidates, fonctions },
  }
}
