import type { ActionLabels } from '../action-labels'

/** The history's own administrative actions (`nomLog` of an ADMINISTRATION entry), with their labels. */
export const HISTORY_ACTIONS = {
  HISTORIQUE_EXPORT: { fr: 'Export de l’historique', en: 'History exported' },
  HISTORIQUE_ARCHIVE: { fr: 'Mois de l’historique archivé', en: 'History month archived' },
  HISTORIQUE_RECHERCHE: { fr: 'Recherche dans l’historique archivé', en: 'Archived history searched' },
} as const satisfies ActionLabels
