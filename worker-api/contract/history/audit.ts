import type { ActionLabels } from '../action-labels'

/** The history's own administrative action (`nomLog` of an ADMINISTRATION entry), with its label. */
export const HISTORY_ACTIONS = {
  HISTORIQUE_EXPORT: { fr: 'Export de l’historique', en: 'History exported' },
} as const satisfies ActionLabels
