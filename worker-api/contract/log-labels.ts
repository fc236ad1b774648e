import { labelsIn } from './action-labels'
import { BULK_ACTIONS } from './bulk/audit'
import { CATALOGUE_ACTIONS } from './catalogue/audit'
import { FEDERATION_ACTIONS } from './federation/audit'
import { REQUEST_ACTIONS as REQUEST_STEPS, REVIEW_ACTIONS as REVIEW_STEPS } from './governance/audit'
import { HISTORY_ACTIONS } from './history/audit'
import { MACHINE_ACTIONS } from './machines/audit'
import { DEVICE_ACTIONS as DEVICE_STEPS } from './oidc/audit'
import { ORGANISATION_ACTIONS } from './organisation/audit'
import { SESSION_ACTIONS as SESSION_ENDS, SIGN_IN_ACTIONS } from './sign-in/audit'

export { fromFormDate } from './dates'

// The history's labels apart from its schemas: the screen takes them without zod in its bundle.

/** Spec §9: the types of the history's entries. */
export const LOG_TYPES = [
  'CONNEXION',
  'DECONNEXION',
  'APPLICATION',
  'APPLI_YARD',
  'APPLI_PESAGE',
  'APPLI_MODRDV',
  'ADMINISTRATION',
  'DEMANDE_ACCES',
  'REVUE_ACCES',
] as const
export type LogType = (typeof LOG_TYPES)[number]

/**
 * The actions an administrator's entry may name (`nomLog` of an ADMINISTRATION entry, DESIGN §8): those each feature
 * declares with their labels in its own contract (`contract/<feature>/audit.ts`). The history shows and searches the
 * label, not the code.
 */
const ADMINISTRATION = {
  ...ORGANISATION_ACTIONS,
  ...CATALOGUE_ACTIONS,
  ...FEDERATION_ACTIONS,
  ...SIGN_IN_ACTIONS,
  ...MACHINE_ACTIONS,
  ...BULK_ACTIONS,
  ...HISTORY_ACTIONS,
}
export type AdministrationAction = keyof typeof ADMINISTRATION
export const ADMINISTRATION_ACTIONS = Object.keys(ADMINISTRATION) as AdministrationAction[]

/** The sign-outs from the list of sessions (`nomLog` of a DECONNEXION entry): contract/sign-in/audit.ts. */
export type SessionAction = keyof typeof SESSION_ENDS
export const SESSION_ACTIONS = Object.keys(SESSION_ENDS) as SessionAction[]

/** The steps of an access request (`nomLog` of a DEMANDE_ACCES entry): contract/governance/audit.ts. */
export type RequestAction = keyof typeof REQUEST_STEPS
export const REQUEST_ACTIONS = Object.keys(REQUEST_STEPS) as RequestAction[]

/** The steps of an access review (`nomLog` of a REVUE_ACCES entry): contract/governance/audit.ts. */
export type ReviewAction = keyof typeof REVIEW_STEPS
export const REVIEW_ACTIONS = Object.keys(REVIEW_STEPS) as ReviewAction[]

/** The steps of a device's sign-in (`nomLog` of a CONNEXION entry): contract/oidc/audit.ts. */
export type DeviceAction = keyof typeof DEVICE_STEPS
export const DEVICE_ACTIONS = Object.keys(DEVICE_STEPS) as DeviceAction[]

/** The server's own types: no client may post an entry of these (POST logs/). */
export const SERVER_LOG_TYPES: readonly LogType[] = ['ADMINISTRATION', 'DEMANDE_ACCES', 'REVUE_ACCES']

type Labels = {
  types: Record<LogType, string>
  actions: Record<AdministrationAction, string>
  sessions: Record<SessionAction, string>
  requests: Record<RequestAction, string>
  reviews: Record<ReviewAction, string>
  devices: Record<DeviceAction, string>
}

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
      DEMANDE_ACCES: 'Demande d’accès',
      REVUE_ACCES: 'Revue des accès',
    },
    actions: labelsIn('fr', ADMINISTRATION),
    sessions: labelsIn('fr', SESSION_ENDS),
    requests: labelsIn('fr', REQUEST_STEPS),
    reviews: labelsIn('fr', REVIEW_STEPS),
    devices: labelsIn('fr', DEVICE_STEPS),
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
      DEMANDE_ACCES: 'Access request',
      REVUE_ACCES: 'Access review',
    },
    actions: labelsIn('en', ADMINISTRATION),
    sessions: labelsIn('en', SESSION_ENDS),
    requests: labelsIn('en', REQUEST_STEPS),
    reviews: labelsIn('en', REVIEW_STEPS),
    devices: labelsIn('en', DEVICE_STEPS),
  },
}

/**
 * The label of an entry: its administrative action's, its sign-out's from the list of sessions, its access request's
 * or review's step, or its device sign-in's, when it names a known one; else its type's.
 */
export function logLabel(language: 'fr' | 'en', entry: { typeLog: LogType; nomLog: string }): string {
  const labels = LOG_LABELS[language]
  if (entry.typeLog === 'ADMINISTRATION' && (ADMINISTRATION_ACTIONS as readonly string[]).includes(entry.nomLog)) {
    return labels.actions[entry.nomLog as AdministrationAction]
  }
  if (entry.typeLog === 'DECONNEXION' && (SESSION_ACTIONS as readonly string[]).includes(entry.nomLog)) {
    return labels.sessions[entry.nomLog as SessionAction]
  }
  if (entry.typeLog === 'DEMANDE_ACCES' && (REQUEST_ACTIONS as readonly string[]).includes(entry.nomLog)) {
    return labels.requests[entry.nomLog as RequestAction]
  }
  if (entry.typeLog === 'REVUE_ACCES' && (REVIEW_ACTIONS as readonly string[]).includes(entry.nomLog)) {
    return labels.reviews[entry.nomLog as ReviewAction]
  }
  if (entry.typeLog === 'CONNEXION' && (DEVICE_ACTIONS as readonly string[]).includes(entry.nomLog)) {
    return labels.devices[entry.nomLog as DeviceAction]
  }
  return labels.types[entry.typeLog]
}
