import type { ActionLabels } from '../action-labels'

/** The second factors' and sessions' administrative actions (`nomLog` of an ADMINISTRATION entry), each with its label in the history. */
export const SIGN_IN_ACTIONS = {
  MFA_TOTP_AJOUT: { fr: 'Application d’authentification ajoutée', en: 'Authenticator app added' },
  MFA_TOTP_RETRAIT: { fr: 'Application d’authentification retirée', en: 'Authenticator app removed' },
  MFA_CLE_AJOUT: { fr: 'Clé d’accès ajoutée', en: 'Passkey added' },
  MFA_CLE_RETRAIT: { fr: 'Clé d’accès retirée', en: 'Passkey removed' },
  MFA_CODES_SECOURS: { fr: 'Nouveaux codes de secours', en: 'New recovery codes' },
  PARAMETRES_SECURITE: { fr: 'Paramètres de sécurité modifiés', en: 'Security settings changed' },
  UTILISATEUR_SESSIONS_FIN: { fr: 'Fermeture des sessions d’un utilisateur', en: 'User’s sessions ended' },
} as const satisfies ActionLabels

/** The sign-outs a user makes from the list of their sessions (`nomLog` of a DECONNEXION entry): one session ended from another, or every other one at once. A plain sign-out is named DECONNEXION. */
export const SESSION_ACTIONS = {
  SESSION_FIN: { fr: 'Fermeture d’une session', en: 'Session ended' },
  SESSIONS_AUTRES_FIN: { fr: 'Fermeture des autres sessions', en: 'Other sessions ended' },
} as const satisfies ActionLabels
