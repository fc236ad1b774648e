import type { RowProblem } from '../../contract/bulk/bulk'

/** A row of a file: its cells, and the line of the file it starts on (the header is line 1). */
export type FileRow = { line: number; cells: string[] }

/** What a row does: creates, changes, leaves everything as it is, or cannot be imported (its problems). */
export type Planned<Action> =
  | { line: number; kind: 'creee' | 'modifiee'; problems: []; action: Action }
  /** `invitable`: the user it names waits for a password with no invitation under way, which an import may send. */
  | { line: number; kind: 'inchangee'; problems: []; invitable?: Action }
  | { line: number; kind: 'erreur'; problems: RowProblem[] }

/** The counts of a preview or of an import. */
export type Counts = { lignes: number; creees: number; modifiees: number; inchangees: number; erreurs: number }

export const noCounts = (): Counts => ({ lignes: 0, creees: 0, modifiees: 0, inchangees: 0, erreurs: 0 })

export function count(counts: Counts, planned: { kind: Planned<unknown>['kind'] }) {
  counts.lignes++
  if (planned.kind === 'creee') counts.creees++
  else if (planned.kind === 'modifiee') counts.modifiees++
  else if (planned.kind === 'inchangee') counts.inchangees++
  else counts.erreurs++
}
