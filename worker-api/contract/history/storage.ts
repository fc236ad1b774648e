import { z } from 'zod'

/** The size at which D1 stops a database (Cloudflare's limit for a database on the paid plan), in bytes. */
export const D1_LIMIT_BYTES = 10 * 1000 ** 3
/** From this share of D1's limit (5 GB) the home and `rest/public/health` warn: there is room for months yet. */
export const STORAGE_WARNING_SHARE = 0.5
/** From this share (8 GB) they say it is urgent: at 10 GB nobody can sign in. */
export const STORAGE_CRITICAL_SHARE = 0.8
/**
 * What a history entry takes in D1 with its indexes, measured with SQLite's dbstat on the schema of migration 0044 (a
 * million entries written in order: the table 87 MB, its indexes 92 MB): the history's share of the database is its
 * entries times this.
 */
export const LOG_ROW_BYTES = 179

export const STORAGE_STATES = ['ok', 'attention', 'critique'] as const
export type StorageState = (typeof STORAGE_STATES)[number]

/** How full the database is: 'ok' below 5 GB, 'attention' from 5 GB, 'critique' from 8 GB. */
export function storageState(bytes: number): StorageState {
  if (bytes >= STORAGE_CRITICAL_SHARE * D1_LIMIT_BYTES) return 'critique'
  if (bytes >= STORAGE_WARNING_SHARE * D1_LIMIT_BYTES) return 'attention'
  return 'ok'
}

const count = () => z.number().int().nonnegative()
const month = () => z.string().describe('YYYY-MM (UTC)')

/** The database's size and the history's place in it and in the archive (administrators of the whole tree). */
export const storageSchema = z.object({
  base: z.object({
    octets: count().describe("The database's size, in bytes, as D1 reports it"),
    limite: count().describe("D1's limit, in bytes (10 GB)"),
    etat: z
      .enum(STORAGE_STATES)
      .describe(
        `ok below ${STORAGE_WARNING_SHARE * 100} % of the limit, attention from there, critique from ${STORAGE_CRITICAL_SHARE * 100} %`,
      ),
  }),
  historique: z.object({
    entrees: count().describe('Entries of the history in the database (from their ids: about)'),
    octets: count().describe(`Their estimated size, ${LOG_ROW_BYTES} bytes an entry with its indexes`),
    moisEnLigne: count().describe('Months the setting keeps in the database (historiqueMoisEnLigne)'),
    premierMois: month().nullable().describe('The oldest month in the database'),
  }),
  archive: z.object({
    mois: count().describe('Months archived to R2'),
    fichiers: count(),
    entrees: count(),
    octets: count().describe("The Parquet files' size, in bytes"),
    premierMois: month().nullable(),
    dernierMois: month().nullable(),
  }),
})
export type Storage = z.infer<typeof storageSchema>
