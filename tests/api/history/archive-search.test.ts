import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { LogEntry } from '../../../worker-api/contract/history/logs'
import { type LogSearch, SEARCH_MAX_ROWS, SEARCH_RETRY_SECONDS } from '../../../worker-api/contract/history/search'
import { archiveKey } from '../../../worker-api/services/history/archive'
import { archiveFile } from '../../../worker-api/services/history/archive-file'
import { EXPORT_MAX_FILES } from '../../../worker-api/services/history/logs-export'
import {
  browserCookieOf,
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  ORIGIN,
  sessionFor,
  signedInUser,
} from '../helpers'
import { type JobOf, jobsQueue } from '../jobs-queue'
import { postForm, visit } from '../visit'
import { archiveBucket as bucket, monthsAgo } from './archive-support'

/**
 * The archived months searched (issue 64): a range reaching them is answered from D1 at once and says which months are
 * archived; a search of those months runs in the background, file after file, in the author's scope, and keeps its
 * result a day, paged and as CSV; the CSV export of the range reads the archive too.
 */

type Job = JobOf<'archive-step'> | JobOf<'history-search'>

const compact = (mois: string, day: string) => `${mois.replace('-', '')}${day}`

type Author = { id: number; nom: string; prenom: string; mail: string }
let south: Author
let north: Author
let root: string
let southAdmin: string
let northAdmin: string

async function authorIn(structureId: number, fonctionId: number): Promise<Author> {
  const user = await createUser({ postes: [{ structureId, fonctionId, from: '2000-01-01', to: '2099-12-31' }] })
  return db()
    .selectFrom('utilisateur')
    .select(['id', 'nom', 'prenom', 'mail'])
    .where('id', '=', user.id)
    .executeTakeFirstOrThrow()
}

/** `count` entries of `author` in `mois`, on its days 1 to 28, at noon UTC (the same day in Paris). */
async function entriesIn(author: Author, mois: string, count: number, type = 'CONNEXION', commentaire = 'entrée') {
  await sql`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
    insert into log (date, utilisateur_id, type_log, nom_log, commentaire, nom_navigateur, version_navigateur)
    select ${mois} || '-' || printf('%02d', 1 + (i % 28)) || 'T12:00:' || printf('%02d', i % 60) || '.000Z',
      ${author.id}, ${type}, ${type}, ${commentaire} || ' ' || i, 'Firefox', '128'
    from n`.execute(db())
}

/** Every month older than those kept, archived (the hourly cron, then its chain of steps). */
async function archiveAll() {
  const queue = jobsQueue<Job>()
  for (let n = 0; n < 40; n++) {
    await queue.hourly()
    if (queue.waiting.length === 0) break
    await queue.drain()
  }
  expect(queue.delivered.every((message) => message.outcome === 'ack')).toBe(true)
}

/** The jobs queue the searches are sent to, and run from. */
const jobs = jobsQueue<Job>()

const search = async (token: string, body: Record<string, unknown>) => {
  const response = await call('/rest/bd/logs/recherches', {
    method: 'POST',
    token,
    body: JSON.stringify(body),
    env: jobs.env,
  })
  return {
    status: response.status,
    retryAfter: response.headers.get('Retry-After'),
    body: (await response.json()) as LogSearch,
  }
}
const stateOf = async (token: string, id: string) =>
  (await (await call(`/rest/bd/logs/recherches/${id}`, { token })).json()) as LogSearch
async function entriesOf(token: string, id: string, page = 1, taille = 100) {
  const response = await call(`/rest/bd/logs/recherches/${id}/entrees?page=${page}&taille=${taille}`, { token })
  expect(response.status).toBe(200)
  return { total: Number(response.headers.get('X-Total-Count')), items: (await response.json()) as LogEntry[] }
}

/** The searches' steps, run by the jobs queue until they end. */
const runSearch = () => jobs.drain()

const old = monthsAgo(30)
const older = monthsAgo(31)

beforeAll(async () => {
  await createOrganisation()
  south = await authorIn(3, 3)
  north = await authorIn(4, 2)
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1, 3650)] })).jwt.accessToken
  southAdmin = (await signedInUser({ admin: true, postes: [currentPost(3, 1, 3650)] })).jwt.accessToken
  northAdmin = (await signedInUser({ admin: true, postes: [currentPost(2, 1, 3650)] })).jwt.accessToken
  await entriesIn(south, old, 40)
  await entriesIn(north, old, 30, 'ADMINISTRATION', 'Suppression de Dupont')
  await entriesIn(south, older, 12)
  await archiveAll()
  const left = await db()
    .selectFrom('log')
    .select(sql<number>`count(*)`.as('n'))
    .where('date', 'like', `${old}-%`)
    .executeTakeFirstOrThrow()
  expect(Number(left.n)).toBe(0)
})

describe('a range reaching archived months', () => {
  it('is answered from the database at once, and says which months are archived', async () => {
    const response = await call(`/rest/bd/logs/?dateDebut=${compact(older, '01')}&page=1`, { token: root })
    expect(response.status).toBe(200)
    expect(response.headers.get('X-Archived-Months')).toBe(`${older}/${old}`)
    const recent = await call(`/rest/bd/logs/?dateDebut=${compact(monthsAgo(1), '01')}&page=1`, { token: root })
    expect(recent.headers.get('X-Archived-Months')).toBeNull()
  })

  it('is searched in the background: progress, then every entry of the scope, newest first, as it was archived', async () => {
    const started = await search(root, { dateDebut: compact(older, '01'), dateFin: compact(old, '28') })
    expect(started.status).toBe(202)
    expect(started.body).toMatchObject({ etat: 'EN_COURS', fichiers: 2, fichiersLus: 0, entrees: 0 })
    expect(started.body.moisDebut).toBe(older)
    expect(started.body.moisFin).toBe(old)
    await runSearch()
    const done = await stateOf(root, started.body.id)
    expect(done).toMatchObject({ etat: 'TERMINEE', fichiers: 2, fichiersLus: 2, entrees: 82, erreur: null })
    const { total, items } = await entriesOf(root, started.body.id)
    expect(total).toBe(82)
    expect(items).toHaveLength(82)
    const dates = items.map((entry) => entry.date)
    expect(dates).toEqual([...dates].sort().reverse())
    const first = items.find((entry) => entry.user?.id === north.id)
    expect(first).toMatchObject({
      typeLog: 'ADMINISTRATION',
      user: { id: north.id, nom: north.nom, prenom: north.prenom, mail: north.mail },
      structure: { id: 4, nom: 'Agence Lille' },
    })
    // Pages of it.
    const second = await entriesOf(root, started.body.id, 2, 50)
    expect(second.items.map((entry) => entry.id)).toEqual(items.slice(50).map((entry) => entry.id))
    // Its CSV: a header and a line per entry.
    const csv = await call(`/rest/bd/logs/recherches/${started.body.id}/export`, { token: root })
    expect(csv.status).toBe(200)
    const lines = (await csv.text()).trim().split('\r\n')
    expect(lines).toHaveLength(83)
    expect(lines.some((line) => line.includes('Suppression de Dupont'))).toBe(true)
    // Each search is in the history, with its filters.
    const audit = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'HISTORIQUE_RECHERCHE')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(audit.commentaire).toBe(`dateDebut=${compact(older, '01')} dateFin=${compact(old, '28')}`)
  })

  it("reaches only the author's scope, by the structure each entry was archived with", async () => {
    const range = { dateDebut: compact(older, '01'), dateFin: compact(old, '28') }
    const bySouth = await search(southAdmin, range)
    const byNorth = await search(northAdmin, range)
    await runSearch()
    const southFound = await entriesOf(southAdmin, bySouth.body.id)
    expect(southFound.total).toBe(52)
    expect(southFound.items.every((entry) => entry.user?.id === south.id)).toBe(true)
    const northFound = await entriesOf(northAdmin, byNorth.body.id)
    expect(northFound.total).toBe(30)
    expect(northFound.items.every((entry) => entry.user?.id === north.id)).toBe(true)
    // Another's search is not there for them (nor its entries, nor its CSV).
    for (const path of ['', '/entrees?page=1', '/export']) {
      const response = await call(`/rest/bd/logs/recherches/${bySouth.body.id}${path}`, { token: northAdmin })
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
    }
  })

  it('applies the filters: a word of the comment or of a name, the type, the user (their full history, no dates)', async () => {
    const byWord = await search(root, { q: 'dupont' })
    const byType = await search(root, { type: 'CONNEXION', dateDebut: compact(old, '01') })
    const byUser = await search(root, { utilisateur: south.id })
    // Three at once at most: the others once those are done.
    await runSearch()
    const byName = await search(root, { q: `${north.prenom} ${north.nom}`.toLowerCase() })
    const byDay = await search(root, { q: `05/${old.slice(5, 7)}/${old.slice(0, 4)}` })
    await runSearch()
    expect((await entriesOf(root, byWord.body.id)).total).toBe(30)
    const typed = await entriesOf(root, byType.body.id)
    expect(typed.total).toBe(40)
    expect(typed.items.every((entry) => entry.typeLog === 'CONNEXION' && entry.date.startsWith(old))).toBe(true)
    const own = await entriesOf(root, byUser.body.id)
    // Both archived months of theirs.
    expect(own.total).toBe(52)
    expect(new Set(own.items.map((entry) => entry.date.slice(0, 7)))).toEqual(new Set([old, older]))
    expect((await entriesOf(root, byName.body.id)).total).toBe(30)
    const day = await entriesOf(root, byDay.body.id)
    expect(day.total).toBeGreaterThan(0)
    expect(day.items.every((entry) => entry.date.startsWith(`${old}-05`))).toBe(true)
  })

  it('writes each entry once and counts each file once when every step is delivered twice', async () => {
    const started = await search(root, { utilisateur: south.id })
    for (let n = 0; n < 20 && jobs.waiting.length > 0; n++) {
      const body = jobs.waiting[0]?.body as Job
      await jobs.deliverOne()
      jobs.waiting.unshift({ body, attempts: 1 })
      await jobs.deliverOne()
    }
    await jobs.drain()
    expect(await stateOf(root, started.body.id)).toMatchObject({ etat: 'TERMINEE', fichiersLus: 2, entrees: 52 })
  })

  it('fails, saying which file, when an archived file no longer matches its checksum', async () => {
    const [file] = await db().selectFrom('historique_archive').select('fichier').where('mois', '=', older).execute()
    const key = file?.fichier as string
    const original = await ((await bucket().get(key)) as R2ObjectBody).arrayBuffer()
    const altered = new Uint8Array(original.slice(0))
    altered[altered.length - 20] = (altered[altered.length - 20] ?? 0) ^ 1
    await bucket().put(key, altered)
    try {
      const started = await search(root, { dateDebut: compact(older, '01'), dateFin: compact(older, '28') })
      await runSearch()
      const failed = await stateOf(root, started.body.id)
      expect(failed.etat).toBe('ECHEC')
      expect(failed.erreur).toContain(key)
      // The export of the range does not end as if the month held nothing: its last line says what is missing.
      const exported = await call(
        `/rest/bd/logs/export?dateDebut=${compact(older, '01')}&dateFin=${compact(older, '28')}`,
        {
          token: root,
        },
      )
      const lines = (await exported.text()).trim().split('\r\n')
      expect(lines.at(-1)).toBe(
        `EXPORT INCOMPLET : le fichier ${key} de l’archive est manquant ou altéré (somme de contrôle).`,
      )
    } finally {
      await bucket().put(key, original)
    }
  })

  it('the CSV export of a range streams its archived months from R2 after the database', async () => {
    const response = await call(
      `/rest/bd/logs/export?dateDebut=${compact(older, '01')}&dateFin=${compact(old, '28')}`,
      {
        token: southAdmin,
      },
    )
    expect(response.status).toBe(200)
    const lines = (await response.text()).trim().split('\r\n')
    // The header, then the 52 archived entries of the south's author (none of the north's).
    expect(lines).toHaveLength(53)
    expect(lines.some((line) => line.includes(north.mail))).toBe(false)
  })

  it('runs 3 searches of one administrator at once, no more; each kept a day, then removed', async () => {
    const body = { dateDebut: compact(older, '01') }
    const running = [await search(southAdmin, body), await search(southAdmin, body), await search(southAdmin, body)]
    expect(running.map((started) => started.status)).toEqual([202, 202, 202])
    const fourth = await search(southAdmin, body)
    expect(fourth.status).toBe(429)
    expect(fourth.body).toMatchObject({ businessCode: 'TOO_MANY_ATTEMPTS', attributs: [SEARCH_RETRY_SECONDS] })
    expect(fourth.retryAfter).toBe(String(SEARCH_RETRY_SECONDS))
    await jobs.drain()
    expect((await search(southAdmin, body)).status).toBe(202)
    await jobs.drain()

    const id = running[0]?.body.id as string
    expect((await entriesOf(southAdmin, id)).total).toBe(52)
    await db()
      .updateTable('historique_recherche')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute()
    expect((await call(`/rest/bd/logs/recherches/${id}`, { token: southAdmin })).status).toBe(404)
    await jobs.hourly()
    const left = await db()
      .selectFrom('historique_recherche_entree')
      .select(sql<number>`count(*)`.as('n'))
      .where('recherche_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(Number(left.n)).toBe(0)
    expect(await db().selectFrom('historique_recherche').select('id').where('id', '=', id).execute()).toEqual([])
  })

  it('refuses a search it cannot make sense of, clearly', async () => {
    for (const body of [
      { dateDebut: '20250231' },
      { dateDebut: '20250301', dateFin: '20250201' },
      { utilisateur: 'moi' },
      { q: 'x'.repeat(101) },
      { inconnu: 1 },
    ]) {
      const { status, body: answer } = await search(root, body)
      expect({ body, status }).toEqual({ body, status: 400 })
      expect(answer).toMatchObject({ businessCode: 'VALIDATION_FAILED' })
    }
    expect((await call('/rest/bd/logs/recherches/pas-la', { token: root })).status).toBe(404)
    expect((await call('/rest/bd/logs/recherches/x%27%3B', { token: root })).status).toBe(400)
  })
})

describe('a search over many archived files', () => {
  it('reads 8 files a step, newest first, its progress said between steps', async () => {
    const author = await authorIn(3, 3)
    // Nine months of their own, each a file.
    for (let back = 60; back < 69; back++) await entriesIn(author, monthsAgo(back), 2)
    await archiveAll()
    const started = await search(root, {
      utilisateur: author.id,
      dateDebut: compact(monthsAgo(68), '01'),
      dateFin: compact(monthsAgo(60), '28'),
    })
    expect(started.body).toMatchObject({ etat: 'EN_COURS', fichiers: 9 })
    await jobs.deliverOne()
    const halfway = await stateOf(root, started.body.id)
    expect(halfway).toMatchObject({ etat: 'EN_COURS', fichiersLus: 8, entrees: 16 })
    // The newest months first.
    const first = await entriesOf(root, started.body.id)
    expect(new Set(first.items.map((entry) => entry.date.slice(0, 7)))).not.toContain(monthsAgo(68))
    await runSearch()
    expect(await stateOf(root, started.body.id)).toMatchObject({ etat: 'TERMINEE', fichiersLus: 9, entrees: 18 })
  })
})

describe('what a search may hold, and whom it answers', () => {
  const keptSearch = async (auteur: number, entrees: number) => {
    const id = `quota-${crypto.randomUUID()}`
    await db()
      .insertInto('historique_recherche')
      .values({
        id,
        utilisateur_id: auteur,
        domaine: ORIGIN,
        filtres: '{}',
        fichiers: 1,
        fichiers_lus: 1,
        entrees,
        etat: 'TERMINEE',
        created_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      })
      .execute()
    return id
  }

  it("keeps 200 000 entries of one administrator's searches, 500 000 of everyone's: beyond, 429 until one is removed", async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(1, 1, 3650)] })
    const other = await signedInUser({ admin: true, postes: [currentPost(1, 1, 3650)] })
    const body = { dateDebut: compact(older, '01') }
    const full = await keptSearch(admin.id, 200_000)
    expect((await search(admin.jwt.accessToken, body)).status).toBe(429)
    await db().updateTable('historique_recherche').set({ entrees: 199_999 }).where('id', '=', full).execute()
    expect((await search(admin.jwt.accessToken, body)).status).toBe(202)
    await jobs.drain()
    await db().deleteFrom('historique_recherche').where('id', '=', full).execute()
    // Everyone's together.
    const everyone = await keptSearch(other.id, 500_000)
    expect((await search(admin.jwt.accessToken, body)).status).toBe(429)
    // One entry short of the total with the searches the file's other tests keep.
    const others = await db()
      .selectFrom('historique_recherche')
      .select(sql<number>`coalesce(sum(entrees), 0)`.as('n'))
      .where('id', '!=', everyone)
      .executeTakeFirstOrThrow()
    await db()
      .updateTable('historique_recherche')
      .set({ entrees: 499_999 - Number(others.n) })
      .where('id', '=', everyone)
      .execute()
    expect((await search(admin.jwt.accessToken, body)).status).toBe(202)
    await jobs.drain()
    await db().deleteFrom('historique_recherche').where('id', '=', everyone).execute()
    expect((await search(admin.jwt.accessToken, body)).status).toBe(202)
    await jobs.drain()
  })

  it('answers an administrator whose scope has shrunk only what their scope reaches now', async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(1, 1, 3650)] })
    const started = await search(admin.jwt.accessToken, {
      dateDebut: compact(older, '01'),
      dateFin: compact(old, '28'),
    })
    await jobs.drain()
    expect((await entriesOf(admin.jwt.accessToken, started.body.id)).total).toBe(82)
    // Moved to Direction Sud: the north's entries found meanwhile are no longer theirs to read.
    await db().updateTable('poste').set({ structure_id: 3 }).where('utilisateur_id', '=', admin.id).execute()
    const now = await entriesOf(admin.jwt.accessToken, started.body.id)
    expect(now.total).toBe(52)
    expect(now.items.every((entry) => entry.user?.id === south.id)).toBe(true)
    const csv = await call(`/rest/bd/logs/recherches/${started.body.id}/export`, { token: admin.jwt.accessToken })
    expect((await csv.text()).trim().split('\r\n')).toHaveLength(53)
  })

  it('stops a step at 10 000 entries found: the next goes on after the last file it read', async () => {
    const author = await authorIn(3, 3)
    const month = monthsAgo(80)
    // Three files, read newest first: 1 entry, then 10 000 (the step stops there), then 10 000.
    await entriesIn(author, month, 20_001)
    await archiveAll()
    const started = await search(root, {
      utilisateur: author.id,
      dateDebut: compact(month, '01'),
      dateFin: compact(month, '28'),
    })
    expect(started.body.fichiers).toBe(3)
    await jobs.deliverOne()
    expect(await stateOf(root, started.body.id)).toMatchObject({ etat: 'EN_COURS', fichiersLus: 2, entrees: 10_001 })
    await jobs.drain()
    expect(await stateOf(root, started.body.id)).toMatchObject({ etat: 'TERMINEE', fichiersLus: 3, entrees: 20_001 })
  })

  it(`keeps the newest ${SEARCH_MAX_ROWS.toLocaleString('en')} entries a search finds, then stops and says to narrow it`, async () => {
    const author = await authorIn(3, 3)
    const month = monthsAgo(90)
    await entriesIn(author, month, SEARCH_MAX_ROWS + 10)
    await archiveAll()
    const started = await search(root, { utilisateur: author.id })
    await jobs.drain()
    expect(await stateOf(root, started.body.id)).toMatchObject({ etat: 'TRONQUEE', entrees: SEARCH_MAX_ROWS })
    const { total, items } = await entriesOf(root, started.body.id, 1, 1)
    expect(total).toBe(SEARCH_MAX_ROWS)
    // The newest: the month's last day.
    expect(items[0]?.date.slice(0, 10)).toBe(`${month}-28`)
  })

  it(`exports at most ${EXPORT_MAX_FILES} files of the archive, then says in its last line to search the rest`, async () => {
    const author = await authorIn(3, 3)
    const month = monthsAgo(120)
    // One entry a file, listed as the archiver lists them.
    for (let n = 0; n <= EXPORT_MAX_FILES; n++) {
      const id = 900_000_000 + n
      const date = `${month}-02T08:${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000Z`
      const { bytes, sha256 } = await archiveFile([
        {
          id,
          date,
          type_log: 'CONNEXION',
          nom_log: 'CONNEXION',
          commentaire: null,
          nom_navigateur: 'Firefox',
          version_navigateur: '128',
          source: 'SERVEUR',
          utilisateur_id: author.id,
          compte_service_id: null,
          utilisateur_mail: author.mail,
          utilisateur_nom: author.nom,
          utilisateur_prenom: author.prenom,
          compte_service_nom: null,
          structure_id: 3,
          structure_nom: 'Direction Sud',
          structure_path: '/1/3/',
        },
      ])
      const fichier = archiveKey(month, id, id)
      await bucket().put(fichier, bytes)
      await db()
        .insertInto('historique_archive')
        .values({
          fichier,
          mois: month,
          id_min: id,
          id_max: id,
          lignes: 1,
          octets: bytes.byteLength,
          sha256,
          date_min: date,
          date_max: date,
          created_at: new Date().toISOString(),
        })
        .execute()
    }
    const response = await call(
      `/rest/bd/logs/export?utilisateur=${author.id}&dateDebut=${compact(month, '01')}&dateFin=${compact(month, '28')}`,
      { token: root },
    )
    expect(response.status).toBe(200)
    const lines = (await response.text()).trim().split('\r\n')
    // The header, the entries of the first 200 files, then the line that says the rest is the search's.
    expect(lines).toHaveLength(1 + EXPORT_MAX_FILES + 1)
    // One cell, quoted: it holds the CSV's separator.
    expect(lines.at(-1)).toBe(
      `"EXPORT INCOMPLET : cette période compte plus de ${EXPORT_MAX_FILES} fichiers de l’archive ; recherchez-la dans l’archive (Historique, « Rechercher aussi dans l’archive »)."`,
    )
  })

  it('refuses a day the history cannot hold (before 1970) with a clear 400', async () => {
    for (const dateDebut of ['19000101', '19691231']) {
      const { status } = await search(root, { dateDebut })
      expect({ dateDebut, status }).toEqual({ dateDebut, status: 400 })
      expect((await call(`/rest/bd/logs/export?dateDebut=${dateDebut}`, { token: root })).status).toBe(400)
    }
    // A word that reads as such a day is a word, not a day.
    expect((await search(root, { q: '01/01/1900' })).status).toBe(202)
    await jobs.drain()
  })
})

describe('the history screen (without JavaScript: plain pages and forms)', () => {
  it('says the range reaches archived months, starts their search, shows its progress, then what it found', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(1, 1, 3650)] })
    const cookie = await browserCookieOf({ ...admin, ...(await sessionFor(admin.id)) })
    const range = `/pages/admin/listeLogs?du=${older}-01&au=${old}-28`
    const page = async (path: string) => {
      const response = await visit(path, { headers: { Cookie: cookie } })
      expect(response.status).toBe(200)
      return response.text()
    }
    const listed = await page(range)
    expect(listed).toContain(`Les mois de ${older.slice(5)}/${older.slice(0, 4)} à ${old.slice(5)}/${old.slice(0, 4)}`)
    expect(listed).toContain('Rechercher aussi dans l’archive')

    const started = await postForm(range, cookie, {}, jobs.env)
    expect(started.status).toBe(302)
    const location = new URL(started.location ?? '', ORIGIN)
    expect(location.searchParams.get('recherche')).toMatch(/^[A-Za-z0-9_-]+$/)
    const searching = await page(`${location.pathname}${location.search}`)
    expect(searching).toContain('Fichiers lus : 0 sur 2. Entrées trouvées : 0.')
    expect(searching).toContain('Actualiser')
    await runSearch()
    const done = await page(`${location.pathname}${location.search}`)
    expect(done).toContain('Recherche terminée : 82 entrées trouvées.')
    expect(done).toContain('Entrées trouvées dans l’archive')
    expect(done).toContain('Exporter ce qui a été trouvé')
    // The next page of what it found, by its own page link.
    expect(done).toContain('pageArchive=2')
    const csv = await visit(`/pages/admin/listeLogs/archive?recherche=${location.searchParams.get('recherche')}`, {
      headers: { Cookie: cookie },
    })
    expect(csv.status).toBe(200)
    expect((await csv.text()).trim().split('\r\n')).toHaveLength(83)
  })

  it("gives a user's full history from their page in one click", async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(1, 1, 3650)] })
    const cookie = await browserCookieOf({ ...admin, ...(await sessionFor(admin.id)) })
    const profile = await visit(`/pages/admin/detail/user/${south.id}`, { headers: { Cookie: cookie } })
    const html = await profile.text()
    expect(html).toContain('Historique complet')
    expect(html).toContain(`action="/pages/admin/listeLogs?utilisateur=${south.id}"`)
    const started = await postForm(`/pages/admin/listeLogs?utilisateur=${south.id}`, cookie, {}, jobs.env)
    expect(started.status).toBe(302)
    await runSearch()
    const location = new URL(started.location ?? '', ORIGIN)
    expect(location.searchParams.get('utilisateur')).toBe(String(south.id))
    const done = await visit(`${location.pathname}${location.search}`, { headers: { Cookie: cookie } })
    expect(await done.text()).toContain('Recherche terminée : 52 entrées trouvées.')
  })
})
