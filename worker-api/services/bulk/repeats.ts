import type { ImportType, RowProblem } from '../../contract/bulk/bulk'
import { cellText } from './cells'
import type { FileRow } from './plan'
import { nameKey } from './tree'

/**
 * The rows of a file that disagree with an earlier row of the same file, found from the file's text alone, so that a
 * preview and the import it announces find the same ones whatever D1 holds: a structure named twice; a person given
 * twice with another identity, or twice the same post.
 */
export function repeatsCheck(type: ImportType) {
  const seen = new Map<string, { line: number; identity: string; postes: Set<string> }>()
  return (row: FileRow): RowProblem | null => {
    const cells = row.cells.map(cellText)
    if (type === 'structures') {
      const nom = cells[0] ?? ''
      if (nom === '') return null
      const earlier = seen.get(nameKey(nom))
      if (earlier) return { code: 'STRUCTURE_REPETEE', colonne: 'nom', valeurs: { valeur: nom, ligne: earlier.line } }
      seen.set(nameKey(nom), { line: row.line, identity: '', postes: new Set() })
      return null
    }
    const [mail = '', nom, prenom, login = '', admin, ...post] = cells
    if (mail === '') return null
    const key = mail.toLowerCase()
    const identity = JSON.stringify([nom, prenom, login.toLowerCase(), admin?.toLowerCase(), post[4]?.toLowerCase()])
    const poste = JSON.stringify(post.slice(0, 4).map((cell) => nameKey(cell)))
    const earlier = seen.get(key)
    if (!earlier) {
      seen.set(key, { line: row.line, identity, postes: new Set([poste]) })
      return null
    }
    if (earlier.identity !== identity) return { code: 'DOUBLON', colonne: 'mail', valeurs: { ligne: earlier.line } }
    if (earlier.postes.has(poste)) return { code: 'LIGNE_REPETEE', colonne: null, valeurs: { ligne: earlier.line } }
    earlier.postes.add(poste)
    return null
  }
}
