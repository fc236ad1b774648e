import type { ActionLabels } from '../action-labels'

/** The steps of a device's sign-in in the history (`nomLog` of a CONNEXION entry), each with its label. */
export const DEVICE_ACTIONS = {
  APPAREIL_DEMANDE: { fr: 'Connexion d’un appareil demandée', en: 'Device sign-in requested' },
  APPAREIL_APPROBATION: { fr: 'Appareil approuvé', en: 'Device approved' },
  APPAREIL_REFUS: { fr: 'Appareil refusé', en: 'Device refused' },
} as const satisfies ActionLabels
export type DeviceAction = keyof typeof DEVICE_ACTIONS
