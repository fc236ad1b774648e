import { type Expression, type SqlBool, sql } from 'kysely'
import type { Compilable, DB } from '../../../db/client'
import { inScopeColumn, pathInScope, serviceAccountId, type Viewer } from '../../../lib/scope'
import { ofUser, tellAccess } from '../../catalogue/access-told'
import { afterOneRow, type EventActor, posteEvents } from '../../core/events'
import { invalidValue } from './errors'
import type { WantedPoste } from './user-changes'

/**
 * The posts of SCIM's writes of users: where each may be (a structure of the account's scope, one of its functions,
 * not over, a function held over periods that do not meet), the condition they hold on inside the write, and the
 * statements that make the current and future posts the wanted ones.
 */

/** The structures and functions a write's posts name, with whether each structure lies in scope. */
export function placementReads(db: DB, viewer: Viewer, postes: WantedPoste[] | undefined) {
  if (!postes || postes.length === 0) return { structures: null, fonctions: null }
  return {
    structures: db
      .selectFrom('structure as s')
      .select(['s.id', 's.nom'])
      .select(inScopeColumn(db, viewer, 's'))
      .where('s.id', 'in', [...new Set(postes.map((poste) => poste.structure))]),
    fonctions: db
      .selectFrom('fonction')
      .select(['id', 'libelle', 'structure_id'])
      .where('id', 'in', [...new Set(postes.map((poste) => poste.fonction))]),
  }
}

/**
 * The condition a write's posts hold on inside its batch: every function named still exists in a structure of the
 * scope, and the account acting is still live (a deletion or a move of a structure between the reads and the write
 * stops it).
 */
export function placementsHold(db: DB, viewer: Viewer, postes: readonly WantedPoste[]): Expression<SqlBool> {
  const fonctions = [...new Set(postes.map((poste) => poste.fonction))]
  const account = serviceAccountId(viewer.id)
  const live =
    account === null
      ? sql<SqlBool>`1 = 1`
      : sql<SqlBool>`exists (select 1 from compte_service where id = ${account} and actif = 1 and supprime = 0)`
  if (fonctions.length === 0) return live
  const placed = db
    .selectFrom('fonction as held')
    .innerJoin('structure as held_structure', 'held_structure.id', 'held.structure_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('held.id', 'in', fonctions)
    .where(pathInScope(db, viewer, sql.ref<string>('held_structure.path')))
  return sql<SqlBool>`(${live} and (${placed}) = ${fonctions.length})`
}

type Placements = {
  structures: { id: number; nom: string; in_scope: number }[] | undefined
  fonctions: { id: number; libelle: string; structure_id: number }[] | undefined
}

/**
 * Each wanted post placed (a structure of the scope, one of its functions, not over): else 400 invalidValue. A function
 * of a structure is held over periods that do not meet (the rule of the screens' posts).
 */
export function placed(postes: WantedPoste[], reads: Placements, today: string) {
  const wanted = postes.map((poste) => {
    const structure = reads.structures?.find((row) => row.id === poste.structure)
    const fonction = reads.fonctions?.find((row) => row.id === poste.fonction)
    if (!structure) throw invalidValue(`No structure ${poste.structure}`)
    if (!structure.in_scope) throw invalidValue(`The structure ${poste.structure} is outside this account's scope`)
    if (!fonction || fonction.structure_id !== structure.id) {
      throw invalidValue(`No function ${poste.fonction} in the structure ${poste.structure}`)
    }
    if (poste.dateFin < today) throw invalidValue(`A post ending ${poste.dateFin} would already be over`)
    return { ...poste, label: `${fonction.libelle}, ${structure.nom}` }
  })
  for (const [n, poste] of wanted.entries()) {
    const meets = wanted.find(
      (other, m) =>
        m !== n &&
        other.structure === poste.structure &&
        other.fonction === poste.fonction &&
        other.dateDebut <= poste.dateFin &&
        poste.dateDebut <= other.dateFin,
    )
    if (meets) throw invalidValue(`The post ${poste.label} is held twice over the same days`)
  }
  return wanted
}

type CurrentPoste = { id: number; structure_id: number; fonction_id: number; date_debut: string; date_fin: string }

/**
 * The posts' writes: the wanted ones matched to the current and future ones (the same post and dates first, then the
 * same function of the same structure), the others added; with `set`, the current ones left unmatched go.
 */
export function postesWrites(
  db: DB,
  actor: EventActor,
  userId: number,
  current: CurrentPoste[],
  wanted: ReturnType<typeof placed>,
  mode: 'set' | 'add',
) {
  const unmatched = [...current]
  const take = (match: (poste: CurrentPoste) => boolean) => {
    const index = unmatched.findIndex(match)
    return index < 0 ? undefined : unmatched.splice(index, 1)[0]
  }
  const exact = wanted.map((poste) =>
    take(
      (p) =>
        p.structure_id === poste.structure &&
        p.fonction_id === poste.fonction &&
        p.date_debut === poste.dateDebut &&
        p.date_fin === poste.dateFin,
    ),
  )
  const writes: Compilable[] = []
  const said: string[] = []
  wanted.forEach((poste, n) => {
    if (exact[n]) return
    // `add` adds: only a replacement moves a post's dates.
    const same =
      mode === 'set' ? take((p) => p.structure_id === poste.structure && p.fonction_id === poste.fonction) : undefined
    if (same) {
      writes.push(
        db.updateTable('poste').set({ date_debut: poste.dateDebut, date_fin: poste.dateFin }).where('id', '=', same.id),
        posteEvents(db, 'poste.modifie', actor, (post) => sql<SqlBool>`${post} = ${same.id}`, afterOneRow),
      )
      said.push(`poste ${poste.label} : ${poste.dateDebut} → ${poste.dateFin}`)
      return
    }
    writes.push(
      db.insertInto('poste').values({
        utilisateur_id: userId,
        structure_id: poste.structure,
        fonction_id: poste.fonction,
        date_debut: poste.dateDebut,
        date_fin: poste.dateFin,
      }),
      posteEvents(db, 'poste.cree', actor, (post) => sql<SqlBool>`${post} = last_insert_rowid()`, afterOneRow),
    )
    said.push(`+ poste ${poste.label}, ${poste.dateDebut} → ${poste.dateFin}`)
  })
  const dropped = mode === 'set' ? unmatched : []
  for (const poste of dropped) {
    // Told before it goes, while it is there to tell of.
    writes.push(
      posteEvents(db, 'poste.supprime', actor, (post) => sql<SqlBool>`${post} = ${poste.id}`),
      db.deleteFrom('poste').where('id', '=', poste.id),
    )
    said.push(`− poste #${poste.id}`)
  }
  const kept = mode === 'set' ? [] : unmatched
  for (const poste of wanted) {
    const meets = kept.find(
      (p) =>
        p.structure_id === poste.structure &&
        p.fonction_id === poste.fonction &&
        p.date_debut <= poste.dateFin &&
        poste.dateDebut <= p.date_fin,
    )
    if (meets) throw invalidValue(`The user already holds ${poste.label} over some of these days`)
  }
  // What the posts written give and take away.
  if (writes.length > 0) writes.push(...tellAccess(db, actor, ofUser(userId)))
  return { writes, said, left: wanted.length + kept.length }
}
