import type { RowProblem } from '../../contract/bulk/bulk'
import { nowIso, toWireDate } from '../../contract/dates'
import { cellText, dateCell, flagCell, isRead, mailCell, nameCell } from './cells'
import type { FileRow, Planned } from './plan'
import { isProblem, outside, type Tree, type TreeNode } from './tree'
import { awaitsInvitation, type FoundUser, type HeldPoste } from './user-reads'

/**
 * What each row of a users file (`mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif`) does. A
 * user is found by their address, then by their login; one not found is created (their login is their address), one
 * found takes the row's names and flags. A row's post is added unless the user already holds that function there on
 * one of its days (then it is left as it is): nothing is ever deleted. A person may have several rows, one per post,
 * all with the same identity.
 */

/** A post a row gives: a function of a structure of the scope, over its dates ('YYYY-MM-DD'). */
export type RowPoste = {
  structure: TreeNode & { id: number }
  fonction: { id: number; libelle: string }
  debut: string
  fin: string
}

/** The identity a row gives; a flag left empty keeps the user's (a new user: not admin, active). */
type Identity = { mail: string; nom: string; prenom: string; admin: boolean | undefined; actif: boolean | undefined }

export type UserAction =
  | { kind: 'create'; user: Identity & { admin: boolean; actif: boolean }; poste: RowPoste | null }
  | {
      kind: 'update'
      /** A user read (their id and the version read), or one an earlier row of the same chunk creates. */
      target: { id: number; version: number; login: string } | { mail: string }
      set: Partial<Pick<Identity, 'nom' | 'prenom' | 'admin' | 'actif' | 'mail'>>
      poste: RowPoste | null
    }

/** What the rows of a chunk are planned against: the tree, the users and functions read, the importer. */
export type UserWorld = {
  tree: Tree
  users: FoundUser[]
  fonctions: { id: number; libelle: string; structure_id: number }[]
  importer: { id: number; racine: boolean }
  today: string
}

/**
 * What the earlier rows of the file did, by address: the posts they leave the user with. An import keeps it for a
 * chunk (D1 holds what the chunks before it did), a preview for the whole file (nothing is written).
 */
export type UserFileState = Map<string, { postes: HeldPoste[] }>

const lower = (text: string) => text.toLowerCase()

/** The names a chunk's rows look users up by (addresses and logins), and the structures they name. */
export function chunkNames(rows: FileRow[], tree: Tree) {
  const names = new Set<string>()
  const structures = new Set<number>()
  for (const row of rows) {
    const mail = cellText(row.cells[0])
    const login = cellText(row.cells[3])
    if (mail) names.add(lower(mail))
    if (login) names.add(lower(login))
    const structure = cellText(row.cells[5])
    if (structure) {
      const node = tree.resolve(structure, 'structure')
      // Only a structure of the scope has its functions read: the others' rows are errors before them.
      if (!isProblem(node) && node.id !== null && node.inScope) structures.add(node.id)
    }
  }
  return { names: [...names], structureIds: [...structures] }
}

/** A chunk's world, its lookups built once. */
export function userLookups(world: UserWorld) {
  const byMail = new Map(world.users.map((user) => [lower(user.mail), user]))
  const byLogin = new Map(world.users.map((user) => [lower(user.login), user]))
  const fonctions = new Map<number, { id: number; libelle: string }[]>()
  for (const fonction of world.fonctions) {
    const list = fonctions.get(fonction.structure_id)
    if (list) list.push(fonction)
    else fonctions.set(fonction.structure_id, [fonction])
  }
  return { ...world, byMail, byLogin, fonctionsOf: (id: number) => fonctions.get(id) ?? [] }
}
type Lookups = ReturnType<typeof userLookups>

/** The post a row gives (null: none), or its problems. */
function rowPoste(cells: string[], world: Lookups, problems: RowProblem[]): RowPoste | null {
  const [structureText = '', fonctionText = '', debutText = '', finText = ''] = cells
  const given = [structureText, fonctionText, debutText, finText]
  if (given.every((text) => text === '')) return null
  const columns = ['structure', 'fonction', 'dateDebut', 'dateFin']
  const missing = given.indexOf('')
  if (missing >= 0) {
    problems.push({ code: 'POSTE_INCOMPLET', colonne: columns[missing] ?? null })
    return null
  }
  const debut = dateCell(debutText, 'dateDebut')
  const fin = dateCell(finText, 'dateFin')
  if (!isRead(debut)) problems.push(debut.problem)
  if (!isRead(fin)) problems.push(fin.problem)
  if (isRead(debut) && isRead(fin)) {
    if (fin.value < debut.value) problems.push({ code: 'DATES_ORDRE', colonne: 'dateFin' })
    else if (fin.value < world.today)
      problems.push({ code: 'POSTE_FINI', colonne: 'dateFin', valeurs: { date: toWireDate(fin.value) } })
  }
  const structure = world.tree.resolve(structureText, 'structure')
  if (isProblem(structure)) {
    problems.push(structure)
    return null
  }
  if (!structure.inScope || structure.id === null) {
    problems.push(outside(structureText, 'structure'))
    return null
  }
  const known = world.fonctionsOf(structure.id)
  const fonction = /^\d{1,9}$/.test(fonctionText)
    ? known.find((candidate) => candidate.id === Number(fonctionText))
    : known.find((candidate) => lower(candidate.libelle) === lower(fonctionText))
  if (!fonction) {
    const connues = known.length === 0 ? '—' : known.map((candidate) => candidate.libelle).join(', ')
    problems.push({
      code: 'FONCTION_INCONNUE',
      colonne: 'fonction',
      valeurs: { valeur: fonctionText, structure: structure.nom, connues },
    })
    return null
  }
  if (!isRead(debut) || !isRead(fin) || problems.length > 0) return null
  return { structure: structure as TreeNode & { id: number }, fonction, debut: debut.value, fin: fin.value }
}

/** The one answer to a row naming an account the importer may not change: outside their scope, or astride it. */
const OUTSIDE: RowProblem = { code: 'COMPTE_HORS_PERIMETRE', colonne: 'mail' }

/** An address the row gives that is another account's address or login: said so only of an account in sight. */
const addressTaken = (holder: FoundUser, valeur: string): RowProblem =>
  holder.visible ? { code: 'ADRESSE_PRISE', colonne: 'mail', valeurs: { valeur } } : OUTSIDE

/** Whether a user holds that function of that structure on one of the post's days. */
const holds = (postes: HeldPoste[], poste: RowPoste) =>
  postes.some(
    ([structure, fonction, debut, fin]) =>
      structure === poste.structure.id && fonction === poste.fonction.id && debut <= poste.fin && poste.debut <= fin,
  )

const heldOf = (poste: RowPoste): HeldPoste => [poste.structure.id, poste.fonction.id, poste.debut, poste.fin]

export function planUserRow(row: FileRow, world: Lookups, state: UserFileState): Planned<UserAction> {
  const cells = row.cells.map(cellText)
  const [mailText = '', nomText = '', prenomText = '', loginText = '', adminText = '', ...rest] = cells
  const actifText = rest[4] ?? ''
  const problems: RowProblem[] = []
  const mail = mailCell(mailText, 'mail')
  const nom = nameCell(nomText, 'nom')
  const prenom = nameCell(prenomText, 'prenom')
  const admin = flagCell(adminText, 'admin')
  const actif = flagCell(actifText, 'actif')
  for (const read of [mail, nom, prenom, admin, actif] as ({ value: unknown } | { problem: RowProblem })[]) {
    if ('problem' in read) problems.push(read.problem)
  }
  const poste = rowPoste(rest.slice(0, 4), world, problems)
  const fail = (...more: RowProblem[]): Planned<UserAction> => ({
    line: row.line,
    kind: 'erreur',
    problems: [...problems, ...more],
  })
  if (!isRead(mail) || !isRead(nom) || !isRead(prenom) || !isRead(admin) || !isRead(actif) || problems.length > 0) {
    return fail()
  }
  const identity: Identity = {
    mail: mail.value,
    nom: nom.value,
    prenom: prenom.value,
    admin: admin.value,
    actif: actif.value,
  }
  const key = lower(mail.value)
  // What an earlier row of the file did to the same person (the file's own check of rows that disagree: repeats.ts).
  const earlier = state.get(key)

  const found = world.byMail.get(key) ?? (loginText === '' ? undefined : world.byLogin.get(lower(loginText)))
  if (!found && !earlier) {
    // No account of that address or login: a new user, whose address is not another account's login.
    if (loginText !== '' && lower(loginText) !== key) return fail({ code: 'LOGIN_NOUVEAU', colonne: 'login' })
    const holder = world.byLogin.get(key)
    if (holder) return fail(addressTaken(holder, mail.value))
    if (!poste && !world.importer.racine) return fail({ code: 'POSTE_REQUIS', colonne: 'structure' })
    state.set(key, { postes: poste ? [heldOf(poste)] : [] })
    const user = { ...identity, admin: identity.admin ?? false, actif: identity.actif ?? true }
    return { line: row.line, kind: 'creee', problems: [], action: { kind: 'create', user, poste } }
  }
  if (!found && earlier) {
    // A further post of a user an earlier row of the file creates.
    if (!poste || holds(earlier.postes, poste)) return { line: row.line, kind: 'inchangee', problems: [] }
    earlier.postes.push(heldOf(poste))
    return {
      line: row.line,
      kind: 'modifiee',
      problems: [],
      action: { kind: 'update', target: { mail: mail.value }, set: {}, poste },
    }
  }
  return planFound(row, world, state, found as FoundUser, { identity, loginText, poste, earlier })
}

/** A row naming an existing user: what it changes of them, if it may. */
function planFound(
  row: FileRow,
  world: Lookups,
  state: UserFileState,
  found: FoundUser,
  given: {
    identity: Identity
    loginText: string
    poste: RowPoste | null
    earlier: { postes: HeldPoste[] } | undefined
  },
): Planned<UserAction> {
  const { identity, loginText, poste, earlier } = given
  const fail = (problem: RowProblem): Planned<UserAction> => ({ line: row.line, kind: 'erreur', problems: [problem] })
  // The importer's scope first: of an account they cannot see, a row learns nothing (its login, its state, whether its
  // names and flags are the row's), whatever it gives.
  if (!found.visible) return fail(OUTSIDE)
  if (found.supprime) return fail({ code: 'COMPTE_SUPPRIME', colonne: 'mail' })
  if (found.registration_state === 'PENDING') return fail({ code: 'INSCRIPTION_EN_ATTENTE', colonne: 'mail' })
  if (loginText !== '' && lower(loginText) !== lower(found.login)) {
    return fail({ code: 'LOGIN_FIXE', colonne: 'login', valeurs: { login: found.login } })
  }
  const held = earlier?.postes ?? (JSON.parse(found.postes) as HeldPoste[])
  const set: Extract<UserAction, { kind: 'update' }>['set'] = {}
  // A row given again after an earlier one of the file changed the user: the earlier one's values stand.
  if (!earlier) {
    if (identity.nom !== found.nom) set.nom = identity.nom
    if (identity.prenom !== found.prenom) set.prenom = identity.prenom
    if (identity.admin !== undefined && identity.admin !== (found.admin === 1)) set.admin = identity.admin
    if (identity.actif !== undefined && identity.actif !== (found.actif === 1)) set.actif = identity.actif
    if (lower(identity.mail) !== lower(found.mail)) set.mail = identity.mail
  }
  const addsPoste = poste !== null && !holds(held, poste)
  const mark = () => {
    const postes = addsPoste && poste ? [...held, heldOf(poste)] : held
    if (earlier) earlier.postes = postes
    else state.set(lower(identity.mail), { postes })
  }
  if (Object.keys(set).length === 0 && !addsPoste) {
    mark()
    // Imported earlier without an invitation: an import that invites sends it now (`run.ts`), changing nothing else.
    const invitable =
      !earlier && found.modification === 1 && found.id !== world.importer.id && awaitsInvitation(found, nowIso())
    return {
      line: row.line,
      kind: 'inchangee',
      problems: [],
      ...(invitable
        ? {
            invitable: {
              kind: 'update' as const,
              target: { id: found.id, version: found.version, login: found.login },
              set: {},
              poste: null,
            },
          }
        : {}),
    }
  }
  if (found.id === world.importer.id) return fail({ code: 'PROPRE_COMPTE', colonne: null })
  if (!found.modification) return fail(OUTSIDE)
  const isAdmin = set.admin ?? found.admin === 1
  if (set.actif !== undefined && (found.admin === 1 || isAdmin)) return fail({ code: 'ADMIN_ETAT', colonne: 'actif' })
  const holder =
    set.mail === undefined ? undefined : (world.byMail.get(lower(set.mail)) ?? world.byLogin.get(lower(set.mail)))
  if (set.mail !== undefined && holder && holder.id !== found.id) return fail(addressTaken(holder, set.mail))
  mark()
  return {
    line: row.line,
    kind: 'modifiee',
    problems: [],
    action: {
      kind: 'update',
      target: { id: found.id, version: found.version, login: found.login },
      set,
      poste: addsPoste ? poste : null,
    },
  }
}
