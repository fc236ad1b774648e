import type { RowProblem } from '../../contract/bulk/bulk'
import { cellText, isRead, nameCell } from './cells'
import type { FileRow, Planned } from './plan'
import { isProblem, nameKey, outside, type Tree, type TreeNode } from './tree'

/**
 * What each row of a structures file (`nom;type;parent`) does, found by its path: a structure that does not exist is
 * created under its parent (in scope, of the type its type goes under, with its type's functions); one that exists
 * at that place is left as it is, or takes the type the row gives; one of that name elsewhere is an error, since an
 * import moves nothing and names are unique in the organisation.
 */

export type StructureAction =
  | { kind: 'create'; nom: string; typeId: number; parent: TreeNode }
  | { kind: 'retype'; node: TreeNode; typeId: number }

/** The rows already planned in this file, by structure name: who a later row collides with or builds on. */
export type StructureFileState = { lines: Map<string, { line: number; failed: boolean }> }

export const structureFileState = (): StructureFileState => ({ lines: new Map() })

export function planStructureRow(row: FileRow, tree: Tree, state: StructureFileState): Planned<StructureAction> {
  const [nomCell, typeCell, parentCell] = row.cells.map(cellText)
  const problems: RowProblem[] = []
  const nom = nameCell(nomCell ?? '', 'nom')
  if (!isRead(nom)) problems.push(nom.problem)
  const typeText = typeCell ?? ''
  const type = typeText === '' ? undefined : tree.typeNamed(typeText)
  if (typeText === '') problems.push({ code: 'REQUIS', colonne: 'type', valeurs: { colonne: 'type' } })
  else if (!type) {
    const connus = tree.types.map((known) => known.libelle).join(', ')
    problems.push({ code: 'TYPE_INCONNU', colonne: 'type', valeurs: { valeur: typeText, connus } })
  }
  const parentText = parentCell ?? ''
  let parent: TreeNode | null = null
  if (parentText !== '') {
    const found = tree.resolve(parentText, 'parent')
    if (isProblem(found)) problems.push(parentProblem(found, parentText, state))
    else parent = found
  }
  if (!isRead(nom) || !type || problems.length > 0) return failed(row, problems, state, nomCell)

  // A name given twice is the file's own check (repeats.ts): here each name comes once.
  const key = nameKey(nom.value)
  const existing = tree.byName(nom.value)
  if (existing) {
    state.lines.set(key, { line: row.line, failed: false })
    const outcome = planExisting(row, tree, existing, parentText === '' ? null : parent, type.id, nom.value)
    if (outcome.kind === 'erreur') state.lines.set(key, { line: row.line, failed: true })
    return outcome
  }

  if (type.parent_type_id === null) {
    return failed(row, [{ code: 'TYPE_RACINE', colonne: 'type', valeurs: { type: type.libelle } }], state, nom.value)
  }
  if (!parent) return failed(row, [{ code: 'PARENT_REQUIS', colonne: 'parent' }], state, nom.value)
  if (!parent.inScope) return failed(row, [outside(parentText, 'parent')], state, nom.value)
  if (parent.typeId !== type.parent_type_id) {
    const attendu = tree.type(type.parent_type_id)?.libelle ?? String(type.parent_type_id)
    return failed(
      row,
      [{ code: 'TYPE_PARENT', colonne: 'type', valeurs: { type: type.libelle, attendu } }],
      state,
      nom.value,
    )
  }
  const node: TreeNode = { id: null, nom: nom.value, typeId: type.id, parent, inScope: true, line: row.line }
  tree.add(node)
  state.lines.set(key, { line: row.line, failed: false })
  return {
    line: row.line,
    kind: 'creee',
    problems: [],
    action: { kind: 'create', nom: nom.value, typeId: type.id, parent },
  }
}

/** A structure of that name exists: at the row's place it is kept or takes the row's type; elsewhere it is an error. */
function planExisting(
  row: FileRow,
  tree: Tree,
  existing: TreeNode,
  parent: TreeNode | null,
  typeId: number,
  nom: string,
): Planned<StructureAction> {
  // The importer's scope first: of a structure outside it, a row learns neither where it is nor whether its type and
  // parent are the row's.
  if (!existing.inScope) return failed(row, [outside(nom, 'nom')])
  if (existing.parent !== parent) {
    const where = existing.parent ? tree.path(existing.parent) : '—'
    return failed(row, [
      { code: 'STRUCTURE_AILLEURS', colonne: 'parent', valeurs: { valeur: existing.nom, parent: where } },
    ])
  }
  if (existing.typeId === typeId) return { line: row.line, kind: 'inchangee', problems: [] }
  const type = tree.type(typeId)
  const wanted = type?.parent_type_id ?? null
  if (wanted !== (existing.parent?.typeId ?? null)) {
    const problem: RowProblem =
      wanted === null || !existing.parent
        ? { code: 'TYPE_RACINE', colonne: 'type', valeurs: { type: type?.libelle ?? '' } }
        : {
            code: 'TYPE_PARENT',
            colonne: 'type',
            valeurs: { type: type?.libelle ?? '', attendu: tree.type(wanted)?.libelle ?? '' },
          }
    return failed(row, [problem])
  }
  const refusing = tree.children(existing).find((child) => tree.type(child.typeId)?.parent_type_id !== typeId)
  if (refusing) {
    const attendu = tree.type(tree.type(refusing.typeId)?.parent_type_id ?? 0)?.libelle ?? ''
    return failed(row, [{ code: 'TYPE_ENFANTS', colonne: 'type', valeurs: { valeur: existing.nom, attendu } }])
  }
  return { line: row.line, kind: 'modifiee', problems: [], action: { kind: 'retype', node: existing, typeId } }
}

/** A parent not found because its own row failed says so, rather than that it does not exist. */
function parentProblem(problem: RowProblem, text: string, state: StructureFileState): RowProblem {
  const last = text.split('/').at(-1) ?? text
  const earlier = state.lines.get(nameKey(text)) ?? state.lines.get(nameKey(last))
  if (problem.code === 'STRUCTURE_INCONNUE' && earlier?.failed) {
    return { code: 'PARENT_EN_ERREUR', colonne: 'parent', valeurs: { valeur: text, ligne: earlier.line } }
  }
  return problem
}

/** A row in error; its name, once known, marks it failed for the rows below it. */
function failed(
  row: FileRow,
  problems: RowProblem[],
  state?: StructureFileState,
  nom?: string,
): Planned<StructureAction> {
  if (state && nom) {
    const key = nameKey(nom)
    if (!state.lines.has(key)) state.lines.set(key, { line: row.line, failed: true })
  }
  return { line: row.line, kind: 'erreur', problems }
}
