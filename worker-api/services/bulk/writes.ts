import { type Expression, type SqlBool, sql } from 'kysely'
import type { RowProblem } from '../../contract/bulk/bulk'
import type { AdministrationAction } from '../../contract/log-labels'
import { abortUnless, type Compilable, type DB } from '../../db/client'
import { pathInScope, userManageable, type Viewer } from '../../lib/scope'
import { ofUsers, tellAccess } from '../catalogue/access-told'
import { copyTemplate } from '../catalogue/templates'
import type { Actor } from '../core/actor'
import { logEntry } from '../core/audit'
import { posteEvents, userEvents } from '../core/events'
import { invitationWrites } from '../organisation/invitations'
import { loginAfterMailChange, mailCorrection, requestMailChange } from '../organisation/mail-change'
import { insertStructure } from '../organisation/structure-writes'
import { revokeSessions, uninvite } from '../organisation/user-admin'
import { createdUserId, invitedUserRow } from '../organisation/user-creation'
import type { StructureAction } from './structure-plan'
import type { Tree } from './tree'
import type { RowPoste, UserAction } from './user-plan'
import { awaitsInvitation, type FoundUser } from './user-reads'

/**
 * The statements of a lot's rows, each write with its audit entry and, where it rests on what was read (a user's
 * version, the importer's right to manage them, a structure's type), a guard that stops the whole lot's batch when
 * that changed meanwhile: the lot is then planned again on what D1 holds.
 */

/** Each problem of a row as a row of `import_erreur`, in one statement whatever their number. */
export function errorsInsert(db: DB, importId: number, errors: [number, string | null, string, string | null][]) {
  return db
    .insertInto('import_erreur')
    .columns(['import_id', 'ligne', 'colonne', 'code', 'valeurs'])
    .expression(
      db
        .selectFrom(sql<{ value: string }>`json_each(${JSON.stringify(errors)})`.as('e'))
        .select([
          sql<number>`${importId}`.as('import_id'),
          sql<number>`json_extract(e.value, '$[0]')`.as('ligne'),
          sql<string | null>`json_extract(e.value, '$[1]')`.as('colonne'),
          sql<string>`json_extract(e.value, '$[2]')`.as('code'),
          sql<string | null>`json_extract(e.value, '$[3]')`.as('valeurs'),
        ]),
    )
}

/** A row's problems as `errorsInsert` takes them. */
export const errorRows = (line: number, problems: RowProblem[]): [number, string | null, string, string | null][] =>
  problems.map((problem) => [
    line,
    problem.colonne,
    problem.code,
    problem.valeurs ? JSON.stringify(problem.valeurs) : null,
  ])

/** What a lot's writes need to know of their import. */
export type LotWriter = {
  db: DB
  importer: Actor
  viewer: Viewer
  importId: number
  domaine: string
  origine: string
  inviter: boolean
  now: Date
}

/** A row's audit entry, written with the lot's others by `withEntries`. */
type LotEntry = { nomLog: AdministrationAction; commentaire: string }
type LotWrite = Compilable | LotEntry

const entry = (nomLog: AdministrationAction, commentaire: string): LotEntry => ({ nomLog, commentaire })

/**
 * A lot's statements, its rows' audit entries as one last statement (one row each, in the order of the file, whatever
 * their number): a hundred inserts of one row cost D1 a third of the lot's batch. The batch stops whole at a guard, so
 * an entry is written exactly when its row's writes are.
 */
function withEntries(w: LotWriter, writes: LotWrite[]): Compilable[] {
  const entries: [AdministrationAction, string][] = []
  const statements: Compilable[] = []
  for (const write of writes) {
    if ('nomLog' in write) entries.push([write.nomLog, write.commentaire])
    else statements.push(write)
  }
  if (entries.length === 0) return statements
  const { date, utilisateur_id, compte_service_id } = logEntry(w.importer.id, 'ADMINISTRATION', '', null)
  const { db } = w
  return [
    ...statements,
    db
      .insertInto('log')
      .columns(['date', 'utilisateur_id', 'compte_service_id', 'type_log', 'nom_log', 'commentaire'])
      .expression(
        db
          .selectFrom(sql<{ value: string }>`json_each(${JSON.stringify(entries)})`.as('e'))
          .select([
            sql<string>`${date}`.as('date'),
            sql<number | null>`${utilisateur_id}`.as('utilisateur_id'),
            sql<number | null>`${compte_service_id}`.as('compte_service_id'),
            sql<string>`'ADMINISTRATION'`.as('type_log'),
            sql<string>`json_extract(e.value, '$[0]')`.as('nom_log'),
            sql<string>`json_extract(e.value, '$[1]')`.as('commentaire'),
          ])
          .orderBy(sql`e.key`),
      ),
  ]
}

const posteLabel = (poste: RowPoste) =>
  `${poste.fonction.libelle}, ${poste.structure.nom}, ${poste.debut} → ${poste.fin}`

const insertPoste = (db: DB, user: number | Expression<number>, poste: RowPoste) =>
  db.insertInto('poste').values({
    utilisateur_id: user,
    structure_id: poste.structure.id,
    fonction_id: poste.fonction.id,
    date_debut: poste.debut,
    date_fin: poste.fin,
  })

/**
 * The lot's one condition on where its posts go: every function named still in a structure of the importer's scope
 * (one statement, the functions as one JSON value whatever their number).
 */
export function postesPlaced(db: DB, viewer: Viewer, postes: RowPoste[]): Expression<SqlBool> {
  const fonctions = [...new Set(postes.map((poste) => poste.fonction.id))]
  if (fonctions.length === 0) return sql<SqlBool>`1 = 1`
  return sql<SqlBool>`(select count(*) from fonction placed
    join structure placed_structure on placed_structure.id = placed.structure_id
    where placed.id in (select value from json_each(${JSON.stringify(fonctions)}))
      and ${pathInScope(db, viewer, sql.ref<string>('placed_structure.path'))}) = ${fonctions.length}`
}

/** A new user, their post, their invitation if asked for, and their entry. */
async function createUser(
  w: LotWriter,
  action: Extract<UserAction, { kind: 'create' }>,
  importer: string,
): Promise<LotWrite[]> {
  const { db } = w
  const { user, poste } = action
  const id = createdUserId(db, user.mail)
  const invitee = { id, login: user.mail, nom: user.nom, prenom: user.prenom, mail: user.mail, domain: w.domaine }
  const invitation =
    w.inviter && user.actif ? await invitationWrites(db, w.importer, invitee, { origin: w.origine }, w.now) : null
  const at = w.now.toISOString()
  return [
    db.insertInto('utilisateur').values(
      // A new user's login is their address (README, the import).
      invitedUserRow(
        { ...user, login: undefined },
        { domain: w.domaine, langue: w.importer.langue },
        invitation?.expiresAt ?? null,
        at,
      ),
    ),
    ...(poste ? [insertPoste(db, id, poste)] : []),
    ...(invitation ? [invitation.statements.link, invitation.statements.mail] : []),
    entry(
      'UTILISATEUR_CREATION',
      `${user.mail}${user.admin ? ' (admin)' : ''} : ${poste ? posteLabel(poste) : 'sans poste'}${importer}`,
    ),
  ]
}

/**
 * An existing user's changes: only while they are at the version read and the importer may manage them (`guarded`:
 * the first of the lot's rows naming them; the others follow its writes).
 */
async function updateUser(
  w: LotWriter,
  action: Extract<UserAction, { kind: 'update' }>,
  found: FoundUser | undefined,
  guarded: boolean,
  importer: string,
): Promise<LotWrite[]> {
  const { db } = w
  const { target, set, poste } = action
  if (!('id' in target) || !found) {
    // A further post of a user an earlier row of the lot creates.
    const id = createdUserId(db, 'mail' in target ? target.mail : '')
    return poste ? [insertPoste(db, id, poste), entry('POSTE_CREATION', `${posteLabel(poste)}${importer}`)] : []
  }
  const at = w.now.toISOString()
  const about = `#${found.id} ${found.login}`
  const managed = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where('utilisateur.id', '=', found.id)
    .where(userManageable(db, w.viewer))
  const writes: LotWrite[] = guarded ? [abortUnless(db, managed.where('utilisateur.version', '=', target.version))] : []
  const after: Compilable[] = []
  const invited = found.registration_state === 'INVITED'
  const said: string[] = []
  const nom = set.nom ?? found.nom
  const prenom = set.prenom ?? found.prenom
  if (set.nom !== undefined || set.prenom !== undefined) said.push(`nom : ${prenom} ${nom}`)
  if (set.mail !== undefined) {
    const user = { ...found, nom, prenom }
    if (invited) {
      const correction = await mailCorrection(
        db,
        w.importer,
        { ...user, mail: set.mail },
        found.mail,
        { origin: w.origine, userAgent: null },
        w.now,
        managed,
      )
      writes.push(...correction.before)
      after.push(...correction.after)
      said.push(`mail : ${set.mail}`)
    } else {
      const input = { mail: set.mail, nom, prenom }
      const context = { origin: w.origine, userAgent: null, by: w.importer, guard: null }
      after.push(...(await requestMailChange(db, user, input, context, w.now)))
    }
  }
  const fields = {
    ...(set.nom !== undefined || set.prenom !== undefined ? { nom, prenom } : {}),
    ...(set.mail !== undefined && invited ? { mail: set.mail, login: loginAfterMailChange(found, set.mail) } : {}),
    ...(set.admin !== undefined ? { admin: set.admin ? 1 : 0 } : {}),
    ...(set.actif !== undefined ? { actif: set.actif ? 1 : 0 } : {}),
  }
  if (Object.keys(fields).length > 0) {
    writes.push(
      db
        .updateTable('utilisateur')
        .set({ ...fields, updated_at: at })
        .where('id', '=', found.id),
    )
  }
  if (set.actif === false)
    after.push(revokeSessions(db, found.id, at, w.viewer.id), ...(invited ? uninvite(db, found.id, at) : []))
  // Activated, or active with no invitation under way (imported without one): an import that invites sends it.
  // A corrected address sends its own invitation (`mailCorrection`).
  const waiting = set.actif === undefined && set.mail === undefined && awaitsInvitation(found, at)
  const invites = invited && w.inviter && (set.actif === true || waiting)
  if (invites) {
    const invitation = await invitationWrites(db, w.importer, { ...found, nom, prenom }, { origin: w.origine }, w.now, {
      capped: true,
    })
    after.push(...Object.values(invitation.statements))
  }
  if (poste) {
    writes.push(insertPoste(db, found.id, poste))
    said.push(`+ poste ${posteLabel(poste)}`)
  }
  const entries = [
    ...(set.admin !== undefined
      ? [entry(set.admin ? 'UTILISATEUR_ADMIN' : 'UTILISATEUR_ADMIN_RETRAIT', `${about}${importer}`)]
      : []),
    ...(set.actif !== undefined
      ? [entry(set.actif ? 'UTILISATEUR_ACTIVATION' : 'UTILISATEUR_DESACTIVATION', `${about}${importer}`)]
      : []),
    ...(said.length > 0 ? [entry('UTILISATEUR_MODIFICATION', `${about} : ${said.join(' ; ')}${importer}`)] : []),
    ...(invites && set.actif === undefined ? [entry('INVITATION_RENVOI', `${about}${importer}`)] : []),
  ]
  return [...writes, ...after, ...entries]
}

/** The writes of a users lot's rows, in the order of the file. */
export async function userLotWrites(
  w: LotWriter,
  actions: UserAction[],
  users: FoundUser[],
  importer: string,
): Promise<Compilable[]> {
  const byId = new Map(users.map((user) => [user.id, user]))
  const guarded = new Set<number>()
  const writes: LotWrite[] = []
  for (const action of actions) {
    if (action.kind === 'create') {
      writes.push(...(await createUser(w, action, importer)))
      continue
    }
    const id = 'id' in action.target ? action.target.id : null
    const first = id !== null && !guarded.has(id)
    if (id !== null) guarded.add(id)
    writes.push(...(await updateUser(w, action, id === null ? undefined : byId.get(id), first, importer)))
  }
  return [...withEntries(w, writes), ...lotEvents(w, actions, byId)]
}

/**
 * What a users lot tells integrators (services/core/events.ts), once its writes are done: at most four statements
 * whatever its rows, as its entries are one. The users created, changed, deactivated, then the posts added.
 */
function lotEvents(w: LotWriter, actions: UserAction[], byId: Map<number, FoundUser>): Compilable[] {
  const { db } = w
  const actor = w.importer.id
  const created: string[] = []
  const changed = new Set<number>()
  const deactivated = new Set<number>()
  // [user id or null, address of a user the lot creates, structure, function, start, end]
  const posts: [number | null, string | null, number, number, string, string][] = []
  for (const action of actions) {
    if (action.kind === 'create') created.push(action.user.mail)
    const found = action.kind === 'update' && 'id' in action.target ? byId.get(action.target.id) : undefined
    if (action.kind === 'update' && found) {
      const { set } = action
      if (set.actif === false && found.actif === 1) deactivated.add(found.id)
      else if (
        (set.nom !== undefined && set.nom !== found.nom) ||
        (set.prenom !== undefined && set.prenom !== found.prenom) ||
        (set.mail !== undefined && found.registration_state === 'INVITED' && set.mail !== found.mail) ||
        (set.admin !== undefined && Number(set.admin) !== found.admin) ||
        (set.actif === true && found.actif === 0)
      )
        changed.add(found.id)
    }
    const poste = action.poste
    if (!poste) continue
    const mail = action.kind === 'create' ? action.user.mail : 'mail' in action.target ? action.target.mail : null
    posts.push([found?.id ?? null, found ? null : mail, poste.structure.id, poste.fonction.id, poste.debut, poste.fin])
  }
  for (const id of deactivated) changed.delete(id)
  const ids = (set: Set<number>) => (id: Expression<number>) =>
    sql<SqlBool>`${id} in (select value from json_each(${JSON.stringify([...set])}))`
  return [
    ...(created.length > 0
      ? [
          userEvents(
            db,
            'utilisateur.cree',
            actor,
            (id) =>
              sql<SqlBool>`${id} in (select created.id from json_each(${JSON.stringify(created)}) lot_mail
              join utilisateur created on created.mail = lot_mail.value collate nocase)`,
          ),
        ]
      : []),
    ...(changed.size > 0 ? [userEvents(db, 'utilisateur.modifie', actor, ids(changed))] : []),
    ...(deactivated.size > 0 ? [userEvents(db, 'utilisateur.desactive', actor, ids(deactivated))] : []),
    ...(posts.length > 0
      ? [
          posteEvents(
            db,
            'poste.cree',
            actor,
            (post) => sql<SqlBool>`${post} in (select added.id from json_each(${JSON.stringify(posts)}) lot_poste
              join poste added on added.structure_id = json_extract(lot_poste.value, '$[2]')
                and added.fonction_id = json_extract(lot_poste.value, '$[3]')
                and added.date_debut = json_extract(lot_poste.value, '$[4]')
                and added.date_fin = json_extract(lot_poste.value, '$[5]')
              where added.utilisateur_id = coalesce(json_extract(lot_poste.value, '$[0]'),
                (select holder.id from utilisateur holder where holder.mail = json_extract(lot_poste.value, '$[1]') collate nocase)))`,
          ),
          // What the posts give their holders.
          ...tellAccess(
            db,
            actor,
            ofUsers(sql`(select coalesce(json_extract(lot_poste.value, '$[0]'), (select holder.id from utilisateur holder
              where holder.mail = json_extract(lot_poste.value, '$[1]') collate nocase)) from json_each(${JSON.stringify(posts)}) lot_poste)`),
            w.now,
          ),
        ]
      : []),
  ]
}

/** The writes of a structures lot's rows: new structures (with their type's functions) and new types. */
export function structureLotWrites(w: LotWriter, tree: Tree, actions: StructureAction[], importer: string) {
  const { db } = w
  const at = w.now.toISOString()
  const byName = (nom: string) => sql<number>`(select id from structure where nom = ${nom} collate nocase)`
  const writes = actions.flatMap((action): LotWrite[] => {
    const type = tree.type(action.typeId)?.libelle ?? String(action.typeId)
    if (action.kind === 'create') {
      const parent = action.parent
      const inScope = (id: number) =>
        db
          .selectFrom('structure as p')
          .select('p.id')
          .where('p.id', '=', id)
          .where(pathInScope(db, w.viewer, sql.ref<string>('p.path')))
      return [
        // A parent the tree holds is still in scope; one the lot creates is, as its own parent was.
        ...(parent.id === null ? [] : [abortUnless(db, inScope(parent.id))]),
        insertStructure(db, {
          nom: action.nom,
          typeId: action.typeId,
          parentId: parent.id ?? byName(parent.nom),
          createdAt: at,
        }),
        ...copyTemplate(db, byName(action.nom), action.typeId, at),
        entry('STRUCTURE_CREATION', `${action.nom} (${type})${importer}`),
      ]
    }
    const id = action.node.id ?? 0
    return [
      abortUnless(
        db,
        db
          .selectFrom('structure as s')
          .select('s.id')
          .where('s.id', '=', id)
          .where('s.type_id', '=', action.node.typeId)
          .where(pathInScope(db, w.viewer, sql.ref<string>('s.path'))),
      ),
      db.updateTable('structure').set({ type_id: action.typeId }).where('id', '=', id),
      entry('STRUCTURE_MODIFICATION', `${action.node.nom} : type ${type}${importer}`),
    ]
  })
  return withEntries(w, writes)
}
