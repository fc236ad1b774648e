import { PATH_SEPARATOR, type RowProblem } from '../../contract/bulk/bulk'
import type { DB } from '../../db/client'
import { inScopeColumn, type Viewer } from '../../lib/scope'

/**
 * The organisation tree as an import reads it: every structure with its type, its parent and whether it lies in the
 * importer's scope, and the structures the file creates as its rows are planned, so that a later row may name them. A
 * structure is named by its id, its name (unique in the organisation) or its path of names from the top
 * ("Direction Sud / Agence Marseille", any tail of the whole path).
 */

export type TreeNode = {
  /** null: created by the row at `line` of the file. */
  id: number | null
  nom: string
  typeId: number
  parent: TreeNode | null
  inScope: boolean
  line: number | null
}

export type StructureType = { id: number; libelle: string; parent_type_id: number | null }

/** Every structure and type, in one read beside the importer's check. */
export const treeReads = (db: DB, viewer: Viewer) => ({
  structures: db
    .selectFrom('structure as s')
    .select(['s.id', 's.nom', 's.type_id', 's.parent_id'])
    .select(inScopeColumn(db, viewer, 's'))
    .orderBy('s.path'),
  types: db.selectFrom('type_structure').select(['id', 'libelle', 'parent_type_id']).orderBy('libelle'),
})

type StructureRow = { id: number; nom: string; type_id: number; parent_id: number | null; in_scope: number }

/** A structure's name as matched: its case and spacing do not count. */
export const nameKey = (nom: string) => nom.trim().replace(/\s+/g, ' ').toLowerCase()

export class Tree {
  readonly #byId = new Map<number, TreeNode>()
  readonly #byName = new Map<string, TreeNode>()
  readonly #children = new Map<TreeNode, TreeNode[]>()
  readonly types: StructureType[]
  readonly #typeById: Map<number, StructureType>
  readonly #typeByName: Map<string, StructureType>

  constructor(rows: StructureRow[], types: StructureType[]) {
    this.types = types
    this.#typeById = new Map(types.map((type) => [type.id, type]))
    this.#typeByName = new Map(types.map((type) => [nameKey(type.libelle), type]))
    // Read in path order: a parent comes before its children.
    for (const row of rows) {
      const parent = row.parent_id === null ? null : (this.#byId.get(row.parent_id) ?? null)
      const node: TreeNode = {
        id: row.id,
        nom: row.nom,
        typeId: row.type_id,
        parent,
        inScope: row.in_scope === 1,
        line: null,
      }
      this.#byId.set(row.id, node)
      this.add(node)
    }
  }

  /** A structure the file creates (or one read), from now on found by its name. */
  add(node: TreeNode) {
    this.#byName.set(nameKey(node.nom), node)
    if (node.parent) {
      const siblings = this.#children.get(node.parent)
      if (siblings) siblings.push(node)
      else this.#children.set(node.parent, [node])
    }
  }

  byName(nom: string): TreeNode | undefined {
    return this.#byName.get(nameKey(nom))
  }

  byId(id: number): TreeNode | undefined {
    return this.#byId.get(id)
  }

  children(node: TreeNode): TreeNode[] {
    return this.#children.get(node) ?? []
  }

  type(id: number): StructureType | undefined {
    return this.#typeById.get(id)
  }

  /** A type by its id or its name. */
  typeNamed(text: string): StructureType | undefined {
    return /^\d{1,9}$/.test(text) ? this.#typeById.get(Number(text)) : this.#typeByName.get(nameKey(text))
  }

  /** The whole path of names from the top, as the export writes it. */
  path(node: TreeNode): string {
    const names: string[] = []
    for (let at: TreeNode | null = node; at; at = at.parent) names.push(at.nom)
    return names.reverse().join(PATH_SEPARATOR)
  }

  /**
   * The structure a cell names (its id, its name, or a tail of its path), or the problem that keeps it from naming
   * one, on `column`.
   */
  resolve(text: string, column: string): TreeNode | RowProblem {
    const unknown: RowProblem = { code: 'STRUCTURE_INCONNUE', colonne: column, valeurs: { valeur: text } }
    if (/^\d{1,9}$/.test(text)) return this.#byId.get(Number(text)) ?? unknown
    // A name may hold the separator itself: the whole cell is tried as one name first.
    const whole = this.byName(text)
    if (whole) return whole
    const names = text
      .split('/')
      .map((name) => name.trim())
      .filter((name) => name !== '')
    const last = names.at(-1)
    const node = last === undefined ? undefined : this.byName(last)
    if (!node) return unknown
    let at: TreeNode | null = node.parent
    for (let n = names.length - 2; n >= 0; n--, at = at?.parent ?? null) {
      if (!at || nameKey(at.nom) !== nameKey(names[n] ?? '')) {
        // The path of a structure outside the importer's scope is not theirs to learn, nor whether they guessed it.
        if (!node.inScope) return outside(text, column)
        return { code: 'STRUCTURE_CHEMIN', colonne: column, valeurs: { valeur: text, chemin: this.path(node) } }
      }
    }
    return node
  }
}

export const isProblem = (value: object): value is RowProblem => 'code' in value

/** A structure outside the importer's scope, named as the row writes it (its id, name or path): never where it is. */
export const outside = (text: string, column: string): RowProblem => ({
  code: 'HORS_PERIMETRE',
  colonne: column,
  valeurs: { valeur: text },
})
