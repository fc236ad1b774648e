import { env } from 'cloudflare:test'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ImportType } from '../../../worker-api/contract/bulk/bulk'
import { IMPORT_ATTEMPTS, STALLED_MINUTES } from '../../../worker-api/services/bulk/run'
import { api, errorBody, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  insertServiceAccount,
  isoDate,
  serviceAccountToken,
  sessionFor,
  wireDate,
} from '../helpers'
import { jobsQueue } from '../jobs-queue'

/**
 * An import run in the background (`POST rest/bd/import` → 202, then one queue message per lot of 100 rows): what it
 * writes, with its audit entries; the same file twice changing nothing; the export imported back; a delegated
 * administrator kept in their sub-tree; a message delivered twice writing once; a lot whose reads went stale planned
 * again; the importer's loss of rights stopping it; a lost message sent again by the cron.
 */

const USERS_HEADER = 'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif'
const today = wireDate(isoDate(0))
const future = wireDate(isoDate(365))

let root: { id: number; token: string }
let nord: { id: number; token: string }

beforeAll(async () => {
  await createOrganisation()
  const rootAdmin = await createUser({ admin: true, postes: [currentPost(1, 1, 400)] })
  root = { id: rootAdmin.id, token: (await sessionFor(rootAdmin.id)).accessToken }
  await db().insertInto('fonction').values({ id: 21, libelle: 'Directeur Nord', structure_id: 2 }).execute()
  const nordAdmin = await createUser({ admin: true, postes: [{ ...currentPost(2, 21, 400) }] })
  nord = { id: nordAdmin.id, token: (await sessionFor(nordAdmin.id)).accessToken }
  // The agencies' template: a new agency starts with these functions.
  await db()
    .insertInto('modele_fonction')
    .values([
      { type_id: 3, libelle: 'Chauffeur', position: 1 },
      { type_id: 3, libelle: 'Chef d’agence', position: 2 },
    ])
    .execute()
})

type ImportQuery = { essai?: 'true'; conserver?: 'true'; invitation?: 'true'; fichier?: string }

/** A file sent to the import as it is (the client's `init`): the route reads its body raw, as text/csv. */
const sendFile = (
  token: string,
  type: ImportType,
  text: string,
  queue?: ReturnType<typeof jobsQueue>,
  query: ImportQuery = {},
) =>
  api(token, queue?.env).rest.bd.import.$post(
    { query: { type, ...query } },
    { headers: { 'Content-Type': 'text/csv' }, init: { body: text } },
  )

/** A file's import, started (202): its id. */
const importFile = (
  token: string,
  type: ImportType,
  text: string,
  queue: ReturnType<typeof jobsQueue>,
  query: ImportQuery = {},
) => okBody(sendFile(token, type, text, queue, query), 202)

const statusOf = (token: string, id: number) =>
  okBody(api(token).rest.bd.import[':id'].$get({ param: { id }, query: {} }))

const logsOf = (nomLog: string) =>
  db().selectFrom('log').select(['commentaire', 'utilisateur_id']).where('nom_log', '=', nomLog).execute()

/** Runs a file to its end; answers its final state. */
async function imported(token: string, type: ImportType, text: string, query: ImportQuery = {}) {
  const queue = jobsQueue()
  const body = await importFile(token, type, text, queue, query)
  await queue.drain()
  return { status: await statusOf(token, body.id), queue }
}

describe('an import of structures', () => {
  it('creates each structure under its parent, with its functions and its entry, lot after lot', async () => {
    // 250 agencies in three lots, each named under a direction the first lot creates.
    const rows = ['nom;type;parent', 'Direction Est;Direction;Groupe']
    for (let n = 1; n <= 250; n++) rows.push(`Agence Est ${n};Agence;Groupe / Direction Est`)
    const queue = jobsQueue()
    const body = await importFile(root.token, 'structures', rows.join('\r\n'), queue, { fichier: 'est.csv' })
    expect(await statusOf(root.token, body.id)).toMatchObject({ etat: 'EN_ATTENTE', lignes: 251, traitees: 0 })
    expect(await queue.deliverOne()).toBe(true)
    const halfway = await statusOf(root.token, body.id)
    expect(halfway).toMatchObject({ etat: 'EN_COURS', traitees: 100, creees: 100 })
    expect(halfway.secondesRestantes).not.toBeNull()
    await queue.drain()
    expect(queue.delivered.map((message) => message.body.lot)).toEqual([1, 2, 3])
    expect(await statusOf(root.token, body.id)).toMatchObject({
      etat: 'TERMINE',
      lignes: 251,
      traitees: 251,
      creees: 251,
      totalErreurs: 0,
      secondesRestantes: 0,
    })
    const agency = await db()
      .selectFrom('structure as s')
      .innerJoin('structure as p', 'p.id', 's.parent_id')
      .select(['s.id', 's.path', 'p.nom as parent'])
      .where('s.nom', '=', 'Agence Est 250')
      .executeTakeFirstOrThrow()
    expect(agency.parent).toBe('Direction Est')
    expect(agency.path).toMatch(new RegExp(`/${agency.id}/$`))
    const fonctions = await db()
      .selectFrom('fonction')
      .select('libelle')
      .where('structure_id', '=', agency.id)
      .execute()
    expect(fonctions.map((fonction) => fonction.libelle).sort()).toEqual(['Chauffeur', 'Chef d’agence'])
    expect(
      (await logsOf('STRUCTURE_CREATION')).filter((log) => log.commentaire?.includes(`import #${body.id}`)),
    ).toHaveLength(251)
    const [entry] = (await logsOf('ORGANISATION_IMPORT')).filter((log) => log.commentaire?.startsWith(`#${body.id} `))
    expect(entry).toEqual({
      utilisateur_id: root.id,
      commentaire: `#${body.id} est.csv (structures) : 251 lignes, 251 créées, 0 modifiées, 0 inchangées, 0 en erreur`,
    })
  })
})

describe('an import on a server without the jobs queue', () => {
  it('is refused before anything is stored: 503, no import, no entry', async () => {
    const before = await db()
      .selectFrom('import')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const response = await call('/rest/bd/import?type=structures', {
      method: 'POST',
      token: root.token,
      body: 'nom;type;parent\r\nAgence Sans File;Agence;Groupe',
      headers: { 'Content-Type': 'text/csv' },
      env: { JOBS: undefined },
    })
    await expectError(response, 503, 'TECHNICAL_ERROR')
    const after = await db()
      .selectFrom('import')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })
})

describe('an import of structures that changes a type', () => {
  it('gives a structure the type its row names, when its parent and children allow it', async () => {
    await db().insertInto('type_structure').values({ id: 30, libelle: 'Agence relais', parent_type_id: 2 }).execute()
    await db()
      .insertInto('structure')
      .values({ id: 300, nom: 'Agence Roubaix', type_id: 3, parent_id: 2, path: '/1/2/300/' })
      .execute()
    const { status } = await imported(
      root.token,
      'structures',
      'nom;type;parent\nAgence Roubaix;Agence relais;Direction Nord',
    )
    expect(status).toMatchObject({ modifiees: 1, totalErreurs: 0 })
    const agency = await db().selectFrom('structure').select('type_id').where('id', '=', 300).executeTakeFirstOrThrow()
    expect(agency.type_id).toBe(30)
    const [entry] = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'STRUCTURE_MODIFICATION')
      .where('commentaire', 'like', `%import #${status.id})`)
      .execute()
    expect(entry?.commentaire).toBe(`Agence Roubaix : type Agence relais (import #${status.id})`)
  })
})

describe('an import of users', () => {
  const file = (rows: string[]) => [USERS_HEADER, ...rows].join('\n')
  /** A row naming a user of `createUser` (their names as made), without a post. */
  const row = (user: { login: string }, mail: string, flags: string, actif: string) =>
    `${mail};Nom${user.login.slice(4)};Prenom${user.login.slice(4)};${user.login};${flags};;;;;${actif}`
  const ada = `ada.import@example.test;Lovelace;Ada;;non;Agence Lille;Agent de quai;${today};${future};oui`

  it('creates users with their posts and invitations, queued for the mail provider’s pace', async () => {
    const { status } = await imported(
      root.token,
      'utilisateurs',
      file([
        ada,
        `ada.import@example.test;Lovelace;Ada;;non;Direction Sud;Responsable;${today};${future};oui`,
        `grace.import@example.test;Hopper;Grace;;oui;Agence Lille;Agent de quai;${today};${future};non`,
        `bad.import@example.test;Nom;Prenom;;non;Agence Lille;Inconnue;${today};${future};oui`,
      ]),
      { invitation: 'true' },
    )
    expect(status).toMatchObject({ etat: 'TERMINE', lignes: 4, creees: 2, modifiees: 1, lignesEnErreur: 1 })
    expect(status.erreurs).toEqual([{ ligne: 5, colonne: 'fonction', message: expect.stringContaining('Inconnue') }])
    const ada_ = await db()
      .selectFrom('utilisateur')
      .select(['id', 'login', 'actif', 'admin', 'registration_state'])
      .where('mail', '=', 'ada.import@example.test')
      .executeTakeFirstOrThrow()
    expect(ada_).toMatchObject({ login: 'ada.import@example.test', actif: 1, admin: 0, registration_state: 'INVITED' })
    const postes = await db().selectFrom('poste').select('structure_id').where('utilisateur_id', '=', ada_.id).execute()
    expect(postes.map((poste) => poste.structure_id).sort()).toEqual([3, 4])
    // Only the active user is invited; the mail waits in the outbox for the minute's delivery.
    const mails = await db()
      .selectFrom('outbox')
      .select(['to_address', 'sent_at'])
      .where('to_address', 'like', '%.import@example.test')
      .execute()
    expect(mails).toEqual([{ to_address: 'ada.import@example.test', sent_at: null }])
  })

  it('changes nothing the second time the same file is imported', async () => {
    const rows = [
      `twice@example.test;Deux;Fois;;non;Agence Lille;Agent de quai;${today};${future};oui`,
      `twice2@example.test;Deux;Fois;;non;Agence Lille;Agent de quai;${today};${future};non`,
    ]
    const first = await imported(root.token, 'utilisateurs', file(rows))
    expect(first.status).toMatchObject({ creees: 2, modifiees: 0, inchangees: 0 })
    const before = await db().selectFrom('log').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
    const second = await imported(root.token, 'utilisateurs', file(rows))
    expect(second.status).toMatchObject({ etat: 'TERMINE', creees: 0, modifiees: 0, inchangees: 2, totalErreurs: 0 })
    // One entry: the import's own.
    const after = await db().selectFrom('log').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
    expect(Number(after.n) - Number(before.n)).toBe(1)
  })

  it('updates a changed row’s user, adds a new post and leaves an existing one alone', async () => {
    await imported(
      root.token,
      'utilisateurs',
      file([`moves@example.test;Avant;Prenom;;non;Agence Lille;Agent de quai;${today};${future};oui`]),
    )
    const { status } = await imported(
      root.token,
      'utilisateurs',
      file([
        `moves@example.test;Apres;Prenom;;non;Agence Lille;Agent de quai;${today};${future};oui`,
        `moves@example.test;Apres;Prenom;;non;Direction Sud;Responsable;${today};${future};oui`,
      ]),
    )
    expect(status).toMatchObject({ creees: 0, modifiees: 2, inchangees: 0, totalErreurs: 0 })
    const user = await db()
      .selectFrom('utilisateur')
      .select(['id', 'nom'])
      .where('mail', '=', 'moves@example.test')
      .executeTakeFirstOrThrow()
    expect(user.nom).toBe('Apres')
    const postes = await db().selectFrom('poste').select('structure_id').where('utilisateur_id', '=', user.id).execute()
    expect(postes.map((poste) => poste.structure_id).sort()).toEqual([3, 4])
    const modified = (await logsOf('UTILISATEUR_MODIFICATION')).filter((log) =>
      log.commentaire?.includes(`#${user.id} `),
    )
    expect(modified.map((log) => log.commentaire)).toEqual([
      expect.stringContaining('nom : Prenom Apres'),
      expect.stringContaining('+ poste Responsable, Direction Sud'),
    ])
  })

  it('corrects an invited user’s address at once, and leaves an administrator’s state to the screens', async () => {
    const signedUp = await createUser({ postes: [currentPost(4, 2, 400)] })
    const invited = await createUser({ postes: [currentPost(4, 2, 400)], password: null, registration: 'INVITED' })
    const adminUser = await createUser({ admin: true, postes: [currentPost(4, 2, 400)] })
    const session = await sessionFor(signedUp.id)
    const { status } = await imported(
      root.token,
      'utilisateurs',
      file([
        // Made an administrator and deactivated at once: an administrator's state does not change by an import.
        row(signedUp, `${signedUp.login}@example.test`, 'oui', 'non'),
        // Found by login: an invited user's address is corrected at once (and the user deactivated).
        row(invited, `corrige.${invited.login}@example.test`, 'non', 'non'),
        row(adminUser, `${adminUser.login}@example.test`, 'oui', 'non'),
      ]),
    )
    expect(status.erreurs.map(({ ligne, colonne }) => [ligne, colonne])).toEqual([
      [2, 'actif'],
      [4, 'actif'],
    ])
    expect(status).toMatchObject({ modifiees: 1, lignesEnErreur: 2 })
    const read = (id: number) =>
      db()
        .selectFrom('utilisateur')
        .select(['mail', 'login', 'actif', 'admin'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    expect(await read(invited.id)).toEqual({
      mail: `corrige.${invited.login}@example.test`,
      login: invited.login,
      actif: 0,
      admin: 0,
    })
    // Untouched: its rows were errors.
    expect(await read(signedUp.id)).toMatchObject({ mail: `${signedUp.login}@example.test`, actif: 1, admin: 0 })
    expect(await call('/rest/bd/session', { token: session.accessToken }).then((r) => r.status)).toBe(200)
  })

  it('deactivates a user (their sessions end), makes one an administrator, asks a new address to be confirmed', async () => {
    const leaving = await createUser({ postes: [currentPost(4, 2, 400)] })
    const promoted = await createUser({ postes: [currentPost(4, 2, 400)] })
    const moving = await createUser({ postes: [currentPost(4, 2, 400)] })
    const session = await sessionFor(leaving.id)
    const { status } = await imported(
      root.token,
      'utilisateurs',
      file([
        row(leaving, `${leaving.login}@example.test`, 'non', 'non'),
        row(promoted, `${promoted.login}@example.test`, 'oui', 'oui'),
        row(moving, `ailleurs.${moving.login}@example.test`, '', ''),
      ]),
    )
    expect(status).toMatchObject({ modifiees: 3, totalErreurs: 0 })
    const read = (id: number) =>
      db().selectFrom('utilisateur').select(['mail', 'actif', 'admin']).where('id', '=', id).executeTakeFirstOrThrow()
    expect(await read(leaving.id)).toMatchObject({ actif: 0 })
    expect((await call('/rest/bd/session', { token: session.accessToken })).status).toBe(401)
    expect(await read(promoted.id)).toMatchObject({ admin: 1 })
    // The address moves once confirmed from the new mailbox, as on the screens.
    expect(await read(moving.id)).toMatchObject({ mail: `${moving.login}@example.test` })
    const confirm = await db()
      .selectFrom('mail_token')
      .select('new_mail')
      .where('utilisateur_id', '=', moving.id)
      .where('purpose', '=', 'MAIL_CHANGE')
      .execute()
    expect(confirm).toEqual([{ new_mail: `ailleurs.${moving.login}@example.test` }])
    const entries = await db()
      .selectFrom('log')
      .select('nom_log')
      .where('commentaire', 'like', `%import #${status.id})`)
      .orderBy('id')
      .execute()
    expect(entries.map((entry) => entry.nom_log)).toEqual(['UTILISATEUR_DESACTIVATION', 'UTILISATEUR_ADMIN'])
  })

  it('round-trips: the export of the scope imported back changes nothing', async () => {
    for (const type of ['structures', 'utilisateurs'] as const) {
      const exported = await (await call(`/rest/bd/export/${type}.csv`, { token: root.token })).text()
      const { status } = await imported(root.token, type, exported)
      expect(status).toMatchObject({ etat: 'TERMINE', creees: 0, modifiees: 0, totalErreurs: 0 })
      expect(status.inchangees).toBe(status.lignes)
    }
  })

  it('keeps a delegated administrator in their sub-tree: a row outside it is an error, and nothing is written there', async () => {
    const { status } = await imported(
      nord.token,
      'utilisateurs',
      file([
        `nord.import@example.test;Nord;Prenom;;non;Agence Lille;Agent de quai;${today};${future};oui`,
        `sud.import@example.test;Sud;Prenom;;non;Direction Sud;Responsable;${today};${future};oui`,
        // A user of another branch: the address is theirs, not this administrator's to change.
        `ada.import@example.test;Autre;Nom;;non;Agence Lille;Agent de quai;${today};${future};oui`,
      ]),
    )
    expect(status).toMatchObject({ creees: 1, lignesEnErreur: 2 })
    expect(status.erreurs.map(({ ligne, colonne }) => [ligne, colonne])).toEqual([
      [3, 'structure'],
      [4, 'mail'],
    ])
    const sud = await db()
      .selectFrom('utilisateur')
      .select('id')
      .where('mail', '=', 'sud.import@example.test')
      .execute()
    expect(sud).toEqual([])
    const ada = await db()
      .selectFrom('utilisateur')
      .select('nom')
      .where('mail', '=', 'ada.import@example.test')
      .executeTakeFirstOrThrow()
    expect(ada.nom).toBe('Lovelace')
  })

  it('gives every error in a CSV file, in the reader’s language', async () => {
    const { status } = await imported(
      root.token,
      'utilisateurs',
      file([
        'not-a-mail;Nom;Prenom;;;;;;;',
        `x.import@example.test;N;Prenom;;;Agence Lille;Agent de quai;${today};${future};`,
      ]),
    )
    const response = await call(`/rest/bd/import/${status.id}/erreurs.csv`, {
      token: root.token,
      headers: { 'Accept-Language': 'en' },
    })
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect((await response.text()).split('\r\n')).toEqual([
      '\uFEFFLine,Column,Message',
      '2,mail,“not-a-mail” is not a valid mail address of at most 50 characters.',
      '3,nom,nom must hold 3 to 50 characters (1).',
      '',
    ])
  })

  it('is the author’s to follow: another administrator gets 404', async () => {
    const { status } = await imported(root.token, 'utilisateurs', file([]))
    expect(status.etat).toBe('TERMINE')
    expect((await call(`/rest/bd/import/${status.id}`, { token: nord.token })).status).toBe(404)
    expect((await call(`/rest/bd/import/${status.id}/erreurs.csv`, { token: nord.token })).status).toBe(404)
  })

  it('refuses a file with a wrong header whole (400), keeping nothing', async () => {
    const queue = jobsQueue()
    const before = await db().selectFrom('import').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
    const response = await sendFile(root.token, 'utilisateurs', 'nom;type;parent\nA;B;C', queue)
    await errorBody(response, 400, 'VALIDATION_FAILED')
    expect(queue.waiting).toEqual([])
    const after = await db().selectFrom('import').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
  })
})

describe('a service account moving users in', () => {
  it('imports within its structure’s sub-tree, each write in the history under its name', async () => {
    const account = await insertServiceAccount({ structure: 2, scopes: 'api', nom: 'Passerelle RH import' })
    const token = await serviceAccountToken(account)
    const { status } = await imported(
      token,
      'utilisateurs',
      [
        USERS_HEADER,
        `rh.nord@example.test;Nord;Service;;non;Agence Lille;Agent de quai;${today};${future};oui`,
        `rh.sud@example.test;Sud;Service;;non;Direction Sud;Responsable;${today};${future};oui`,
      ].join('\n'),
    )
    expect(status).toMatchObject({ etat: 'TERMINE', creees: 1, lignesEnErreur: 1 })
    expect(status.erreurs).toEqual([
      { ligne: 3, colonne: 'structure', message: expect.stringContaining('Direction Sud') },
    ])
    const entries = await db()
      .selectFrom('log')
      .select(['nom_log', 'utilisateur_id', 'compte_service_id'])
      .where('compte_service_id', '=', account.id)
      .orderBy('id')
      .execute()
    expect(entries).toEqual([
      { nom_log: 'UTILISATEUR_CREATION', utilisateur_id: null, compte_service_id: account.id },
      { nom_log: 'ORGANISATION_IMPORT', utilisateur_id: null, compte_service_id: account.id },
    ])
  })

  it('is refused to an account without the api scope', async () => {
    const account = await insertServiceAccount({ structure: 2, scopes: 'scim' })
    const token = await serviceAccountToken(account)
    const response = await call('/rest/bd/import?type=utilisateurs&essai=true', {
      method: 'POST',
      token,
      body: `${USERS_HEADER}\n`,
    })
    await expectError(response, 403, 'SERVICE_ACCOUNT_SCOPE')
  })
})

describe('a run that meets the unexpected', () => {
  const file = (rows: string[]) => [USERS_HEADER, ...rows].join('\n')

  /** A delivery whose write batch (the lot's third) runs just after `meanwhile`. */
  const writingAfter = (meanwhile: () => Promise<unknown>) => {
    let batches = 0
    return {
      ...env.DB,
      prepare: (query: string) => env.DB.prepare(query),
      batch: async (statements: D1PreparedStatement[]) => {
        if (++batches === 3) await meanwhile()
        return env.DB.batch(statements)
      },
    } as D1Database
  }

  it('writes a lot once when its message comes twice', async () => {
    const queue = jobsQueue()
    const body = await importFile(
      root.token,
      'utilisateurs',
      file([`once@example.test;Une;Fois;;non;Agence Lille;Agent de quai;${today};${future};oui`]),
      queue,
    )
    const message = queue.waiting[0]
    if (!message) throw new Error('no message')
    queue.waiting.push({ ...message })
    await queue.drain()
    expect(queue.delivered.map((delivery) => delivery.outcome)).toEqual(['ack', 'ack'])
    expect(await statusOf(root.token, body.id)).toMatchObject({ etat: 'TERMINE', creees: 1, traitees: 1 })
    const created = (await logsOf('UTILISATEUR_CREATION')).filter((log) => log.commentaire?.startsWith('once@'))
    expect(created).toHaveLength(1)
  })

  it('writes a lot once when a second delivery runs it between the first one’s reads and its write', async () => {
    const queue = jobsQueue()
    const body = await importFile(root.token, 'utilisateurs', file(['pas-une-adresse;Nom;Prenom;;;;;;;']), queue)
    const message = queue.waiting[0]
    if (!message) throw new Error('no message')
    // The same message delivered again, run in full just before the first delivery writes.
    const interleaved = writingAfter(() => {
      queue.waiting.push({ ...message })
      return queue.deliverOne()
    })
    await queue.deliverOne({ DB: interleaved })
    await queue.drain()
    expect(await statusOf(root.token, body.id)).toMatchObject({ etat: 'TERMINE', traitees: 1, totalErreurs: 1 })
    const errors = await db().selectFrom('import_erreur').select('code').where('import_id', '=', body.id).execute()
    expect(errors).toEqual([{ code: 'MAIL' }])
  })

  it('plans a lot again when what it read changed before its write', async () => {
    const target = await createUser({ postes: [currentPost(4, 2, 400)] })
    const queue = jobsQueue()
    const body = await importFile(
      root.token,
      'utilisateurs',
      file([`${target.login}@example.test;Renomme;Prenom;${target.login};non;;;;;oui`]),
      queue,
    )
    // Between the lot's reads and its write, an administrator renames the user (their version moves).
    const interleaved = writingAfter(() =>
      db().updateTable('utilisateur').set({ prenom: 'Change' }).where('id', '=', target.id).execute(),
    )
    expect(await queue.deliverOne({ DB: interleaved })).toBe(true)
    await queue.drain()
    expect(queue.delivered.map((delivery) => delivery.outcome)).toEqual(['retry', 'ack'])
    expect(await statusOf(root.token, body.id)).toMatchObject({ etat: 'TERMINE', modifiees: 1 })
    const user = await db()
      .selectFrom('utilisateur')
      .select(['nom', 'prenom'])
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow()
    expect(user).toEqual({ nom: 'Renomme', prenom: 'Prenom' })
  })

  it('stops when its author is no longer an administrator, keeping what is done', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(1, 1, 400)] })
    const token = (await sessionFor(admin.id)).accessToken
    const rows = Array.from(
      { length: 150 },
      (_, n) => `stop${n}@example.test;Nom;Prenom;;non;Agence Lille;Agent de quai;${today};${future};non`,
    )
    const queue = jobsQueue()
    const body = await importFile(token, 'utilisateurs', file(rows), queue)
    await queue.deliverOne()
    await db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', admin.id).execute()
    await queue.drain()
    const job = await db().selectFrom('import').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow()
    expect(job).toMatchObject({ etat: 'ECHEC', motif_echec: 'IMPORTATEUR', creees: 100, traitees: 100 })
    const lots = await db().selectFrom('import_lot').select('numero').where('import_id', '=', body.id).execute()
    expect(lots).toEqual([])
    const [entry] = (await logsOf('ORGANISATION_IMPORT')).filter((log) => log.commentaire?.startsWith(`#${body.id} `))
    expect(entry?.commentaire).toContain('100 créées')
  })

  it('writes nothing of a lot whose author is deactivated between its reads and its write', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(1, 1, 400)] })
    const token = (await sessionFor(admin.id)).accessToken
    const queue = jobsQueue()
    const body = await importFile(
      token,
      'utilisateurs',
      file([`tard@example.test;Nom;Prenom;;non;Agence Lille;Agent de quai;${today};${future};non`]),
      queue,
    )
    const deactivated = writingAfter(() =>
      db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', admin.id).execute(),
    )
    await queue.deliverOne({ DB: deactivated })
    await queue.drain()
    const job = await db().selectFrom('import').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow()
    expect(job).toMatchObject({ etat: 'ECHEC', motif_echec: 'IMPORTATEUR', creees: 0, traitees: 0 })
    const created = await db().selectFrom('utilisateur').select('id').where('mail', '=', 'tard@example.test').execute()
    expect(created).toEqual([])
  })

  it('plans a lot again when its author’s scope shrinks between its reads and its write', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(2, 21, 400)] })
    const token = (await sessionFor(admin.id)).accessToken
    const queue = jobsQueue()
    const body = await importFile(
      token,
      'utilisateurs',
      file([`deplace@example.test;Nom;Prenom;;non;Agence Lille;Agent de quai;${today};${future};non`]),
      queue,
    )
    // Meanwhile the author is moved from Direction Nord to Direction Sud: Agence Lille is no longer theirs.
    const moved = writingAfter(() =>
      db().updateTable('poste').set({ structure_id: 3 }).where('utilisateur_id', '=', admin.id).execute(),
    )
    await queue.deliverOne({ DB: moved })
    await queue.drain()
    expect(queue.delivered.map((delivery) => delivery.outcome)).toEqual(['retry', 'ack'])
    expect(await statusOf(token, body.id)).toMatchObject({ etat: 'TERMINE', creees: 0, totalErreurs: 1 })
    const errors = await db().selectFrom('import_erreur').select('code').where('import_id', '=', body.id).execute()
    expect(errors).toEqual([{ code: 'HORS_PERIMETRE' }])
    const created = await db()
      .selectFrom('utilisateur')
      .select('id')
      .where('mail', '=', 'deplace@example.test')
      .execute()
    expect(created).toEqual([])
  })

  it('sends a stalled import’s next lot again from the minute’s cron', async () => {
    const queue = jobsQueue()
    const body = await importFile(
      root.token,
      'utilisateurs',
      file([`lost@example.test;Perdu;Message;;non;Agence Lille;Agent de quai;${today};${future};non`]),
      queue,
    )
    queue.waiting.length = 0
    const idleFor = (minutes: number) =>
      db()
        .updateTable('import')
        .set({ updated_at: new Date(Date.now() - minutes * 60_000).toISOString() })
        .where('id', '=', body.id)
        .execute()
    // Four minutes without a step is a lot still on its way; past STALLED_MINUTES (5) it is sent again.
    await idleFor(4)
    await queue.cron()
    expect(queue.waiting).toEqual([])
    await idleFor(STALLED_MINUTES + 1)
    await queue.cron()
    expect(queue.waiting.map((message) => message.body)).toEqual([
      { kind: 'import-lot', importId: body.id, lot: 1, auteur: root.id },
    ])
    await queue.drain()
    expect(await statusOf(root.token, body.id)).toMatchObject({ etat: 'TERMINE', creees: 1 })
  })
})

describe('a lot that keeps failing', () => {
  it(`stops its import after ${IMPORT_ATTEMPTS} deliveries, saying why`, async () => {
    const queue = jobsQueue()
    const body = await importFile(
      root.token,
      'utilisateurs',
      [USERS_HEADER, `fails@example.test;Echec;Lot;;non;Agence Lille;Agent de quai;${today};${future};oui`].join('\n'),
      queue,
    )
    // D1 refuses every batch of the lot's writes (its reads go through).
    const refusing = {
      ...env.DB,
      prepare: (query: string) => env.DB.prepare(query),
      batch: async (statements: D1PreparedStatement[]) => {
        // As D1 fails: later, once its caller awaits the answer.
        await scheduler.wait(1)
        if (statements.length > 5) throw new Error('D1 is unavailable')
        return env.DB.batch(statements)
      },
    } as D1Database
    for (let attempt = 1; attempt <= IMPORT_ATTEMPTS; attempt++) await queue.deliverOne({ DB: refusing })
    expect(queue.delivered.map((delivery) => delivery.outcome)).toEqual([
      ...Array(IMPORT_ATTEMPTS - 1).fill('retry'),
      'ack',
    ])
    expect(queue.waiting).toEqual([])
    const status = await statusOf(root.token, body.id)
    expect(status).toMatchObject({ etat: 'ECHEC', traitees: 0 })
    expect(status.motif).toContain('a échoué plusieurs fois')
    const created = await db().selectFrom('utilisateur').select('id').where('mail', '=', 'fails@example.test').execute()
    expect(created).toEqual([])
  })
})

describe('a preview kept for the screens, then imported', () => {
  const rows = (n: number) =>
    Array.from(
      { length: n },
      (_, k) => `kept${k}@example.test;Garde;Apercu;;non;Agence Lille;Inconnue;${today};${future};oui`,
    )

  it('keeps the file with its preview and errors, pages them, and imports it once', async () => {
    const queue = jobsQueue()
    const text = [
      USERS_HEADER,
      `kept@example.test;Garde;Apercu;;non;Agence Lille;Agent de quai;${today};${future};oui`,
      ...rows(150),
    ].join('\n')
    const preview = await okBody(
      sendFile(root.token, 'utilisateurs', text, queue, { essai: 'true', conserver: 'true', fichier: 'garde.csv' }),
    )
    expect(preview).toMatchObject({ lignes: 151, creees: 1, totalErreurs: 150, id: expect.any(Number) })
    const id = preview.id ?? 0
    // Nothing written but the kept file and its preview.
    expect(await db().selectFrom('utilisateur').select('id').where('mail', '=', 'kept@example.test').execute()).toEqual(
      [],
    )
    const kept = await statusOf(root.token, id)
    expect(kept).toMatchObject({ etat: 'APERCU', fichier: 'garde.csv', lignes: 151, creees: 1, totalErreurs: 150 })
    expect(kept.erreurs).toHaveLength(100)
    const second = await okBody(api(root.token).rest.bd.import[':id'].$get({ param: { id }, query: { page: 2 } }))
    expect(second.erreurs.map((error) => error.ligne)).toEqual(Array.from({ length: 50 }, (_, k) => 103 + k))

    const launch = () =>
      call(`/rest/bd/import/${id}/lancement`, {
        method: 'POST',
        token: root.token,
        body: JSON.stringify({ invitation: false }),
        env: queue.env,
      })
    const [first, again] = await Promise.all([launch(), launch()])
    expect([first.status, again.status].sort()).toEqual([202, 409])
    await queue.drain()
    expect(await statusOf(root.token, id)).toMatchObject({
      etat: 'TERMINE',
      creees: 1,
      lignesEnErreur: 150,
      totalErreurs: 150,
    })
    expect((await launch()).status).toBe(409)
    expect(
      (await call(`/rest/bd/import/${id}/lancement`, { method: 'POST', token: nord.token, body: '{}' })).status,
    ).toBe(404)
  })

  it('refuses to keep a file that cannot be imported at all', async () => {
    const response = await call('/rest/bd/import?type=utilisateurs&essai=true&conserver=true', {
      method: 'POST',
      token: root.token,
      body: 'nom;type;parent\nA;B;C',
    })
    expect(response.status).toBe(400)
  })
})

describe('the preview, then the import', () => {
  it('announce the same counts', async () => {
    const text = [
      USERS_HEADER,
      `same1@example.test;Meme;Compte;;non;Agence Lille;Agent de quai;${today};${future};oui`,
      `same1@example.test;Meme;Compte;;non;Direction Sud;Responsable;${today};${future};oui`,
      `same2@example.test;Meme;Compte;;non;Agence Lille;Inconnue;${today};${future};oui`,
    ].join('\n')
    const preview = await okBody(sendFile(root.token, 'utilisateurs', text, undefined, { essai: 'true' }))
    const { status } = await imported(root.token, 'utilisateurs', text)
    expect({
      creees: status.creees,
      modifiees: status.modifiees,
      inchangees: status.inchangees,
      totalErreurs: status.totalErreurs,
    }).toEqual({
      creees: preview.creees,
      modifiees: preview.modifiees,
      inchangees: preview.inchangees,
      totalErreurs: preview.totalErreurs,
    })
  })
})
