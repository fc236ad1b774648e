import type { ActionLabels } from '../action-labels'

/** The organisation's administrative actions (`nomLog` of an ADMINISTRATION entry): users, their posts and registrations, structures and functions, each with its label in the history. */
export const ORGANISATION_ACTIONS = {
  UTILISATEUR_CREATION: { fr: 'Création d’un utilisateur', en: 'User created' },
  UTILISATEUR_ACTIVATION: { fr: 'Activation d’un utilisateur', en: 'User enabled' },
  UTILISATEUR_DESACTIVATION: { fr: 'Désactivation d’un utilisateur', en: 'User disabled' },
  UTILISATEUR_ADMIN: { fr: 'Droits d’administrateur donnés', en: 'Administrator rights given' },
  UTILISATEUR_ADMIN_RETRAIT: { fr: 'Droits d’administrateur retirés', en: 'Administrator rights removed' },
  UTILISATEUR_SUPPRESSION: { fr: 'Suppression d’un utilisateur', en: 'User deleted' },
  UTILISATEUR_RETABLISSEMENT: { fr: 'Rétablissement d’un utilisateur', en: 'User restored' },
  UTILISATEUR_MODIFICATION: { fr: 'Modification d’un utilisateur', en: 'User edited' },
  INVITATION_RENVOI: { fr: 'Invitation renvoyée', en: 'Invitation sent again' },
  MAIL_CHANGE: { fr: 'Changement d’adresse mail', en: 'Mail address changed' },
  MFA_REINITIALISATION: { fr: 'Second facteur réinitialisé', en: 'Second factor reset' },
  POSTE_CREATION: { fr: 'Ajout d’un poste', en: 'Post added' },
  POSTE_MODIFICATION: { fr: 'Modification de la période d’un poste', en: 'Post period changed' },
  POSTE_SUPPRESSION: { fr: 'Suppression d’un poste', en: 'Post removed' },
  STRUCTURE_CREATION: { fr: 'Création d’une structure', en: 'Structure created' },
  STRUCTURE_MODIFICATION: { fr: 'Modification d’une structure', en: 'Structure modified' },
  STRUCTURE_SUPPRESSION: { fr: 'Suppression d’une structure', en: 'Structure deleted' },
  FONCTION_CREATION: { fr: 'Création d’une fonction', en: 'Function created' },
  FONCTION_MODIFICATION: { fr: 'Renommage d’une fonction', en: 'Function renamed' },
  FONCTION_SUPPRESSION: { fr: 'Suppression d’une fonction', en: 'Function deleted' },
  INSCRIPTION: { fr: 'Inscription d’un transporteur', en: 'Carrier registration' },
  INSCRIPTION_VALIDATION: { fr: 'Inscription validée', en: 'Registration approved' },
  INSCRIPTION_RENVOI: { fr: 'Lien d’inscription renvoyé', en: 'Registration link sent again' },
  INSCRIPTION_REFUS: { fr: 'Inscription refusée', en: 'Registration refused' },
} as const satisfies ActionLabels
