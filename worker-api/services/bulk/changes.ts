import { sql } from 'kysely'
import type { ImportChange } from '../../contract/bulk/bulk'
import type { DB } from '../../db/client'
import type { UserAction } from './user-plan'
import type { FoundUser } from './user-reads'

/**
 * What a preview shows of the rows that change existing users (README, the import): who the file renames, gives a new
 * address, makes an administrator or removes as one, deactivates or reactivates. A post added alone is not listed.
 */

/** The notable change of a row planned to update `found` (null: none, or a post added only). */
export function userChange(line: number, action: UserAction, found: FoundUser | undefined): ImportChange | null {
  if (action.kind !== 'update' || !found || !('id' in action.target)) return null
  const { set } = action
  const change: ImportChange = { ligne: line, login: found.login }
  if (set.nom !== undefined) change.nom = { avant: found.nom, apres: set.nom }
  if (set.prenom !== undefined) change.prenom = { avant: found.prenom, apres: set.prenom }
  if (set.mail !== undefined) change.mail = { avant: found.mail, apres: set.mail }
  if (set.admin !== undefined) change.admin = set.admin
  if (set.actif !== undefined) change.actif = set.actif
  return Object.keys(change).length > 2 ? change : null
}

/** A change's fields apart from its line and login, as `import_changement.valeurs` keeps them. */
const valuesOf = ({ ligne: _ligne, login: _login, ...values }: ImportChange) => JSON.stringify(values)

/** A kept preview's changes as rows of `import_changement`, in one statement whatever their number. */
export function changesInsert(db: DB, importId: number, changes: ImportChange[]) {
  const rows = changes.map((change) => [change.ligne, change.login, valuesOf(change)])
  return db
    .insertInto('import_changement')
    .columns(['import_id', 'ligne', 'login', 'valeurs'])
    .expression(
      db
        .selectFrom(sql<{ value: string }>`json_each(${JSON.stringify(rows)})`.as('c'))
        .select([
          sql<number>`${importId}`.as('import_id'),
          sql<number>`json_extract(c.value, '$[0]')`.as('ligne'),
          sql<string>`json_extract(c.value, '$[1]')`.as('login'),
          sql<string>`json_extract(c.value, '$[2]')`.as('valeurs'),
        ]),
    )
}

/** A row of `import_changement` as the contract answers it. */
export const changeOf = (row: { ligne: number; login: string; valeurs: string }): ImportChange => ({
  ligne: row.ligne,
  login: row.login,
  ...(JSON.parse(row.valeurs) as Omit<ImportChange, 'ligne' | 'login'>),
})
