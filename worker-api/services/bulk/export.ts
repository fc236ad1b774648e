import { type SqlBool, sql } from 'kysely'
import { IMPORT_COLUMNS, type ImportType } from '../../contract/bulk/bulk'
import { toWireDate } from '../../contract/dates'
import type { Language } from '../../contract/language'
import { type DB, namedBatch } from '../../db/client'
import { csvLine, csvStream } from '../../lib/csv'
import { scopeStructureIds, userListedInScope, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { adminLog } from '../core/audit'
import { Tree, treeReads } from './tree'

/**
 * `GET rest/bd/export/structures.csv` and `utilisateurs.csv`: the caller's scope in the import's own format, so that
 * export → edit in a spreadsheet → import is a round trip. Written as the history's export is (lib/csv.ts), users
 * streamed a few hundred at a time, each read resuming after the last written; the export is audited in the batch of
 * its first read.
 */

/** The users an export reads per statement. */
const EXPORT_CHUNK = 500

const FLAG: Record<Language, { yes: string; no: string }> = {
  fr: { yes: 'oui', no: 'non' },
  en: { yes: 'yes', no: 'no' },
}
const flag = (language: Language, value: number) => (value === 1 ? FLAG[language].yes : FLAG[language].no)

/** The users of the scope after `after` (an id), in id order, each with their live posts in scope. */
function usersAfter(db: DB, viewer: Viewer, after: number) {
  return db
    .selectFrom('utilisateur as u')
    .select(['u.id', 'u.mail', 'u.nom', 'u.prenom', 'u.login', 'u.admin', 'u.actif'])
    .select(
      sql<string>`(select coalesce(json_group_array(json_array(held.structure_id, held.libelle, held.date_debut, held.date_fin)), '[]')
        from (select p.structure_id, f.libelle, p.date_debut, p.date_fin from poste p
          join fonction f on f.id = p.fonction_id
          where p.utilisateur_id = u.id and p.date_fin >= ${viewer.today}
            and p.structure_id in ${scopeStructureIds(db, viewer)}
          order by p.date_debut, p.id) held)`.as('postes'),
    )
    .where('u.id', '>', after)
    .where('u.supprime', '=', 0)
    .where(sql<SqlBool>`u.registration_state <> 'PENDING'`)
    .where(userListedInScope(db, viewer, { from: 'users', withPostless: true }, 'u'))
    .orderBy('u.id')
    .limit(EXPORT_CHUNK)
}

type UserRow = {
  id: number
  mail: string
  nom: string
  prenom: string
  login: string
  admin: number
  actif: number
  postes: string
}

function userLines(language: Language, tree: Tree, user: UserRow): string {
  const postes = JSON.parse(user.postes) as [number, string, string, string][]
  const identity = [user.mail, user.nom, user.prenom, user.login, flag(language, user.admin)]
  const actif = flag(language, user.actif)
  if (postes.length === 0) return csvLine(language, [...identity, '', '', '', '', actif])
  return postes
    .map(([structure, fonction, debut, fin]) => {
      const node = tree.byId(structure)
      return csvLine(language, [
        ...identity,
        node ? tree.path(node) : String(structure),
        fonction,
        toWireDate(debut),
        toWireDate(fin),
        actif,
      ])
    })
    .join('')
}

/** The file of one kind, streamed. */
export async function exportOrganisation(
  ctx: Ctx,
  caller: Caller,
  type: ImportType,
): Promise<ReadableStream<Uint8Array>> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const language = ctx.request.language
  const { actor, structures, types } = await adminWith(ctx, caller, treeReads(db, viewer))
  const tree = new Tree(structures, types)
  const audit = db.insertInto('log').values(adminLog(actor, 'ORGANISATION_EXPORT', type, ctx.request.userAgent))
  const header = IMPORT_COLUMNS[type]
  if (type === 'structures') {
    await namedBatch(ctx.d1, { audit })
    // The structures of the scope in path order (a parent before its children, as an import needs them), read already.
    return csvStream({
      language,
      header,
      first: structures.flatMap((row) => (row.in_scope ? (tree.byId(row.id) ?? []) : [])),
      lines: (node) =>
        csvLine(language, [node.nom, tree.type(node.typeId)?.libelle, node.parent ? tree.path(node.parent) : '']),
    })
  }
  const { first } = await namedBatch(ctx.d1, { audit, first: usersAfter(db, viewer, 0) })
  return csvStream({
    language,
    header,
    first: (first?.results ?? []) as UserRow[],
    lines: (row) => userLines(language, tree, row),
    next: {
      chunk: EXPORT_CHUNK,
      read: async (after: number) => (await usersAfter(db, viewer, after).execute()) as UserRow[],
      cursor: (last) => last.id,
    },
  })
}
