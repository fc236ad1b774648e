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
  WEBHOOK_CREATION: { fr: 'Création d’un abonnement webhook', en: 'Webhook subscription created' },
  WEBHOOK_MODIFICATION: { fr: 'Modification d’un abonnement webhook', en: 'Webhook subscription changed' },
  WEBHOOK_SUPPRESSION: { fr: 'Suppression d’un abonnement webhook', en: 'Webhook subscription deleted' },
  WEBHOOK_SECRET: { fr: 'Nouveau secret d’un abonnement webhook', en: 'Webhook subscription secret renewed' },
  WEBHOOK_RENVOI: { fr: 'Livraison webhook renvoyée', en: 'Webhook delivery sent again' },
} as const satisfies ActionLabels
