import type { ActionLabels } from '../action-labels'

/** The identity providers' administrative actions (`nomLog` of an ADMINISTRATION entry), each with its label in the history. */
export const FEDERATION_ACTIONS = {
  FOURNISSEUR_CREATION: { fr: 'Création d’un fournisseur d’identité', en: 'Identity provider created' },
  FOURNISSEUR_MODIFICATION: { fr: 'Modification d’un fournisseur d’identité', en: 'Identity provider modified' },
  FOURNISSEUR_SUPPRESSION: { fr: 'Suppression d’un fournisseur d’identité', en: 'Identity provider deleted' },
  FOURNISSEUR_LIEN: { fr: 'Compte lié à un fournisseur d’identité', en: 'Account linked to an identity provider' },
  FOURNISSEUR_LIEN_RETRAIT: {
    fr: 'Lien à un fournisseur d’identité retiré',
    en: 'Link to an identity provider removed',
  },
} as const satisfies ActionLabels
