import { type SqlBool, sql } from 'kysely'
import type { ArchiveMessage } from '../../contract/history/archive'
import { HISTORY_MONTHS } from '../../contract/sign-in/mfa'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'
import { enqueue } from '../core/jobs'
import { type ArchivedEntry, archiveFile } from './archive-file'
import { atInstant, LOG_COLUMNS, OLDEST_ENTRY_DATE } from './logs'

/**
 * Ten years of history (issue 64): D1 keeps the months of `historiqueMoisEnLigne`; each older month is written to R2
 * (binding ARCHIVE) as Parquet files, each listed in `historique_archive`, and only then removed from D1. The hourly
 * cron queues the oldest such month; each message of the jobs queue does one step and queues the next:
 * - **a part**: the month's next ARCHIVE_PART_ROWS entries after those listed, written to R2, then listed, provided
 *   it starts after every part listed (a step delivered twice writes the same file under the same name, and lists it
 *   once; a late step that would overlap another is not listed: its file stays unread);
 * - once every entry of the month is listed, **a lot removed**: ARCHIVE_REMOVE_ROWS entries that a listed part holds;
 *   The month's history entry is written (once) with the first lot; nothing left to remove, the chain ends (the cron
 *   queues the next month).
 * A step that fails is delivered again: nothing is removed that a listed file does not hold, nothing listed twice.
 */

/** Entries in one part (one file, one message): about 10 000 × 300 bytes read from D1, well within a message's memory. */
export const ARCHIVE_PART_ROWS = 10_000
/** Entries removed from D1 by one message's statement. */
export const ARCHIVE_REMOVE_ROWS = 5_000

/** 'YYYY-MM' of a date (UTC). */
const monthOf = (date: Date) => date.toISOString().slice(0, 7)

/** The first month D1 keeps: the current one and the `months - 1` before it (UTC). */
export function firstKeptMonth(now: Date, months: number): string {
  return monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1)))
}

/** The month after 'YYYY-MM'. */
function nextMonth(mois: string): string {
  const [year, month] = mois.split('-').map(Number) as [number, number]
  return monthOf(new Date(Date.UTC(year, month, 1)))
}

/** The file of a part: by the month and the ids it holds (a part written again has the same name). */
export const archiveKey = (mois: string, idMin: number, idMax: number) =>
  `historique/${mois.slice(0, 4)}/${mois.slice(5, 7)}/${String(idMin).padStart(12, '0')}-${String(idMax).padStart(12, '0')}.parquet`

const monthsSetting = (db: DB) =>
  db.selectFrom('parametre_securite').select('historique_mois_en_ligne as months').where('id', '=', 1)

/** The month's entries (UTC), by their instant. */
const inMonth = (mois: string) =>
  sql<SqlBool>`log.instant >= ${atInstant(`${mois}-01T00:00:00.000Z`)} and log.instant < ${atInstant(`${nextMonth(mois)}-01T00:00:00.000Z`)}`

/** The highest id a listed part of the month holds (0 for none). */
const listedUpTo = (db: DB, mois: string) =>
  db.selectFrom('historique_archive').select(sql<number>`coalesce(max(id_max), 0)`.as('up_to')).where('mois', '=', mois)

/**
 * The cron's part (hourly): the oldest month of `log` older than the months kept, queued. A month already under way
 * gets a second chain; both write the same parts (each listed once) and end at the month's end.
 */
export async function archiveDue(ctx: Ctx, now = new Date()): Promise<string | null> {
  if (!ctx.env.ARCHIVE) return null
  const read = await namedBatch(ctx.d1, {
    setting: monthsSetting(ctx.db),
    oldest: ctx.db.selectNoFrom(OLDEST_ENTRY_DATE.as('date')),
  })
  const months = read.setting?.results[0]?.months ?? HISTORY_MONTHS.default
  const oldest = read.oldest?.results[0]?.date
  if (!oldest) return null
  const mois = oldest.slice(0, 7)
  if (mois >= firstKeptMonth(now, months)) return null
  await enqueue(ctx, { kind: 'archive-step', mois })
  return mois
}

/** The entries of the month's next part, with their author and structure as they are now (the names archived). */
function nextPart(db: DB, mois: string) {
  return (
    db
      .selectFrom('log')
      .leftJoin('utilisateur as u', 'u.id', 'log.utilisateur_id')
      .leftJoin('compte_service as cs', 'cs.id', 'log.compte_service_id')
      .select([
        ...LOG_COLUMNS,
        'u.mail as utilisateur_mail',
        'u.nom as utilisateur_nom',
        'u.prenom as utilisateur_prenom',
        'cs.nom as compte_service_nom',
      ])
      // The structure of the author's post on the entry's day, else of the account's own structure.
      .select(
        sql<string | null>`coalesce(
        (select json_object('id', s.id, 'nom', s.nom, 'path', s.path) from poste p join structure s on s.id = p.structure_id
          where p.utilisateur_id = log.utilisateur_id and p.date_debut <= substr(log.date, 1, 10)
            and p.date_fin >= substr(log.date, 1, 10)
          order by p.date_debut, p.id limit 1),
        (select json_object('id', s.id, 'nom', s.nom, 'path', s.path) from structure s where s.id = cs.structure_id))`.as(
          'structure',
        ),
      )
      .where(inMonth(mois))
      .where('log.id', '>', listedUpTo(db, mois))
      .orderBy('log.id')
      .limit(ARCHIVE_PART_ROWS)
  )
}

type PartRow = Omit<ArchivedEntry, 'structure_id' | 'structure_nom' | 'structure_path'> & { structure: string | null }

const archived = (row: PartRow): ArchivedEntry => {
  const { structure, ...entry } = row
  const held = structure ? (JSON.parse(structure) as { id: number; nom: string; path: string }) : null
  return {
    ...entry,
    structure_id: held?.id ?? null,
    structure_nom: held?.nom ?? null,
    structure_path: held?.path ?? null,
  }
}

export type ArchiveStepResult =
  | { step: 'written'; fichier: string; lignes: number; listed: boolean }
  | { step: 'removed'; lignes: number }
  | { step: 'done' | 'kept' }

/** One step of a month's archive (a message of the jobs queue); the next step is queued unless the month is done. */
export async function archiveStep(ctx: Ctx, message: ArchiveMessage, now = new Date()): Promise<ArchiveStepResult> {
  const bucket = ctx.env.ARCHIVE
  if (!bucket) throw new Error('The history archive has no bucket (ARCHIVE)')
  const db = ctx.db
  const { mois } = message
  const read = await namedBatch(ctx.d1, { setting: monthsSetting(db), part: nextPart(db, mois) })
  const months = read.setting?.results[0]?.months ?? HISTORY_MONTHS.default
  // The setting raised since the message was sent: the month stays in D1.
  if (mois >= firstKeptMonth(now, months)) return { step: 'kept' }
  const rows = (read.part?.results ?? []) as PartRow[]
  if (rows.length === 0) return removeLot(ctx, mois)

  const entries = rows.map(archived)
  const idMin = entries[0]?.id ?? 0
  const idMax = entries.at(-1)?.id ?? 0
  const dates = entries.map((entry) => entry.date).sort()
  const fichier = archiveKey(mois, idMin, idMax)
  const { bytes, sha256 } = await archiveFile(entries)
  await bucket.put(fichier, bytes, {
    sha256,
    customMetadata: { mois, lignes: String(entries.length) },
    httpMetadata: { contentType: 'application/vnd.apache.parquet' },
  })
  // Listed only after every part listed: a part written again lists nothing twice, a late one never overlaps.
  const written = await namedBatch(ctx.d1, {
    listed: insertWhen(
      db,
      'historique_archive',
      {
        fichier,
        mois,
        id_min: idMin,
        id_max: idMax,
        lignes: entries.length,
        octets: bytes.byteLength,
        sha256,
        date_min: dates[0] ?? '',
        date_max: dates.at(-1) ?? '',
        created_at: now.toISOString(),
      },
      db
        .selectNoFrom(sql<number>`1`.as('one'))
        .where(({ not, exists }) =>
          not(
            exists(
              db
                .selectFrom('historique_archive')
                .select('fichier')
                .where('mois', '=', mois)
                .where('id_max', '>=', idMin),
            ),
          ),
        ),
    ),
    stillListed: db.selectFrom('historique_archive').select('fichier').where('fichier', '=', fichier),
  })
  // Not listed, and not the name of a listed part (a step delivered twice writes the same one): a late step's file,
  // overlapping a listed one, removed so that a reader of the whole bucket (DuckDB) finds each entry once.
  if (written.stillListed?.results.length === 0) await bucket.delete(fichier)
  await enqueue(ctx, { kind: 'archive-step', mois })
  return { step: 'written', fichier, lignes: entries.length, listed: (written.listed?.meta.changes ?? 0) > 0 }
}

/** Every entry of the month listed: the month's history entry (once), and a lot of those a listed part holds removed. */
async function removeLot(ctx: Ctx, mois: string): Promise<ArchiveStepResult> {
  const db = ctx.db
  const held = db
    .selectFrom('historique_archive as a')
    .select('a.fichier')
    .where('a.mois', '=', mois)
    .where(sql<SqlBool>`log.id between a.id_min and a.id_max`)
  const lot = db
    .selectFrom('log')
    .select('log.id')
    .where(inMonth(mois))
    .where(({ exists }) => exists(held))
    // Never the newest entry of all: SQLite gives a new entry the id after the highest, so an id archived is never
    // given again (an entry written after its month's removal cannot take an id a listed part covers).
    .where('log.id', '<', db.selectFrom('log as newest').select(sql<number>`max(newest.id)`.as('id')))
    .limit(ARCHIVE_REMOVE_ROWS)
  const done = await namedBatch(ctx.d1, {
    // The month's entry, once, first: every entry of the month is in a listed file. Newer than them all, it keeps the
    // highest id away from the month's (below).
    entry: insertWhen(
      db,
      'log',
      {
        ...logEntry(0, 'ADMINISTRATION', 'HISTORIQUE_ARCHIVE', null),
        utilisateur_id: null,
        // '2025-01 : 3 fichiers, 25000 entrées'
        commentaire: sql<string>`(select ${mois} || ' : ' || count(*) || ' fichiers, ' || coalesce(sum(lignes), 0) || ' entrées'
          from historique_archive where mois = ${mois})`,
      },
      db
        .selectNoFrom(sql<number>`1`.as('one'))
        .where(({ not, exists }) =>
          not(exists(db.selectFrom('historique_archive_journal').select('mois').where('mois', '=', mois))),
        ),
    ),
    journal: db
      .insertInto('historique_archive_journal')
      .values({ mois })
      .onConflict((oc) => oc.doNothing()),
    removed: db.deleteFrom('log').where('id', 'in', lot),
  })
  const removed = done.removed?.meta.changes ?? 0
  if (removed === 0) return { step: 'done' }
  await enqueue(ctx, { kind: 'archive-step', mois })
  return { step: 'removed', lignes: removed }
}
