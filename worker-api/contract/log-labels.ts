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
  'UTILISATEUR_MODIFICATION',
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
  'APPLICATION_CREATION',
  'APPLICATION_MODIFICATION',
  'APPLICATION_SUPPRESSION',
  'FONCTION_CREATION',
  'FONCTION_MODIFICATION',
  'FONCTION_SUPPRESSION',
  'POSTE_MODIFICATION',
  'MODELE_FONCTIONS',
  'MFA_TOTP_AJOUT',
  'MFA_TOTP_RETRAIT',
  'MFA_CLE_AJOUT',
  'MFA_CLE_RETRAIT',
  'MFA_CODES_SECOURS',
  'MFA_REINITIALISATION',
  'PARAMETRES_SECURITE',
  'UTILISATEUR_SESSIONS_FIN',
  'COMPTE_SERVICE_CREATION',
  'COMPTE_SERVICE_SUPPRESSION',
  'COMPTE_SERVICE_SECRET',
  'COMPTE_SERVICE_RESPONSABLE',
  'COMPTE_SERVICE_MODIFICATION',
  'ORGANISATION_EXPORT',
  'ORGANISATION_IMPORT',
] as const
export type AdministrationAction = (typeof ADMINISTRATION_ACTIONS)[number]

/**
 * The sign-outs a user makes from the list of their sessions (`nomLog` of a DECONNEXION entry): one
 * session ended from another, or every other one at once. A plain sign-out is named DECONNEXION.
 */
export const SESSION_ACTIONS = ['SESSION_FIN', 'SESSIONS_AUTRES_FIN'] as const
export type SessionAction = (typeof SESSION_ACTIONS)[number]

/**
 * The steps of an access request (`nomLog` of a DEMANDE_ACCES entry): asked by the user, withdrawn by them, granted or
 * refused by an administrator, expired undecided.
 */
export const REQUEST_ACTIONS = [
  'DEMANDE_CREATION',
  'DEMANDE_RETRAIT',
  'DEMANDE_ACCORD',
  'DEMANDE_REFUS',
  'DEMANDE_EXPIRATION',
] as const
export type RequestAction = (typeof REQUEST_ACTIONS)[number]

/**
 * The steps of an access review (`nomLog` of a REVUE_ACCES entry): a campaign opened, a post confirmed or ended by a
 * reviewer, the posts nobody reviewed handled at the due date, the campaign closed.
 */
export const REVIEW_ACTIONS = [
  'REVUE_OUVERTURE',
  'REVUE_CONFIRMATION',
  'REVUE_FIN_POSTE',
  'REVUE_ECHEANCE',
  'REVUE_CLOTURE',
] as const
export type ReviewAction = (typeof REVIEW_ACTIONS)[number]

/** The server's own types: no client may post an entry of these (POST logs/). */
export const SERVER_LOG_TYPES: readonly LogType[] = ['ADMINISTRATION', 'DEMANDE_ACCES', 'REVUE_ACCES']

type Labels = {
  types: Record<LogType, string>
  actions: Record<AdministrationAction, string>
  sessions: Record<SessionAction, string>
  requests: Record<RequestAction, string>
  reviews: Record<ReviewAction, string>
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
    actions: {
      UTILISATEUR_CREATION: 'Création d’un utilisateur',
      UTILISATEUR_ACTIVATION: 'Activation d’un utilisateur',
      UTILISATEUR_DESACTIVATION: 'Désactivation d’un utilisateur',
      UTILISATEUR_ADMIN: 'Droits d’administrateur donnés',
      UTILISATEUR_ADMIN_RETRAIT: 'Droits d’administrateur retirés',
      UTILISATEUR_SUPPRESSION: 'Suppression d’un utilisateur',
      UTILISATEUR_RETABLISSEMENT: 'Rétablissement d’un utilisateur',
      UTILISATEUR_MODIFICATION: 'Modification d’un utilisateur',
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
      APPLICATION_CREATION: 'Création d’une application',
      APPLICATION_MODIFICATION: 'Modification d’une application',
      APPLICATION_SUPPRESSION: 'Suppression d’une application',
      FONCTION_CREATION: 'Création d’une fonction',
      FONCTION_MODIFICATION: 'Renommage d’une fonction',
      FONCTION_SUPPRESSION: 'Suppression d’une fonction',
      POSTE_MODIFICATION: 'Modification de la période d’un poste',
      MODELE_FONCTIONS: 'Modèle de fonctions d’un type de structure',
      MFA_TOTP_AJOUT: 'Application d’authentification ajoutée',
      MFA_TOTP_RETRAIT: 'Application d’authentification retirée',
      MFA_CLE_AJOUT: 'Clé d’accès ajoutée',
      MFA_CLE_RETRAIT: 'Clé d’accès retirée',
      MFA_CODES_SECOURS: 'Nouveaux codes de secours',
      MFA_REINITIALISATION: 'Second facteur réinitialisé',
      PARAMETRES_SECURITE: 'Paramètres de sécurité modifiés',
      UTILISATEUR_SESSIONS_FIN: 'Fermeture des sessions d’un utilisateur',
      COMPTE_SERVICE_CREATION: 'Création d’un compte de service',
      COMPTE_SERVICE_SUPPRESSION: 'Suppression d’un compte de service',
      COMPTE_SERVICE_SECRET: 'Nouveau secret d’un compte de service',
      COMPTE_SERVICE_RESPONSABLE: 'Compte de service confié à un autre administrateur',
      COMPTE_SERVICE_MODIFICATION: 'Modification d’un compte de service',
      ORGANISATION_EXPORT: 'Export de l’organisation',
      ORGANISATION_IMPORT: 'Import dans l’organisation',
    },
    sessions: {
      SESSION_FIN: 'Fermeture d’une session',
      SESSIONS_AUTRES_FIN: 'Fermeture des autres sessions',
    },
    requests: {
      DEMANDE_CREATION: 'Accès demandé',
      DEMANDE_RETRAIT: 'Demande d’accès retirée',
      DEMANDE_ACCORD: 'Demande d’accès accordée',
      DEMANDE_REFUS: 'Demande d’accès refusée',
      DEMANDE_EXPIRATION: 'Demande d’accès expirée',
    },
    reviews: {
      REVUE_OUVERTURE: 'Campagne de revue ouverte',
      REVUE_CONFIRMATION: 'Poste confirmé à la revue',
      REVUE_FIN_POSTE: 'Poste terminé à la revue',
      REVUE_ECHEANCE: 'Échéance d’une campagne de revue',
      REVUE_CLOTURE: 'Campagne de revue clôturée',
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
      DEMANDE_ACCES: 'Access request',
      REVUE_ACCES: 'Access review',
    },
    actions: {
      UTILISATEUR_CREATION: 'User created',
      UTILISATEUR_ACTIVATION: 'User enabled',
      UTILISATEUR_DESACTIVATION: 'User disabled',
      UTILISATEUR_ADMIN: 'Administrator rights given',
      UTILISATEUR_ADMIN_RETRAIT: 'Administrator rights removed',
      UTILISATEUR_SUPPRESSION: 'User deleted',
      UTILISATEUR_RETABLISSEMENT: 'User restored',
      UTILISATEUR_MODIFICATION: 'User edited',
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
      APPLICATION_CREATION: 'Application created',
      APPLICATION_MODIFICATION: 'Application modified',
      APPLICATION_SUPPRESSION: 'Application deleted',
      FONCTION_CREATION: 'Function created',
      FONCTION_MODIFICATION: 'Function renamed',
      FONCTION_SUPPRESSION: 'Function deleted',
      POSTE_MODIFICATION: 'Post period changed',
      MODELE_FONCTIONS: 'Function template of a structure type',
      MFA_TOTP_AJOUT: 'Authenticator app added',
      MFA_TOTP_RETRAIT: 'Authenticator app removed',
      MFA_CLE_AJOUT: 'Passkey added',
      MFA_CLE_RETRAIT: 'Passkey removed',
      MFA_CODES_SECOURS: 'New recovery codes',
      MFA_REINITIALISATION: 'Second factor reset',
      PARAMETRES_SECURITE: 'Security settings changed',
      UTILISATEUR_SESSIONS_FIN: 'User’s sessions ended',
      COMPTE_SERVICE_CREATION: 'Service account created',
      COMPTE_SERVICE_SUPPRESSION: 'Service account deleted',
      COMPTE_SERVICE_SECRET: 'Service account secret renewed',
      COMPTE_SERVICE_RESPONSABLE: 'Service account handed to another administrator',
      COMPTE_SERVICE_MODIFICATION: 'Service account changed',
      ORGANISATION_EXPORT: 'Organisation exported',
      ORGANISATION_IMPORT: 'Import into the organisation',
    },
    sessions: {
      SESSION_FIN: 'Session ended',
      SESSIONS_AUTRES_FIN: 'Other sessions ended',
    },
    requests: {
      DEMANDE_CREATION: 'Access requested',
      DEMANDE_RETRAIT: 'Access request withdrawn',
      DEMANDE_ACCORD: 'Access request granted',
      DEMANDE_REFUS: 'Access request refused',
      DEMANDE_EXPIRATION: 'Access request expired',
    },
    reviews: {
      REVUE_OUVERTURE: 'Review campaign opened',
      REVUE_CONFIRMATION: 'Post confirmed in a review',
      REVUE_FIN_POSTE: 'Post ended in a review',
      REVUE_ECHEANCE: 'Review campaign due date',
      REVUE_CLOTURE: 'Review campaign closed',
    },
  },
}

/**
 * The label of an entry: its administrative action's, its sign-out's from the list of sessions, or its access request's
 * or review's step, when it names a known one; else its type's.
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
  return labels.types[entry.typeLog]
}
