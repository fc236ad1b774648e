import { z } from 'zod'
import type { Language } from '../language'

/**
 * Moving an organisation in (import) and keeping it in step (export): the files' columns, the limits, the answers,
 * and each error a row can have, with how to fix it in French and English.
 */

export const IMPORT_TYPES = ['structures', 'utilisateurs'] as const
export type ImportType = (typeof IMPORT_TYPES)[number]

/** The columns of each file, in order: the header line names them, and the export writes them. */
export const IMPORT_COLUMNS = {
  structures: ['nom', 'type', 'parent'],
  utilisateurs: ['mail', 'nom', 'prenom', 'login', 'admin', 'structure', 'fonction', 'dateDebut', 'dateFin', 'actif'],
} as const satisfies Record<ImportType, readonly string[]>
export type ImportColumn = (typeof IMPORT_COLUMNS)[ImportType][number]

/** The most rows a file may hold (its header apart). */
export const IMPORT_MAX_ROWS = 100_000
/** The largest file taken, in bytes (100 000 rows of the users' longest cells fit). */
export const IMPORT_MAX_BYTES = 50 * 1024 * 1024
/** The longest header line, in bytes: a few column names; the separator is looked for within it. */
export const IMPORT_MAX_HEADER_BYTES = 64 * 1024
/**
 * The most blank lines (or lines of empty cells) a file may hold: they are no rows, but each costs as much to read as a
 * row, so a file of line feeds is refused early rather than read for an hour.
 */
export const IMPORT_MAX_BLANK_LINES = 10_000
/** The errors a preview's answer lists; the others are counted (`totalErreurs`) and in the errors file. */
export const PREVIEW_ERRORS_LISTED = 1000
/**
 * The changes of existing users a preview lists (and a kept preview's state, while APERCU); the others are counted
 * (`totalChangements`).
 */
export const PREVIEW_CHANGES_LISTED = 100

/** A lot of an import on the jobs queue (contract/jobs.ts): the lot to run next, and who imports (services/bulk/run.ts). */
export type ImportMessage = { importId: number; lot: number; auteur: number }

/** How a structure's path is written: its names from the top, each under the one before. */
export const PATH_SEPARATOR = ' / '

export const importQuery = z.object({
  type: z.enum(IMPORT_TYPES).describe('What the file holds: structures (nom;type;parent) or users with posts'),
  essai: z.enum(['true', 'false']).optional().describe('true: the preview — what the import would do, nothing written'),
  conserver: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'With essai=true: the file kept a day with its preview (answered with its `id`, state APERCU), to be imported by POST import/{id}/lancement without a second upload',
    ),
})

/** POST rest/bd/import: with `essai`, its preview; without, the import run in the background. */
export const importStartQuery = importQuery.extend({
  invitation: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: each new active user gets their invitation mail, sent at the mail provider’s pace'),
  fichier: z.string().trim().max(100).optional().describe('The file’s name, for the history (default import.csv)'),
})

/**
 * The states of an import a client sees: `APERCU`, a preview kept to be imported (`conserver=true`), then waiting,
 * running, done or stopped (`RECEPTION`, while its file is stored, reads as waiting).
 */
export const IMPORT_STATES = ['APERCU', 'EN_ATTENTE', 'EN_COURS', 'TERMINE', 'ECHEC'] as const

/** The errors an import's state lists; the others are counted and in the errors file. */
export const STATUS_ERRORS_LISTED = 100

export const rowErrorSchema = z.object({
  ligne: z.number().int().describe("The file's line number (the header is line 1)"),
  colonne: z.string().nullable().describe('The column at fault, or null for the whole row'),
  message: z.string().describe('What is wrong and how to fix it, in the caller’s language'),
})
export type RowError = z.infer<typeof rowErrorSchema>

const valueChangeSchema = z.object({ avant: z.string(), apres: z.string() })

/**
 * What a row of a users file changes of an existing user that an administrator should see before importing: their
 * names, their address, their administrator right, their state. A post added alone is no such change.
 */
export const importChangeSchema = z.object({
  ligne: z.number().int().describe("The file's line number (the header is line 1)"),
  login: z.string().describe("The user's login"),
  nom: valueChangeSchema.optional().describe('Their last name, before and after'),
  prenom: valueChangeSchema.optional().describe('Their first name, before and after'),
  mail: valueChangeSchema
    .optional()
    .describe('Their address, before and after (an active account confirms the new one by mail)'),
  admin: z.boolean().optional().describe('true: becomes an administrator; false: is one no longer'),
  actif: z.boolean().optional().describe('false: deactivated (their sessions end); true: reactivated'),
})
export type ImportChange = z.infer<typeof importChangeSchema>

const changesDescription = `The rows that rename an existing user, change their address, make them an administrator or remove them as one, deactivate or reactivate them, by line; the first ${PREVIEW_CHANGES_LISTED}`

export const importPreviewSchema = z.object({
  lignes: z.number().int().describe('Rows read (the header apart)'),
  creees: z.number().int().describe('Rows that create'),
  modifiees: z.number().int().describe('Rows that change what exists'),
  inchangees: z.number().int().describe('Rows that leave everything as it is'),
  erreurs: z.array(rowErrorSchema).describe(`The rows' errors, by line; the first ${PREVIEW_ERRORS_LISTED}`),
  totalErreurs: z.number().int().describe('How many errors in all'),
  changements: z.array(importChangeSchema).describe(changesDescription),
  totalChangements: z.number().int().describe('How many such rows in all'),
  id: z.number().int().optional().describe('With conserver=true: the kept preview'),
})
export type ImportPreview = z.infer<typeof importPreviewSchema>

export const importIdParam = z.object({ id: z.coerce.number<number>().int().positive() })

export const importStatusQuery = z.object({
  page: z.coerce
    .number<number>()
    .int()
    .positive()
    .max(100_000)
    .optional()
    .describe(`The page of errors listed (${STATUS_ERRORS_LISTED} a page, default 1)`),
})

/** POST rest/bd/import/{id}/lancement. */
export const importLaunchSchema = z.object({
  invitation: z.boolean().optional().describe('Each new active user gets their invitation mail'),
})

export const importStatusSchema = z.object({
  id: z.number().int(),
  type: z.enum(IMPORT_TYPES),
  fichier: z.string(),
  etat: z.enum(IMPORT_STATES),
  lignes: z.number().int().describe('Rows of the file'),
  traitees: z.number().int().describe('Rows done so far'),
  creees: z.number().int(),
  modifiees: z.number().int(),
  inchangees: z.number().int(),
  erreurs: z.array(rowErrorSchema).describe(`The errors so far, by line: ${STATUS_ERRORS_LISTED} a page (page)`),
  totalErreurs: z.number().int(),
  lignesEnErreur: z.number().int().describe('Rows that could not be imported'),
  changements: z
    .array(importChangeSchema)
    .describe(`A kept preview (APERCU): ${changesDescription}; empty once imported`),
  totalChangements: z.number().int().describe('A kept preview (APERCU): how many such rows in all; 0 once imported'),
  secondesRestantes: z.number().int().nullable().describe('The time left at the pace so far; null until known'),
  motif: z.string().nullable().describe('Why the import stopped (ECHEC)'),
  debut: z.string().describe('When the file was received (ISO 8601)'),
  fin: z.string().nullable().describe('When it ended (ISO 8601)'),
})
export type ImportStatus = z.infer<typeof importStatusSchema>

/** What is wrong with a row (or with the file, at line 1), with the values its message names. */
export type RowProblem = { code: RowErrorCode; colonne: string | null; valeurs?: Record<string, string | number> }

type Messages = Record<Language, (v: Record<string, string | number>) => string>

/** Each error a row may have: what is wrong and how to fix it. */
export const ROW_ERRORS = {
  FICHIER_VIDE: {
    fr: () => 'Le fichier est vide : la première ligne doit nommer les colonnes.',
    en: () => 'The file is empty: its first line must name the columns.',
  },
  PAS_DU_TEXTE: {
    fr: () =>
      'Ce fichier n’est pas un fichier texte CSV (un classeur Excel ?) : enregistrez-le au format « CSV UTF-8 » et recommencez.',
    en: () => 'This file is not a CSV text file (an Excel workbook?): save it as “CSV UTF-8” and try again.',
  },
  ENTETE_TROP_LONGUE: {
    fr: (v) =>
      `La première ligne dépasse ${v.max} Kio : elle doit nommer les colonnes. Enregistrez le fichier au format « CSV UTF-8 » et recommencez.`,
    en: (v) =>
      `The first line is longer than ${v.max} KiB: it must name the columns. Save the file as “CSV UTF-8” and try again.`,
  },
  ENTETE: {
    fr: (v) => `La première ligne doit nommer les colonnes « ${v.attendu} » (trouvé : « ${v.trouve} »).`,
    en: (v) => `The first line must name the columns “${v.attendu}” (found: “${v.trouve}”).`,
  },
  TROP_DE_LIGNES: {
    fr: (v) => `Le fichier dépasse ${Number(v.max).toLocaleString('fr-FR')} lignes : coupez-le en plusieurs fichiers.`,
    en: (v) => `The file holds more than ${Number(v.max).toLocaleString('en-GB')} rows: split it into several files.`,
  },
  LIGNES_VIDES: {
    fr: (v) =>
      `Le fichier a plus de ${Number(v.max).toLocaleString('fr-FR')} lignes vides : supprimez-les (souvent sous le tableau) et recommencez.`,
    en: (v) =>
      `The file holds more than ${Number(v.max).toLocaleString('en-GB')} blank lines: delete them (often below the table) and try again.`,
  },
  ENCODAGE: {
    fr: () =>
      'Caractères illisibles : le fichier n’est pas en UTF-8. Enregistrez-le au format « CSV UTF-8 » et recommencez.',
    en: () => 'Unreadable characters: the file is not UTF-8. Save it as “CSV UTF-8” and try again.',
  },
  GUILLEMETS: {
    fr: () => 'Guillemets mal fermés : une cellule entre guillemets doit se terminer par un guillemet.',
    en: () => 'Unbalanced quotes: a quoted cell must end with a quote.',
  },
  COLONNES: {
    fr: (v) => `La ligne a ${v.trouve} cellules au lieu de ${v.attendu} : vérifiez le séparateur et les guillemets.`,
    en: (v) => `The row has ${v.trouve} cells instead of ${v.attendu}: check the separator and the quotes.`,
  },
  REQUIS: {
    fr: (v) => `${v.colonne} est requis.`,
    en: (v) => `${v.colonne} is required.`,
  },
  LONGUEUR: {
    fr: (v) => `${v.colonne} doit avoir de 3 à 50 caractères (${v.longueur}).`,
    en: (v) => `${v.colonne} must hold 3 to 50 characters (${v.longueur}).`,
  },
  MAIL: {
    fr: (v) => `« ${v.valeur} » n’est pas une adresse mail valide d’au plus 50 caractères.`,
    en: (v) => `“${v.valeur}” is not a valid mail address of at most 50 characters.`,
  },
  BOOLEEN: {
    fr: (v) => `${v.colonne} vaut « oui » ou « non » (trouvé : « ${v.valeur} »).`,
    en: (v) => `${v.colonne} is “yes” or “no” (found: “${v.valeur}”).`,
  },
  DATE: {
    fr: (v) => `« ${v.valeur} » n’est pas une date au format jj/mm/aaaa (par exemple 31/12/2026).`,
    en: (v) => `“${v.valeur}” is not a date as dd/mm/yyyy (for example 31/12/2026).`,
  },
  DATES_ORDRE: {
    fr: () => 'dateFin est avant dateDebut : inversez-les.',
    en: () => 'dateFin is before dateDebut: swap them.',
  },
  POSTE_FINI: {
    fr: (v) => `Le poste finirait le ${v.date}, avant aujourd’hui : donnez une date de fin à venir.`,
    en: (v) => `The post would end on ${v.date}, before today: give an end date to come.`,
  },
  POSTE_INCOMPLET: {
    fr: () => 'Un poste a une structure, une fonction et ses deux dates ; laissez les quatre vides pour aucun poste.',
    en: () => 'A post has a structure, a function and both its dates; leave all four empty for no post.',
  },
  POSTE_REQUIS: {
    fr: () => 'Un nouvel utilisateur a un poste dans votre périmètre : donnez structure, fonction et dates.',
    en: () => 'A new user holds a post in your scope: give a structure, a function and the dates.',
  },
  STRUCTURE_INCONNUE: {
    fr: (v) => `Aucune structure « ${v.valeur} » : vérifiez son nom, ou importez d’abord les structures.`,
    en: (v) => `No structure “${v.valeur}”: check its name, or import the structures first.`,
  },
  STRUCTURE_CHEMIN: {
    fr: (v) => `« ${v.valeur} » ne désigne pas une structure : son chemin est « ${v.chemin} ».`,
    en: (v) => `“${v.valeur}” names no structure: its path is “${v.chemin}”.`,
  },
  HORS_PERIMETRE: {
    fr: (v) => `« ${v.valeur} » est hors de votre périmètre : seul un administrateur de cette branche peut l’importer.`,
    en: (v) => `“${v.valeur}” is outside your scope: only an administrator of that branch may import it.`,
  },
  FONCTION_INCONNUE: {
    fr: (v) => `Pas de fonction « ${v.valeur} » dans « ${v.structure} ». Ses fonctions : ${v.connues}.`,
    en: (v) => `No function “${v.valeur}” in “${v.structure}”. Its functions: ${v.connues}.`,
  },
  DOUBLON: {
    fr: (v) => `Cette adresse figure déjà ligne ${v.ligne} avec d’autres valeurs : une personne, une seule identité.`,
    en: (v) => `This address is already on line ${v.ligne} with other values: one person, one identity.`,
  },
  LIGNE_REPETEE: {
    fr: (v) => `Ligne identique à la ligne ${v.ligne} : supprimez-la.`,
    en: (v) => `The same row as line ${v.ligne}: remove it.`,
  },
  COMPTE_HORS_PERIMETRE: {
    fr: () =>
      'Un compte hors de votre périmètre porte cette adresse ou cet identifiant : un administrateur de sa branche peut le changer.',
    en: () =>
      'An account outside your scope holds this address or login: an administrator of its branch may change it.',
  },
  COMPTE_SUPPRIME: {
    fr: () => 'Le compte de cette adresse est supprimé : rétablissez-le depuis sa fiche avant de l’importer.',
    en: () => 'The account of this address is deleted: restore it from its page before importing it.',
  },
  INSCRIPTION_EN_ATTENTE: {
    fr: () => 'Cette adresse attend la validation de son inscription : traitez-la dans « Autoriser un utilisateur ».',
    en: () => 'This address awaits the approval of its registration: handle it in “Authorise a user”.',
  },
  PROPRE_COMPTE: {
    fr: () => 'Votre propre compte ne change pas par un import : un autre administrateur peut le faire.',
    en: () => 'Your own account does not change by an import: another administrator may do it.',
  },
  LOGIN_NOUVEAU: {
    fr: () => 'Le login d’un nouvel utilisateur est son adresse mail : laissez login vide ou répétez l’adresse.',
    en: () => 'A new user’s login is their mail address: leave login empty or repeat the address.',
  },
  LOGIN_FIXE: {
    fr: (v) => `Le login d’un compte existant ne change pas par un import (son login : « ${v.login} »).`,
    en: (v) => `An existing account’s login does not change by an import (its login: “${v.login}”).`,
  },
  ADRESSE_PRISE: {
    fr: (v) => `« ${v.valeur} » est déjà l’adresse ou le login d’un autre compte.`,
    en: (v) => `“${v.valeur}” is already another account’s address or login.`,
  },
  ADMIN_ETAT: {
    fr: () => 'L’état d’un administrateur ne change pas par un import : retirez d’abord son droit admin.',
    en: () => 'An administrator’s state does not change by an import: remove their admin right first.',
  },
  TYPE_INCONNU: {
    fr: (v) => `Aucun type de structure « ${v.valeur} ». Les types : ${v.connus}.`,
    en: (v) => `No structure type “${v.valeur}”. The types: ${v.connus}.`,
  },
  TYPE_PARENT: {
    fr: (v) => `Une structure de type « ${v.type} » se place sous une structure de type « ${v.attendu} ».`,
    en: (v) => `A structure of type “${v.type}” goes under a structure of type “${v.attendu}”.`,
  },
  TYPE_RACINE: {
    fr: (v) => `Le type « ${v.type} » est celui de la racine : un import n’ajoute pas de racine.`,
    en: (v) => `“${v.type}” is the root’s type: an import adds no root.`,
  },
  TYPE_ENFANTS: {
    fr: (v) => `« ${v.valeur} » garde son type : ses structures filles demandent le type « ${v.attendu} ».`,
    en: (v) => `“${v.valeur}” keeps its type: its child structures need the type “${v.attendu}”.`,
  },
  PARENT_REQUIS: {
    fr: () => 'parent est requis : le chemin ou l’id de la structure au-dessus.',
    en: () => 'parent is required: the path or id of the structure above.',
  },
  STRUCTURE_AILLEURS: {
    fr: (v) => `« ${v.valeur} » existe déjà sous « ${v.parent} » : un import ne déplace pas une structure.`,
    en: (v) => `“${v.valeur}” already exists under “${v.parent}”: an import moves no structure.`,
  },
  STRUCTURE_REPETEE: {
    fr: (v) => `La structure « ${v.valeur} » figure déjà ligne ${v.ligne}.`,
    en: (v) => `The structure “${v.valeur}” is already on line ${v.ligne}.`,
  },
  PARENT_EN_ERREUR: {
    fr: (v) => `La structure parente « ${v.valeur} » a une erreur ligne ${v.ligne} : corrigez-la d’abord.`,
    en: (v) => `The parent structure “${v.valeur}” has an error on line ${v.ligne}: fix it first.`,
  },
} satisfies Record<string, Messages>
export type RowErrorCode = keyof typeof ROW_ERRORS

/** Why an import stopped before its end (`motif`). */
export const IMPORT_FAILURES = {
  IMPORTATEUR: {
    fr: 'Import arrêté : son auteur n’est plus administrateur. Les lignes déjà traitées restent importées.',
    en: 'Import stopped: its author is no longer an administrator. The rows already done stay imported.',
  },
  LOT_EN_ECHEC: {
    fr: 'Import arrêté : une partie du fichier a échoué plusieurs fois. Les lignes déjà traitées restent importées ; réimportez le fichier pour reprendre.',
    en: 'Import stopped: a part of the file failed several times. The rows already done stay imported; import the file again to resume.',
  },
} satisfies Record<string, Record<Language, string>>
export type ImportFailure = keyof typeof IMPORT_FAILURES

/** A problem as the caller reads it. */
export function rowMessage(language: Language, problem: RowProblem): string {
  const messages: Messages = ROW_ERRORS[problem.code]
  return messages[language](problem.valeurs ?? {})
}
