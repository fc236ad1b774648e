import type { ActionLabels } from '../action-labels'

/** The import's and export's administrative actions (`nomLog` of an ADMINISTRATION entry), each with its label in the history. */
export const BULK_ACTIONS = {
  ORGANISATION_EXPORT: { fr: 'Export de l’organisation', en: 'Organisation exported' },
  ORGANISATION_IMPORT: { fr: 'Import dans l’organisation', en: 'Import into the organisation' },
} as const satisfies ActionLabels
