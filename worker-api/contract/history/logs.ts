import { z } from 'zod'
import { pageQuery, positiveInt } from '../common'
import { isCompactDate } from '../dates'
import {
  ADMINISTRATION_ACTIONS,
  type AdministrationAction,
  LOG_LABELS,
  LOG_TYPES,
  type LogType,
  logLabel,
  SERVER_LOG_TYPES,
} from '../log-labels'

export { ADMINISTRATION_ACTIONS, type AdministrationAction, LOG_LABELS, LOG_TYPES, type LogType, logLabel }

/** The log types a client may post (spec §7 POST logs/); administration entries are the server's alone. */
export const CLIENT_LOG_TYPES = LOG_TYPES.filter((type) => !SERVER_LOG_TYPES.includes(type))

/**
 * POST rest/bd/logs/ (spec §7): an action of the caller as a client reports it. `nomLog` is a log
 * type or the name of an application of the catalogue (its type by spec §9). Strict: a body naming
 * a user, a date or a type is refused, not quietly written for the caller.
 */
export const clientLogSchema = z
  .object({
    nomLog: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .describe(`One of ${CLIENT_LOG_TYPES.join(', ')} or an application name`),
    commentaire: z.string().max(500).nullish(),
    nomNavigateur: z.string().max(100).nullish(),
    versionNavigateur: z.string().max(50).nullish(),
  })
  .strict()
export type ClientLogInput = z.infer<typeof clientLogSchema>

/** A day of the history's range, as spec §7 writes it: 'yyyyMMdd', a real calendar date. */
/** The history's days run from 1970 to 9998: its instants are computed in the organisation's time zone. */
export const HISTORY_DAYS = { first: '19700101', last: '99981231' }
const logDay = z
  .string()
  .refine(
    (value) => isCompactDate(value) && value >= HISTORY_DAYS.first && value <= HISTORY_DAYS.last,
    'validation.date',
  )

const optionalDay = (description: string) =>
  z
    .preprocess((value) => (value === 'null' || value === '' ? undefined : value), logDay.optional())
    .describe(description)

/** The history's filters: the range's days (inclusive, Paris time, either optional), search, type. */
const logFilters = {
  dateDebut: optionalDay("First day, yyyyMMdd ('null' or absent: none)"),
  dateFin: optionalDay("Last day, yyyyMMdd, inclusive ('null' or absent: none)"),
  q: pageQuery.q.describe(
    "Words (the first 6) each found in the user's names or mail, the action label, or the day (dd/MM/yyyy)",
  ),
  type: z.enum(LOG_TYPES).optional().describe('Only entries of this type'),
  utilisateur: positiveInt().optional().describe("Only this user's entries (their full history: no dates)"),
}

const rangeInOrder = ({ dateDebut, dateFin }: { dateDebut?: string | undefined; dateFin?: string | undefined }) =>
  !dateDebut || !dateFin || dateDebut <= dateFin
const rangeError = { message: 'validation.dateRange', path: ['dateFin'] }

/** GET rest/bd/logs/ (spec §7): the filters, and with `page` (and `taille`) one page of the same array. */
export const logListQuery = z
  .object({ ...logFilters, page: pageQuery.page, taille: pageQuery.taille })
  .refine(rangeInOrder, rangeError)
export type LogListQuery = z.infer<typeof logListQuery>

/** GET rest/bd/logs/export: the list's filters, every entry. */
export const logExportQuery = z.object(logFilters).refine(rangeInOrder, rangeError)

/** POST rest/bd/logs/recherches: the list's filters, searched in the archived months. */
export const logSearchInput = z.object(logFilters).strict().refine(rangeInOrder, rangeError)
export type LogSearchInput = z.infer<typeof logSearchInput>

/** The user of an entry (null once their account is gone: 'Adresse inconnue'). */
const logUserSchema = z.object({ id: z.number().int(), nom: z.string(), prenom: z.string(), mail: z.string() })

/**
 * An entry of the history (spec §3 log entry), with its user, their structure (first current post,
 * else first future one) and who reported it.
 */
export const logEntrySchema = z.object({
  id: z.number().int(),
  date: z.string().describe('ISO 8601 instant'),
  user: logUserSchema.nullable(),
  compteService: z
    .object({ id: z.number().int(), nom: z.string() })
    .nullable()
    .describe('The service account that acted (then `user` is null): shown as "Compte de service <nom>"'),
  structure: z.object({ id: z.number().int(), nom: z.string() }).nullable(),
  typeLog: z.enum(LOG_TYPES),
  nomLog: z.string(),
  commentaire: z.string().nullable(),
  nomNavigateur: z.string().nullable(),
  versionNavigateur: z.string().nullable(),
  source: z
    .enum(['SERVEUR', 'CLIENT'])
    .describe('SERVEUR: recorded by the API with the action; CLIENT: reported by a client through POST logs/'),
})
export type LogEntry = z.infer<typeof logEntrySchema>
