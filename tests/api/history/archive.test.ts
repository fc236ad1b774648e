import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { ARCHIVE_PART_ROWS, firstKeptMonth } from '../../../worker-api/services/history/archive'
import { readArchiveFile } from '../../../worker-api/services/history/archive-file'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, signedInUser } from '../helpers'
import { type JobOf, jobsQueue } from '../jobs-queue'
import { archiveBucket as bucket, monthsAgo } from './archive-support'

/**
 * Ten years of history (issue 64): the hourly cron queues the oldest month beyond the months D1 keeps (13 unless
 * changed); its steps write it to R2 as Parquet files, list each, and only then remove the month from D1. A step that
 * fails, or comes twice, loses and duplicates nothing.
 */

type Archive = JobOf<'archive-step'>

let author: { id: number; login: string; mail: string; nom: string; prenom: string }

beforeAll(async () => {
  await createOrganisation()
  const user = await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: '2000-01-01', to: '2099-12-31' }] })
  author = await db()
    .selectFrom('utilisateur')
    .select(['id', 'login', 'mail', 'nom', 'prenom'])
    .where('id', '=', user.id)
    .executeTakeFirstOrThrow()
})

/** `count` entries of the author in month `mois`, spread over its first 28 days, written as sign-in writes them. */
async function entriesIn(mois: string, count: number, nom = 'CONNEXION') {
  await sql`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
    insert into log (date, utilisateur_id, type_log, nom_log, commentaire, nom_navigateur, version_navigateur)
    select ${mois} || '-' || printf('%02d', 1 + (i % 28)) || 'T' || printf('%02d', i % 24) || ':00:00.000Z',
      ${author.id}, 'CONNEXION', ${nom}, 'entrée ' || i, 'Firefox', '128'
    from n`.execute(db())
}

const inD1 = async (mois: string) =>
  Number(
    (
      await db()
        .selectFrom('log')
        .select(sql<number>`count(*)`.as('n'))
        .where('date', '>=', `${mois}-01`)
        .where('date', '<', `${mois}-99`)
        .executeTakeFirstOrThrow()
    ).n,
  )

const listed = (mois: string) =>
  db().selectFrom('historique_archive').selectAll().where('mois', '=', mois).orderBy('id_min').execute()

/** Every entry of the month's listed files, read back from R2, their checksums checked. */
async function archivedEntries(mois: string) {
  const entries = []
  for (const file of await listed(mois)) {
    const object = await bucket().get(file.fichier)
    expect(object, file.fichier).not.toBeNull()
    const bytes = await (object as R2ObjectBody).arrayBuffer()
    const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('')
    expect(digest).toBe(file.sha256)
    const rows = await readArchiveFile(bytes)
    expect(rows).toHaveLength(file.lignes)
    entries.push(...rows)
  }
  return entries
}

describe('the history archive', () => {
  it('keeps 13 months: the first month kept is the twelfth before this one', () => {
    expect(firstKeptMonth(new Date('2026-12-04T10:00:00Z'), 13)).toBe('2025-12')
    expect(firstKeptMonth(new Date('2026-01-31T23:59:59Z'), 3)).toBe('2025-11')
  })

  it('archives the oldest month beyond those kept to R2 as Parquet, lists each file, then removes the month from D1', async () => {
    const old = monthsAgo(24)
    const recent = monthsAgo(12)
    const count = 2 * ARCHIVE_PART_ROWS + 345
    await entriesIn(old, count)
    await entriesIn(recent, 10)
    const before = await db()
      .selectFrom('log')
      .selectAll()
      .where('date', '>=', `${old}-01`)
      .where('date', '<', `${old}-99`)
      .orderBy('id')
      .execute()
    const queue = jobsQueue<Archive>()
    await queue.hourly()
    expect(queue.waiting.map((message) => message.body)).toEqual([{ kind: 'archive-step', mois: old }])
    await queue.drain()
    expect(queue.delivered.every((message) => message.outcome === 'ack')).toBe(true)

    const files = await listed(old)
    expect(files.map((file) => file.lignes)).toEqual([ARCHIVE_PART_ROWS, ARCHIVE_PART_ROWS, 345])
    const archived = await archivedEntries(old)
    expect(archived.map((entry) => entry.id).sort((a, b) => a - b)).toEqual(before.map((row) => row.id))
    const first = archived.find((entry) => entry.id === before[0]?.id)
    expect(first).toMatchObject({
      date: before[0]?.date,
      type_log: 'CONNEXION',
      nom_log: 'CONNEXION',
      commentaire: before[0]?.commentaire,
      nom_navigateur: 'Firefox',
      utilisateur_id: author.id,
      utilisateur_mail: author.mail,
      utilisateur_nom: author.nom,
      structure_id: 3,
      structure_path: expect.stringMatching(/\/3\/$/),
    })
    // Each file sorted by date.
    const dates = (
      await readArchiveFile(await ((await bucket().get(files[0]?.fichier ?? '')) as R2ObjectBody).arrayBuffer())
    ).map((e) => e.date)
    expect(dates).toEqual([...dates].sort())
    expect(await inD1(old)).toBe(0)
    // The months kept stay as they are.
    expect(await inD1(recent)).toBe(10)
    expect(await listed(recent)).toEqual([])
    const entry = await db()
      .selectFrom('log')
      .select(['commentaire', 'utilisateur_id'])
      .where('nom_log', '=', 'HISTORIQUE_ARCHIVE')
      .where('commentaire', 'like', `${old} : %`)
      .execute()
    expect(entry).toEqual([{ commentaire: `${old} : 3 fichiers, ${count} entrées`, utilisateur_id: null }])
    // Nothing older is left: the cron queues nothing more.
    await queue.hourly()
    expect(queue.waiting).toEqual([])
  })

  it('loses and duplicates nothing when every step is delivered twice', async () => {
    const old = monthsAgo(30)
    await entriesIn(old, ARCHIVE_PART_ROWS + 10)
    const ids = (
      await db().selectFrom('log').select('id').where('date', 'like', `${old}-%`).orderBy('id').execute()
    ).map((row) => row.id)
    const queue = jobsQueue<Archive>()
    await queue.hourly()
    for (let n = 0; n < 50 && queue.waiting.length > 0; n++) {
      const body = queue.waiting[0]?.body as Archive
      await queue.deliverOne()
      // The same message again, as a queue may deliver it.
      queue.waiting.unshift({ body, attempts: 1 })
      await queue.deliverOne()
    }
    await queue.drain()
    const files = await listed(old)
    expect(files.map((file) => file.lignes)).toEqual([ARCHIVE_PART_ROWS, 10])
    expect((await archivedEntries(old)).map((entry) => entry.id).sort((a, b) => a - b)).toEqual(ids)
    expect(await inD1(old)).toBe(0)
    const entries = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'HISTORIQUE_ARCHIVE')
      .where('commentaire', 'like', `${old} : %`)
      .execute()
    expect(entries).toHaveLength(1)
  })

  it('a step that fails writing to R2, or queueing the next, is delivered again: nothing lost, nothing listed twice', async () => {
    const old = monthsAgo(36)
    await entriesIn(old, ARCHIVE_PART_ROWS + 20)
    const queue = jobsQueue<Archive>()
    await queue.hourly()
    // R2 refuses the file: nothing listed, nothing removed, the message retried.
    const failing = {
      put: async () => {
        throw new Error('R2 unavailable')
      },
    } as unknown as R2Bucket
    await queue.deliverOne({ ARCHIVE: failing })
    expect(queue.delivered.at(-1)?.outcome).toBe('retry')
    expect(await listed(old)).toEqual([])
    expect(await inD1(old)).toBe(ARCHIVE_PART_ROWS + 20)
    // The file written and listed, then the next step cannot be queued: retried, it goes on after what is listed.
    const jobsDown = {
      send: async () => {
        throw new Error('Queue unavailable')
      },
    } as unknown as Queue
    await queue.deliverOne({ JOBS: jobsDown })
    expect(queue.delivered.at(-1)?.outcome).toBe('retry')
    expect((await listed(old)).map((file) => file.lignes)).toEqual([ARCHIVE_PART_ROWS])
    await queue.drain()
    expect((await listed(old)).map((file) => file.lignes)).toEqual([ARCHIVE_PART_ROWS, 20])
    expect(await archivedEntries(old)).toHaveLength(ARCHIVE_PART_ROWS + 20)
    expect(await inD1(old)).toBe(0)
  })

  it('a chain lost while removing is taken up again by the cron; a month the setting now keeps is left in D1', async () => {
    const old = monthsAgo(40)
    await entriesIn(old, 30)
    const queue = jobsQueue<Archive>()
    await queue.hourly()
    await queue.deliverOne()
    expect(await listed(old)).toHaveLength(1)
    // The message of the removal is lost: the next hour's cron queues the month again, which then ends.
    queue.waiting.length = 0
    expect(await inD1(old)).toBe(30)
    await queue.hourly()
    await queue.drain()
    expect(await inD1(old)).toBe(0)
    expect(await archivedEntries(old)).toHaveLength(30)

    // A message of a month the setting keeps now (raised to 120 months meanwhile): nothing written.
    const kept = monthsAgo(20)
    await entriesIn(kept, 5)
    queue.waiting.push({ body: { kind: 'archive-step', mois: kept }, attempts: 1 })
    await db().updateTable('parametre_securite').set({ historique_mois_en_ligne: 120 }).where('id', '=', 1).execute()
    try {
      await queue.drain()
      expect(await listed(kept)).toEqual([])
      expect(await inD1(kept)).toBe(5)
      await queue.hourly()
      expect(queue.waiting).toEqual([])
    } finally {
      await db().updateTable('parametre_securite').set({ historique_mois_en_ligne: 13 }).where('id', '=', 1).execute()
    }
  })
  it('two deliveries of a step at once list its file once, both done; an entry of the month written late is archived, not lost', async () => {
    const old = monthsAgo(44)
    await entriesIn(old, 40)
    const queue = jobsQueue<Archive>()
    await queue.hourly()
    const body = queue.waiting[0]?.body as Archive
    queue.waiting.push({ body, attempts: 1 })
    await Promise.all([queue.deliverOne(), queue.deliverOne()])
    expect(queue.delivered.map((message) => message.outcome)).toEqual(['ack', 'ack'])
    expect((await listed(old)).map((file) => file.lignes)).toEqual([40])
    // Every entry listed: the next step removes them; then an entry of the month arrives, late (an id after all
    // others: the month's entry, written first, keeps the highest id away from the month's).
    await queue.deliverOne()
    expect(await inD1(old)).toBe(0)
    await entriesIn(old, 1, 'TARDIVE')
    // The chain's next step finds it after every part listed: a part of its own, before anything is removed.
    await queue.drain()
    const archived = await archivedEntries(old)
    expect(archived).toHaveLength(41)
    expect(archived.filter((entry) => entry.nom_log === 'TARDIVE')).toHaveLength(1)
    // Archived, it stays in D1 while it is the newest entry of all; removed at the next hour once another is written.
    expect(await inD1(old)).toBe(1)
    await entriesIn(monthsAgo(0), 1)
    await queue.hourly()
    await queue.drain()
    expect(await inD1(old)).toBe(0)
    expect(await archivedEntries(old)).toHaveLength(41)
  })
})

describe('a step that lost its race', () => {
  it('leaves no file of its own in the bucket: a reader of the whole bucket finds each entry once', async () => {
    const old = monthsAgo(46)
    await entriesIn(old, 30)
    const queue = jobsQueue<Archive>()
    await queue.hourly()
    const body = queue.waiting[0]?.body as Archive
    // Step A has read the month's 30 entries; before its file is written, an entry of the month arrives late and step
    // B (the same message, delivered again) writes and lists all 31.
    let raced = false
    const racing = {
      put: async (key: string, value: ArrayBuffer, options: R2PutOptions) => {
        if (!raced) {
          raced = true
          await entriesIn(old, 1, 'TARDIVE')
          queue.waiting.unshift({ body, attempts: 1 })
          await queue.deliverOne()
        }
        return bucket().put(key, value, options)
      },
      delete: (key: string) => bucket().delete(key),
    } as unknown as R2Bucket
    await queue.deliverOne({ ARCHIVE: racing })
    expect(queue.delivered.map((message) => message.outcome)).toEqual(['ack', 'ack'])
    const files = await listed(old)
    expect(files.map((file) => file.lignes)).toEqual([31])
    const stored = await bucket().list({ prefix: `historique/${old.slice(0, 4)}/${old.slice(5, 7)}/` })
    expect(stored.objects.map((object) => object.key)).toEqual(files.map((file) => file.fichier))
    await queue.drain()
    expect(await inD1(old)).toBe(0)
  })
})

describe("the database's size and the history's share (the administration home, the health check)", () => {
  it('the home of a root administrator shows them, the archive summed from its listing; a delegated one is shown none', async () => {
    const root = await signedInUser({ admin: true, postes: [currentPost(1, 1, 3650)] })
    const delegated = await signedInUser({ admin: true, postes: [currentPost(3, 1, 3650)] })
    const old = monthsAgo(50)
    await entriesIn(old, 25)
    const queue = jobsQueue<Archive>()
    await queue.hourly()
    await queue.drain()

    const home = await okBody(api(root.jwt.accessToken).rest.bd.accueil.$get({ query: {} }))
    const ids = await db()
      .selectFrom('log')
      .select([sql<number>`min(id)`.as('low'), sql<number>`max(id)`.as('high'), sql<string>`min(date)`.as('oldest')])
      .executeTakeFirstOrThrow()
    const files = await db().selectFrom('historique_archive').select(['mois', 'lignes', 'octets']).execute()
    const months = [...new Set(files.map((file) => file.mois))].sort()
    expect(home.stockage).toEqual({
      base: { octets: expect.any(Number), limite: 10_000_000_000, etat: 'ok' },
      historique: {
        // Read with the home: the home's own entry came after.
        entrees: expect.any(Number),
        octets: expect.any(Number),
        moisEnLigne: 13,
        premierMois: ids.oldest.slice(0, 7),
      },
      archive: {
        mois: months.length,
        fichiers: files.length,
        entrees: files.reduce((sum, file) => sum + file.lignes, 0),
        octets: files.reduce((sum, file) => sum + file.octets, 0),
        premierMois: months[0],
        dernierMois: months.at(-1),
      },
    })
    expect(home.stockage?.archive.mois).toBeGreaterThan(0)
    expect(home.stockage?.archive.premierMois).toBe(old)
    // The entries in D1, from their ids; 179 bytes each.
    const counted = home.stockage?.historique.entrees ?? 0
    expect(counted).toBeGreaterThanOrEqual(ids.high - ids.low)
    expect(counted).toBeLessThanOrEqual(ids.high - ids.low + 2)
    expect(home.stockage?.historique.octets).toBe(counted * 179)
    // The database's own size, as D1 says it: more than its history's pages at least.
    expect(home.stockage?.base.octets).toBeGreaterThan(100_000)

    const delegatedHome = await okBody(api(delegated.jwt.accessToken).rest.bd.accueil.$get({ query: {} }))
    expect(delegatedHome.stockage).toBeNull()
  })

  it('GET rest/public/health says how full the database is, to anyone', async () => {
    const response = await call('/rest/public/health')
    expect(response.status).toBe(200)
    const body = (await response.json()) as { database: { status: string; used: number } }
    expect(body.database.status).toBe('ok')
    expect(body.database.used).toBeGreaterThanOrEqual(0)
    expect(body.database.used).toBeLessThan(0.5)
  })
})
