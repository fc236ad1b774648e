import type { ActionLabels } from '../action-labels'

/** The catalogue's administrative actions (`nomLog` of an ADMINISTRATION entry): applications and function templates, each with its label in the history. */
export const CATALOGUE_ACTIONS = {
  APPLICATION_CREATION: { fr: 'Création d’une application', en: 'Application created' },
  APPLICATION_MODIFICATION: { fr: 'Modification d’une application', en: 'Application modified' },
  APPLICATION_SUPPRESSION: { fr: 'Suppression d’une application', en: 'Application deleted' },
  MODELE_FONCTIONS: { fr: 'Modèle de fonctions d’un type de structure', en: 'Function template of a structure type' },
} as const satisfies ActionLabels
