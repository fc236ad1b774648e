import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { archiveKey } from '../../worker-api/services/history/archive'
import { ARCHIVE_ROW_GROUP, type ArchivedEntry, archiveFile } from '../../worker-api/services/history/archive-file'

/**
 * The history's archive (issue 64) opens in DuckDB, as the README tells the data team: files written by `archiveFile`
 * into a directory laid out like the bucket (`historique/YYYY/MM/<id min>-<id max>.parquet`), read with one glob. Every
 * expected value is computed from the rows written, never copied from DuckDB's answer.
 */

type Author = Pick<
  ArchivedEntry,
  | 'utilisateur_id'
  | 'compte_service_id'
  | 'utilisateur_mail'
  | 'utilisateur_nom'
  | 'utilisateur_prenom'
  | 'compte_service_nom'
  | 'structure_id'
  | 'structure_nom'
  | 'structure_path'
>

const person = (
  id: number,
  mail: string,
  nom: string,
  prenom: string,
  structure: [number, string, string] | null,
): Author => ({
  utilisateur_id: id,
  compte_service_id: null,
  utilisateur_mail: mail,
  utilisateur_nom: nom,
  utilisateur_prenom: prenom,
  compte_service_nom: null,
  structure_id: structure?.[0] ?? null,
  structure_nom: structure?.[1] ?? null,
  structure_path: structure?.[2] ?? null,
})

const HELENE = person(1, 'helene.dupre@exemple.fr', 'Dupré-Noël', 'Hélène', [3, 'Direction régionale', '/1/3/'])
const JEAN = person(2, 'jean.oneil@exemple.fr', "O'Neil", 'Jean-François', [7, 'Agence de Besançon', '/1/3/7/'])
// '/1/30/' is not in the sub-tree of '/1/3/': a prefix of text, not of path, would take it.
const ZOE = person(3, 'zoe.lefevre@exemple.fr', 'Lefèvre', 'Zoë', [30, 'Siège « Paris »', '/1/30/'])
const ZOE_WITHOUT_POST = person(3, 'zoe.lefevre@exemple.fr', 'Lefèvre', 'Zoë', null)
// Only in January's last days (its file's last row group): the bloom filter of the groups before excludes her.
const LATE = person(4, 'noemie.a@exemple.fr', 'Aït-Saïd', 'Noémie', [5, 'Agence de Dole', '/1/5/'])
const SERVICE: Author = {
  utilisateur_id: null,
  compte_service_id: 9,
  utilisateur_mail: null,
  utilisateur_nom: null,
  utilisateur_prenom: null,
  compte_service_nom: 'Synchronisation SIRH',
  structure_id: 3,
  structure_nom: 'Direction régionale',
  structure_path: '/1/3/',
}

const KINDS = [
  ['CONNEXION', 'CONNEXION'],
  ['ADMINISTRATION', 'MODIFICATION_UTILISATEUR'],
  ['APPLICATION', 'Module Rendez vous'],
] as const
const TRICKY_COMMENT = 'Rôle modifié, « Gestionnaire » → "Administrateur" (l\'agence)'

// Ids past 2^32: an INT64 that an INT32 reader would garble.
const FIRST_ID = 2 ** 32 + 1
const JANUARY_ROWS = 4_800
const FEBRUARY_ROWS = 300
const MINUTE = 60_000

function entry(k: number, date: Date, author: Author): ArchivedEntry {
  const [type_log, nom_log] = KINDS[k % 3]!
  return {
    id: FIRST_ID + k,
    date: date.toISOString(),
    type_log,
    nom_log,
    commentaire: k % 5 === 0 ? null : k % 5 === 1 ? TRICKY_COMMENT : `Entrée n°${k}`,
    nom_navigateur: k % 4 === 0 ? null : k % 2 === 0 ? 'Firefox' : 'Chrome',
    version_navigateur: k % 4 === 0 ? null : `${120 + (k % 7)}.0`,
    source: k % 6 === 0 ? 'CLIENT' : 'SERVEUR',
    ...author,
  }
}

function januaryAuthor(k: number): Author {
  const slot = k % 10
  if (slot <= 3) return HELENE
  if (slot <= 6) return JEAN
  if (slot === 8) return k >= 4_400 ? LATE : ZOE
  return SERVICE
}

// January: an entry every 9 minutes, milliseconds too; every 97th written two hours late (its id after its date's);
// every 100th from the 10th at the same instant as the same author's entry ten before (the id orders them).
const januaryDate = (k: number): Date =>
  k % 100 === 10
    ? januaryDate(k - 10)
    : new Date(Date.UTC(2025, 0, 1) + k * 9 * MINUTE + (k % 1000) - (k % 97 === 50 ? 120 * MINUTE : 0))
const january = Array.from({ length: JANUARY_ROWS }, (_, k) => entry(k, januaryDate(k), januaryAuthor(k)))
// February: an entry every two hours; Zoë has no post any more (no structure).
const february = Array.from({ length: FEBRUARY_ROWS }, (_, i) => {
  const k = JANUARY_ROWS + i
  const author = [HELENE, JEAN, ZOE_WITHOUT_POST, SERVICE][i % 4]!
  return entry(k, new Date(Date.UTC(2025, 1, 1, 0, 30) + i * 120 * MINUTE), author)
})
const all = [...january, ...february]

const byDateThenId = (a: ArchivedEntry, b: ArchivedEntry) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id - b.id)

const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`

/** The README's queries ("Querying the archive with DuckDB"), on a local copy here, on the bucket's r2:// glob there. */
const readme = {
  oneUser: (glob: string, user: number, from: string, to: string) => `
    SELECT id, date, type_log, nom_log, commentaire, structure_nom
    FROM read_parquet(${sqlText(glob)})
    WHERE utilisateur_id = ${user}
      AND date >= ${sqlText(from)} AND date < ${sqlText(to)}
    QUALIFY row_number() OVER (PARTITION BY id) = 1
    ORDER BY date DESC, id DESC`,
  perMonthAndType: (glob: string, from: string, to: string) => `
    SELECT left(date, 7) AS mois, type_log, count(DISTINCT id) AS entrees
    FROM read_parquet(${sqlText(glob)})
    WHERE date >= ${sqlText(from)} AND date < ${sqlText(to)}
    GROUP BY ALL
    ORDER BY mois, type_log`,
}

async function writeArchive(root: string, mois: string, entries: ArchivedEntry[]): Promise<string> {
  const ids = entries.map((e) => e.id)
  const path = join(root, archiveKey(mois, Math.min(...ids), Math.max(...ids)))
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, new Uint8Array((await archiveFile(entries)).bytes))
  return path
}

describe('the history archive in DuckDB', () => {
  let dir: string
  let glob: string
  let januaryFile: string
  let instance: DuckDBInstance
  let connection: DuckDBConnection

  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS()

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archive-duckdb-'))
    januaryFile = await writeArchive(dir, '2025-01', january)
    await writeArchive(dir, '2025-02', february)
    glob = join(dir, 'historique/*/*/*.parquet')
    // Nothing fetched at run time: Parquet is built in; an extension to download would fail instead.
    instance = await DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    })
    connection = await instance.connect()
  })

  afterAll(async () => {
    connection?.closeSync()
    instance?.closeSync()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('reads both months through one glob, every row and column as written', async () => {
    const files = await rows(`SELECT DISTINCT filename FROM read_parquet(${sqlText(glob)}) ORDER BY filename`)
    expect(files.map((f) => String(f.filename).slice(dir.length + 1))).toEqual([
      archiveKey('2025-01', FIRST_ID, FIRST_ID + JANUARY_ROWS - 1),
      archiveKey('2025-02', FIRST_ID + JANUARY_ROWS, FIRST_ID + all.length - 1),
    ])
    expect(await rows(`SELECT count(*) AS n FROM read_parquet(${sqlText(glob)})`)).toEqual([{ n: BigInt(all.length) }])

    const read = await rows(`SELECT * FROM read_parquet(${sqlText(glob)}) ORDER BY id`)
    expect(read.map((row) => ({ ...row, id: Number(row.id) }))).toEqual(
      [...all].sort((a, b) => a.id - b.id).map((e) => ({ ...e })),
    )
  })

  it('reads id as BIGINT (bigint in JS), date as text, the user as INTEGER', async () => {
    const columns = await rows(`DESCRIBE SELECT * FROM read_parquet(${sqlText(glob)})`)
    const types = Object.fromEntries(columns.map((c) => [c.column_name, c.column_type]))
    expect(types).toEqual({
      id: 'BIGINT',
      date: 'VARCHAR',
      type_log: 'VARCHAR',
      nom_log: 'VARCHAR',
      commentaire: 'VARCHAR',
      nom_navigateur: 'VARCHAR',
      version_navigateur: 'VARCHAR',
      source: 'VARCHAR',
      utilisateur_id: 'INTEGER',
      compte_service_id: 'INTEGER',
      utilisateur_mail: 'VARCHAR',
      utilisateur_nom: 'VARCHAR',
      utilisateur_prenom: 'VARCHAR',
      compte_service_nom: 'VARCHAR',
      structure_id: 'INTEGER',
      structure_nom: 'VARCHAR',
      structure_path: 'VARCHAR',
    })
    const last = all.at(-1)!
    const [row] = await rows(
      `SELECT id, typeof(id) AS t, id > 2147483647 AS wide FROM read_parquet(${sqlText(glob)}) ORDER BY id DESC LIMIT 1`,
    )
    expect(row).toEqual({ id: BigInt(last.id), t: 'BIGINT', wide: true })
    // The text casts to a TIMESTAMP (UTC: the 'Z' is read), to the millisecond.
    const stamps = await rows(`SELECT id, date::TIMESTAMP AS at FROM read_parquet(${sqlText(glob)}) ORDER BY id`)
    expect(stamps.map((s) => (s.at as Date).getTime())).toEqual(
      [...all].sort((a, b) => a.id - b.id).map((e) => Date.parse(e.date)),
    )
  })

  it("finds one user's entries over a range of dates across both files, newest first (the README's query)", async () => {
    const [from, to] = ['2025-01-20', '2025-02-10']
    const expected = all
      .filter((e) => e.utilisateur_id === HELENE.utilisateur_id && e.date >= from && e.date < to)
      .sort(byDateThenId)
      .reverse()
    expect(new Set(expected.map((e) => e.date.slice(0, 7)))).toEqual(new Set(['2025-01', '2025-02']))
    const read = await rows(readme.oneUser(glob, HELENE.utilisateur_id!, from, to))
    expect(read.map((r) => Number(r.id))).toEqual(expected.map((e) => e.id))
    expect(read[0]).toEqual({
      id: BigInt(expected[0]!.id),
      date: expected[0]!.date,
      type_log: expected[0]!.type_log,
      nom_log: expected[0]!.nom_log,
      commentaire: expected[0]!.commentaire,
      structure_nom: expected[0]!.structure_nom,
    })
  })

  it("counts per month and type (the README's query)", async () => {
    const expected = new Map<string, number>()
    for (const e of all) {
      const key = `${e.date.slice(0, 7)} ${e.type_log}`
      expected.set(key, (expected.get(key) ?? 0) + 1)
    }
    const read = await rows(readme.perMonthAndType(glob, '2024-01-01', '2026-01-01'))
    expect(read.map((r) => [`${r.mois} ${r.type_log}`, Number(r.entrees)])).toEqual(
      [...expected].sort(([a], [b]) => (a < b ? -1 : 1)),
    )
  })

  it('keeps accents, quotes, commas and nulls', async () => {
    const pick = (e: ArchivedEntry) => ({
      utilisateur_id: e.utilisateur_id,
      compte_service_nom: e.compte_service_nom,
      utilisateur_nom: e.utilisateur_nom,
      utilisateur_prenom: e.utilisateur_prenom,
      structure_path: e.structure_path,
    })
    const distinct = (list: ReturnType<typeof pick>[]) =>
      [...new Map(list.map((a) => [JSON.stringify(a), a])).values()].sort((a, b) =>
        JSON.stringify(a) < JSON.stringify(b) ? -1 : 1,
      )
    const read = await rows(`SELECT DISTINCT utilisateur_id, compte_service_nom, utilisateur_nom, utilisateur_prenom,
      structure_path FROM read_parquet(${sqlText(glob)})`)
    expect(distinct(read as ReturnType<typeof pick>[])).toEqual(distinct(all.map(pick)))

    const helene = await rows(
      `SELECT DISTINCT utilisateur_id FROM read_parquet(${sqlText(glob)}) WHERE utilisateur_prenom = 'Hélène'`,
    )
    expect(helene).toEqual([{ utilisateur_id: HELENE.utilisateur_id }])
    const service = await rows(`SELECT count(*) AS n FROM read_parquet(${sqlText(glob)})
      WHERE utilisateur_id IS NULL AND compte_service_nom = 'Synchronisation SIRH'`)
    expect(service).toEqual([{ n: BigInt(all.filter((e) => e.utilisateur_id === null).length) }])
    const tricky = await rows(
      `SELECT count(*) AS n FROM read_parquet(${sqlText(glob)}) WHERE commentaire = ${sqlText(TRICKY_COMMENT)}`,
    )
    expect(tricky).toEqual([{ n: BigInt(all.filter((e) => e.commentaire === TRICKY_COMMENT).length) }])
    const nulls = await rows(`SELECT count(*) FILTER (WHERE commentaire IS NULL) AS commentaire,
      count(*) FILTER (WHERE nom_navigateur IS NULL) AS navigateur,
      count(*) FILTER (WHERE structure_path IS NULL) AS structure
      FROM read_parquet(${sqlText(glob)})`)
    const count = (test: (e: ArchivedEntry) => boolean) => BigInt(all.filter(test).length)
    expect(nulls).toEqual([
      {
        commentaire: count((e) => e.commentaire === null),
        navigateur: count((e) => e.nom_navigateur === null),
        structure: count((e) => e.structure_path === null),
      },
    ])
  })

  it("selects an administrator's sub-tree by structure_path", async () => {
    const expected = all.filter((e) => e.structure_path?.startsWith('/1/3/')).map((e) => e.id)
    // The data reach both ends: the structure itself, one below it, its namesake '/1/30/', and no structure at all.
    const paths = new Set(all.filter((e) => expected.includes(e.id)).map((e) => e.structure_path))
    expect(paths).toEqual(new Set(['/1/3/', '/1/3/7/']))
    expect(all.some((e) => e.structure_path === '/1/30/') && all.some((e) => e.structure_path === null)).toBe(true)

    const read = await rows(
      `SELECT id FROM read_parquet(${sqlText(glob)}) WHERE structure_path LIKE '/1/3/%' ORDER BY id`,
    )
    expect(read.map((r) => Number(r.id))).toEqual(expected.sort((a, b) => a - b))
  })

  it("sees the file's row groups, their date statistics and the user's bloom filter", async () => {
    const sorted = [...january].sort(byDateThenId)
    const groups = Math.ceil(sorted.length / ARCHIVE_ROW_GROUP)
    expect(groups).toBeGreaterThan(1)
    const stats =
      await rows(`SELECT row_group_id, row_group_num_rows AS n, stats_min_value AS min, stats_max_value AS max
      FROM parquet_metadata(${sqlText(januaryFile)}) WHERE path_in_schema = 'date' ORDER BY row_group_id`)
    expect(stats).toEqual(
      Array.from({ length: groups }, (_, g) => {
        const group = sorted.slice(g * ARCHIVE_ROW_GROUP, (g + 1) * ARCHIVE_ROW_GROUP)
        return { row_group_id: BigInt(g), n: BigInt(group.length), min: group[0]!.date, max: group.at(-1)!.date }
      }),
    )

    // The late user is only in the last group: the bloom filter lets DuckDB skip the others.
    const holds = Array.from({ length: groups }, (_, g) =>
      sorted
        .slice(g * ARCHIVE_ROW_GROUP, (g + 1) * ARCHIVE_ROW_GROUP)
        .some((e) => e.utilisateur_id === LATE.utilisateur_id),
    )
    expect(holds).toEqual(Array.from({ length: groups }, (_, g) => g === groups - 1))
    const probe = await rows(`SELECT row_group_id, bloom_filter_excludes AS excludes
      FROM parquet_bloom_probe(${sqlText(januaryFile)}, 'utilisateur_id', ${LATE.utilisateur_id}) ORDER BY row_group_id`)
    expect(probe).toEqual(holds.map((held, g) => ({ row_group_id: BigInt(g), excludes: !held })))
  })

  it('counts an entry once when a late, unlisted file of the bucket holds it again (the README says why)', async () => {
    // A late step of the archiver may leave a file that overlaps a listed one: in the bucket, never in
    // `historique_archive`. A glob reads it; the README's queries count each id once.
    const twice = await mkdtemp(join(tmpdir(), 'archive-duckdb-late-'))
    try {
      await writeArchive(twice, '2025-01', january)
      await writeArchive(twice, '2025-01', january.slice(-500))
      const lateGlob = join(twice, 'historique/*/*/*.parquet')
      expect(await rows(`SELECT count(*) AS n FROM read_parquet(${sqlText(lateGlob)})`)).toEqual([
        { n: BigInt(JANUARY_ROWS + 500) },
      ])
      const read = await rows(readme.perMonthAndType(lateGlob, '2025-01-01', '2025-02-01'))
      expect(read.reduce((sum, r) => sum + Number(r.entrees), 0)).toBe(JANUARY_ROWS)
      const [from, to] = ['2025-01-25', '2025-02-01']
      const expected = january
        .filter((e) => e.utilisateur_id === JEAN.utilisateur_id && e.date >= from && e.date < to)
        .sort(byDateThenId)
        .reverse()
        .map((e) => e.id)
      const user = await rows(readme.oneUser(lateGlob, JEAN.utilisateur_id!, from, to))
      expect(user.map((r) => Number(r.id))).toEqual(expected)
    } finally {
      await rm(twice, { recursive: true, force: true })
    }
  })
})
