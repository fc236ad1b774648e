import { z } from 'zod'
import { logSearchInput } from './logs'

/** How long a search of the archived months and its result are kept (then removed by the hourly cron). */
export const SEARCH_KEPT_HOURS = 24
/** The entries a search keeps at most, the newest first: beyond, it stops and says so (`TRONQUEE`): narrow it. */
export const SEARCH_MAX_ROWS = 100_000
/** The searches of the archive one administrator (or program) may have running at once. */
export const SEARCH_RUNNING_MAX = 3
/** A search refused (429) is asked to come back after this many seconds (`Retry-After`): a running one moves on by then. */
export const SEARCH_RETRY_SECONDS = 60
/** The entries one author's kept searches may hold together (their results are kept a day in D1). */
export const SEARCH_KEPT_ROWS_PER_AUTHOR = 200_000
/**
 * The entries every kept search may hold together, whoever asks: about 300 MB of D1 at most (600 bytes an entry with
 * its index, measured), so that the history's months and the searches stay under 5 GB together.
 */
export const SEARCH_KEPT_ROWS = 500_000
/** The entries one step keeps at most: it stops reading files past them (a step's memory stays small). */
export const SEARCH_STEP_ROWS = 10_000
/** The archive's files one step of a search reads (a message of the jobs queue): 8 × 10 000 entries. */
export const SEARCH_FILES_PER_STEP = 8

/** A search's state: running, done, stopped at SEARCH_MAX_ROWS, or failed (a file that did not match its checksum). */
export const SEARCH_STATES = ['EN_COURS', 'TERMINEE', 'TRONQUEE', 'ECHEC'] as const
export type SearchState = (typeof SEARCH_STATES)[number]

/** A search of the archived months: what it looks for, where it stands, and until when its result is kept. */
export const logSearchSchema = z.object({
  id: z.string().describe('Its id, in the paths of its entries and its CSV'),
  etat: z.enum(SEARCH_STATES),
  filtres: logSearchInput,
  fichiers: z.number().int().describe('The archive files of the range, to read'),
  fichiersLus: z.number().int().describe('The files read so far (progress)'),
  entrees: z.number().int().describe('Entries found so far'),
  moisDebut: z.string().nullable().describe('The first archived month of the range (YYYY-MM), null for none'),
  moisFin: z.string().nullable().describe('The last archived month of the range (YYYY-MM)'),
  erreur: z
    .string()
    .nullable()
    .describe('ECHEC: why (a file of the archive missing or altered, or the archive unreadable)'),
  createdAt: z.string(),
  expiresAt: z.string().describe(`When it and its result are removed (${SEARCH_KEPT_HOURS} h after it started)`),
})
export type LogSearch = z.infer<typeof logSearchSchema>

/** A step of a search on the jobs queue (services/history/archive-search.ts). */
export type SearchMessage = { rechercheId: string }
