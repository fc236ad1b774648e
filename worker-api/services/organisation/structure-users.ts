import { sql } from 'kysely'
import type { StructureUsers } from '../../contract/structure'
import type { DB } from '../../db/client'
import { containsText, onePage, type PageQuery } from '../../lib/query'
import { modificationColumn, userManageable, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { postesColumn, postesFrom, toUser } from '../core/users'
import { fonctionsQuery, inScopeOrFail, structureInScopeQuery } from './structures'

/** Users with a post in a structure, by name, filtered and paged in SQL. */
function structureUsersQuery(
  db: DB,
  viewer: Viewer,
  structureId: number,
  which: 'current' | 'future',
  query: PageQuery & { q?: string | undefined },
) {
  // Driven by the structure's posts (their index), not by a scan of every user.
  const here = db.selectFrom('poste as here').select('here.utilisateur_id').where('here.structure_id', '=', structureId)
  const current = here.where('here.date_debut', '<=', viewer.today).where('here.date_fin', '>=', viewer.today)
  const future = here.where('here.date_debut', '>', viewer.today)
  const base = db
    .selectFrom('utilisateur')
    .where('utilisateur.supprime', '=', 0)
    .$if(which === 'current', (q) => q.where('utilisateur.id', 'in', current))
    .$if(which === 'future', (q) => q.where('utilisateur.id', 'in', future).where('utilisateur.id', 'not in', current))
    .$if(Boolean(query.q), (q) => q.where(containsText(['utilisateur.nom', 'utilisateur.prenom'], query.q ?? '')))
  const list = onePage(
    base
      .selectAll('utilisateur')
      .select(postesColumn(viewer.today))
      .select(modificationColumn(db, viewer))
      .orderBy(sql`utilisateur.nom collate nocase`)
      .orderBy(sql`utilisateur.prenom collate nocase`)
      .orderBy('utilisateur.id'),
    query,
  )
  const count = base.select((eb) => eb.fn.countAll<number>().as('total'))
  return { list, count }
}

/** The users the viewer may give a post to, for the add-post dialog's autocomplete (20 at most). */
function candidatesQuery(db: DB, viewer: Viewer, search: string | undefined) {
  return db
    .selectFrom('utilisateur')
    .select(['utilisateur.id', 'utilisateur.prenom', 'utilisateur.nom', 'utilisateur.mail'])
    .where('utilisateur.supprime', '=', 0)
    .where('utilisateur.registration_state', '!=', 'PENDING')
    .where(userManageable(db, viewer))
    .$if(Boolean(search), (q) =>
      q.where(containsText(['utilisateur.nom', 'utilisateur.prenom', 'utilisateur.mail'], search ?? '')),
    )
    .orderBy(sql`utilisateur.nom collate nocase`)
    .orderBy(sql`utilisateur.prenom collate nocase`)
    .limit(20)
}

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
  const viewer = viewerOf(caller)
  const current = structureUsersQuery(db, viewer, structureId, 'current', query)
  const future = structureUsersQuery(db, viewer, structureId, 'future', query)
  const {
    row: [row],
    enCours,
    totalEnCours: [totalEnCours],
    futurs,
    totalFuturs: [totalFuturs],
    candidates,
    fonctions,
  } = await adminWith(ctx, caller, {
    row: structureInScopeQuery(db, viewer, structureId, false),
    enCours: current.list,
    totalEnCours: current.count,
    futurs: future.list,
    totalFuturs: future.count,
    candidates: candidatesQuery(db, viewer, query.recherche),
    fonctions: fonctionsQuery(db, structureId),
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
