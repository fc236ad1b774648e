import type { ActionLabels } from '../action-labels'

/** The service accounts' administrative actions (`nomLog` of an ADMINISTRATION entry), each with its label in the history. */
export const MACHINE_ACTIONS = {
  COMPTE_SERVICE_CREATION: { fr: 'Création d’un compte de service', en: 'Service account created' },
  COMPTE_SERVICE_SUPPRESSION: { fr: 'Suppression d’un compte de service', en: 'Service account deleted' },
  COMPTE_SERVICE_SECRET: { fr: 'Nouveau secret d’un compte de service', en: 'Service account secret renewed' },
  COMPTE_SERVICE_RESPONSABLE: {
    fr: 'Compte de service confié à un autre administrateur',
    en: 'Service account handed to another administrator',
  },
  COMPTE_SERVICE_MODIFICATION: { fr: 'Modification d’un compte de service', en: 'Service account changed' },
} as const satisfies ActionLabels
