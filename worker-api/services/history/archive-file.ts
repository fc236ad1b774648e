import { type ParquetQueryFilter, parquetMetadata, parquetReadObjects } from 'hyparquet'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { hex } from '../../lib/crypto'

/**
 * A Parquet file of the history's archive (issue 64): written and read in the Worker by hyparquet-writer and hyparquet
 * (pure JavaScript on Web APIs only, no dependency but each other: the writer pins the reader's version). Snappy, row
 * groups of ARCHIVE_ROW_GROUP entries sorted by date, min/max statistics untruncated (a reader skips a group by date)
 * and a bloom filter on the user (a reader skips a group without them): what DuckDB, Spark or Trino read as well.
 */

/** An entry as archived: the columns of `log`, and who its author was and where, as they were when it was archived. */
export type ArchivedEntry = {
  id: number
  date: string
  type_log: string
  nom_log: string
  commentaire: string | null
  nom_navigateur: string | null
  version_navigateur: string | null
  source: string
  utilisateur_id: number | null
  compte_service_id: number | null
  /** The author's mail, names, and structure (their first current or future post's), when archived. */
  utilisateur_mail: string | null
  utilisateur_nom: string | null
  utilisateur_prenom: string | null
  compte_service_nom: string | null
  structure_id: number | null
  structure_nom: string | null
  /** The structure's path in the tree (`/1/3/`): an administrator's scope reaches an archived entry by it. */
  structure_path: string | null
}

/** Entries in a row group: small enough that a search by date or user skips most of a file. */
export const ARCHIVE_ROW_GROUP = 2_000

type Column = { name: keyof ArchivedEntry; type: 'INT64' | 'INT32' | 'STRING'; nullable: boolean; bloom?: boolean }

/** The file's columns, in order (a change of them is a new version of the format: files already written keep theirs). */
const COLUMNS: Column[] = [
  { name: 'id', type: 'INT64', nullable: false },
  { name: 'date', type: 'STRING', nullable: false },
  { name: 'type_log', type: 'STRING', nullable: false },
  { name: 'nom_log', type: 'STRING', nullable: false },
  { name: 'commentaire', type: 'STRING', nullable: true },
  { name: 'nom_navigateur', type: 'STRING', nullable: true },
  { name: 'version_navigateur', type: 'STRING', nullable: true },
  { name: 'source', type: 'STRING', nullable: false },
  { name: 'utilisateur_id', type: 'INT32', nullable: true, bloom: true },
  { name: 'compte_service_id', type: 'INT32', nullable: true },
  { name: 'utilisateur_mail', type: 'STRING', nullable: true },
  { name: 'utilisateur_nom', type: 'STRING', nullable: true },
  { name: 'utilisateur_prenom', type: 'STRING', nullable: true },
  { name: 'compte_service_nom', type: 'STRING', nullable: true },
  { name: 'structure_id', type: 'INT32', nullable: true },
  { name: 'structure_nom', type: 'STRING', nullable: true },
  { name: 'structure_path', type: 'STRING', nullable: true },
]

/** The Parquet file of `entries` (sorted here by date, then id) and its SHA-256. */
export async function archiveFile(entries: ArchivedEntry[]): Promise<{ bytes: ArrayBuffer; sha256: string }> {
  const sorted = [...entries].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id - b.id))
  const bytes = parquetWriteBuffer({
    columnData: COLUMNS.map((column) => ({
      name: column.name,
      // INT64 takes bigints.
      data: sorted.map((entry) =>
        column.type === 'INT64' ? BigInt(entry[column.name] as number) : entry[column.name],
      ),
      type: column.type,
      nullable: column.nullable,
      ...(column.bloom ? { bloomFilter: true } : {}),
    })),
    rowGroupSize: ARCHIVE_ROW_GROUP,
    statisticsTruncateLength: Number.POSITIVE_INFINITY,
  })
  return { bytes, sha256: await fileSha256(bytes) }
}

/** The entries of an archive file, as written. */
export async function readArchiveFile(bytes: ArrayBuffer): Promise<ArchivedEntry[]> {
  const metadata = parquetMetadata(bytes)
  const rows = (await parquetReadObjects({ file: bytes, metadata })) as Record<string, unknown>[]
  return rows.map((row) => ({ ...row, id: Number(row.id) }) as ArchivedEntry)
}

/**
 * The entries of an archive file that `filter` keeps (hyparquet's filter: it skips the row groups whose statistics, or
 * whose bloom filter on the user, rule them out, and checks the rest row by row).
 */
export async function searchArchiveFile(bytes: ArrayBuffer, filter: ParquetQueryFilter): Promise<ArchivedEntry[]> {
  const metadata = parquetMetadata(bytes)
  const rows = (await parquetReadObjects({
    file: bytes,
    metadata,
    ...(Object.keys(filter).length > 0 ? { filter, useBloomFilters: true } : {}),
  })) as Record<string, unknown>[]
  return rows.map((row) => ({ ...row, id: Number(row.id) }) as ArchivedEntry)
}

/** A file's SHA-256, hex: kept with its listing, checked when it is read. */
export const fileSha256 = async (bytes: ArrayBuffer) => hex(await crypto.subtle.digest('SHA-256', bytes))
