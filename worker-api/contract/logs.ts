import { z } from 'zod'
import { LOG_TYPES, type LogType } from '../db/schema'
import { pageQuery } from './common'

export { LOG_TYPES, type LogType }

/**
 * The actions an administrator's entry may name (`nomLog` of an ADMINISTRATION entry, DESIGN §8),
 * each with its label: the history shows and searches the label, not the code.
 */
export const ADMINISTRATION_ACTIONS = [
  'UTILISATEUR_CREATION',
  'UTILISATEUR_ACTIVATION',
  'UTILISATEUR_DESACTIVATION',
  'UTILISATEUR_ADMIN',
  'UTILISATEUR_ADMIN_RETRAIT',
  'UTILISATEUR_SUPPRESSION',
  'UTILISATEUR_RETABLISSEMENT',
  'INVITATION_RENVOI',
  'MAIL_CHANGE',
  'POSTE_CREATION',
  'POSTE_SUPPRESSION',
  'STRUCTURE_CREATION',
  'STRUCTURE_MODIFICATION',
  'STRUCTURE_SUPPRESSION',
  'INSCRIPTION',
  'INSCRIPTION_VALIDATION',
  'INSCRIPTION_RENVOI',
  'INSCRIPTION_REFUS',
  'HISTORIQUE_EXPORT',
] as const
export type AdministrationAction = (typeof ADMINISTRATION_ACTIONS)[number]

type Labels = { types: Record<LogType, string>; actions: Record<AdministrationAction, string> }

/**
 * The action labels of the history (spec §2 logs screen: "action label by log type"), in both
 * languages: the screen shows them (the locales take them from here) and the API's search matches
 * them, so that what one reads is what one finds.
 */
export const LOG_LABELS: Record<'fr' | 'en', Labels> = {
  fr: {
    types: {
      CONNEXION: 'Connexion',
      DECONNEXION: 'Déconnexion',
      APPLICATION: 'Lancement d’une application',
      APPLI_YARD: 'Lancement de Yard dangereux',
      APPLI_PESAGE: 'Lancement de Pesage',
      APPLI_MODRDV: 'Lancement du Module Rendez vous',
      ADMINISTRATION: 'Administration',
    },
    actions: {
      UTILISATEUR_CREATION: 'Création d’un utilisateur',
      UTILISATEUR_ACTIVATION: 'Activation d’un utilisateur',
      UTILISATEUR_DESACTIVATION: 'Désactivation d’un utilisateur',
      UTILISATEUR_ADMIN: 'Droits d’administrateur donnés',
      UTILISATEUR_ADMIN_RETRAIT: 'Droits d’administrateur retirés',
      UTILISATEUR_SUPPRESSION: 'Suppression d’un utilisateur',
      UTILISATEUR_RETABLISSEMENT: 'Rétablissement d’un utilisateur',
      INVITATION_RENVOI: 'Invitation renvoyée',
      MAIL_CHANGE: 'Changement d’adresse mail',
      POSTE_CREATION: 'Ajout d’un poste',
      POSTE_SUPPRESSION: 'Suppression d’un poste',
      STRUCTURE_CREATION: 'Création d’une structure',
      STRUCTURE_MODIFICATION: 'Modification d’une structure',
      STRUCTURE_SUPPRESSION: 'Suppression d’une structure',
      INSCRIPTION: 'Inscription d’un transporteur',
      INSCRIPTION_VALIDATION: 'Inscription validée',
      INSCRIPTION_RENVOI: 'Lien d’inscription renvoyé',
      INSCRIPTION_REFUS: 'Inscription refusée',
      HISTORIQUE_EXPORT: 'Export de l’historique',
    },
  },
  en: {
    types: {
      CONNEXION: 'Sign-in',
      DECONNEXION: 'Sign-out',
      APPLICATION: 'Application launch',
      APPLI_YARD: 'Yard dangereux launch',
      APPLI_PESAGE: 'Pesage launch',
      APPLI_MODRDV: 'Module Rendez vous launch',
      ADMINISTRATION: 'Administration',
    },
    actions: {
      UTILISATEUR_CREATION: 'User created',
      UTILISATEUR_ACTIVATION: 'User enabled',
      UTILISATEUR_DESACTIVATION: 'User disabled',
      UTILISATEUR_ADMIN: 'Administrator rights given',
      UTILISATEUR_ADMIN_RETRAIT: 'Administrator rights removed',
      UTILISATEUR_SUPPRESSION: 'User deleted',
      UTILISATEUR_RETABLISSEMENT: 'User restored',
      INVITATION_RENVOI: 'Invitation sent again',
      MAIL_CHANGE: 'Mail address changed',
      POSTE_CREATION: 'Post added',
      POSTE_SUPPRESSION: 'Post removed',
      STRUCTURE_CREATION: 'Structure created',
      STRUCTURE_MODIFICATION: 'Structure modified',
      STRUCTURE_SUPPRESSION: 'Structure deleted',
      INSCRIPTION: 'Carrier registration',
      INSCRIPTION_VALIDATION: 'Registration approved',
      INSCRIPTION_RENVOI: 'Registration link sent again',
      INSCRIPTION_REFUS: 'Registration refused',
      HISTORIQUE_EXPORT: 'History exported',
    },
  },
}

/** The label of an entry: its administrative action's when it names a known one, else its type's. */
export function logLabel(language: 'fr' | 'en', entry: { typeLog: LogType; nomLog: string }): string {
  const labels = LOG_LABELS[language]
  if (entry.typeLog === 'ADMINISTRATION' && (ADMINISTRATION_ACTIONS as readonly string[]).includes(entry.nomLog)) {
    return labels.actions[entry.nomLog as AdministrationAction]
  }
  return labels.types[entry.typeLog]
}

/** The log types a client may post (spec §7 POST logs/); administration entries are the server's alone. */
export const CLIENT_LOG_TYPES = LOG_TYPES.filter((type) => type !== 'ADMINISTRATION')

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
const logDay = z.string().refine((value) => {
  if (!/^\d{8}$/.test(value)) return false
  const iso = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`
  const date = new Date(`${iso}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso
}, 'validation.date')

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
