import type { ActionLabels } from '../action-labels'

/** The steps of an access request (`nomLog` of a DEMANDE_ACCES entry): asked by the user, withdrawn by them, granted or refused by an administrator, expired undecided. */
export const REQUEST_ACTIONS = {
  DEMANDE_CREATION: { fr: 'Accès demandé', en: 'Access requested' },
  DEMANDE_RETRAIT: { fr: 'Demande d’accès retirée', en: 'Access request withdrawn' },
  DEMANDE_ACCORD: { fr: 'Demande d’accès accordée', en: 'Access request granted' },
  DEMANDE_REFUS: { fr: 'Demande d’accès refusée', en: 'Access request refused' },
  DEMANDE_EXPIRATION: { fr: 'Demande d’accès expirée', en: 'Access request expired' },
} as const satisfies ActionLabels

/** The steps of an access review (`nomLog` of a REVUE_ACCES entry): a campaign opened, a post confirmed or ended by a reviewer, the posts nobody reviewed handled at the due date, the campaign closed. */
export const REVIEW_ACTIONS = {
  REVUE_OUVERTURE: { fr: 'Campagne de revue ouverte', en: 'Review campaign opened' },
  REVUE_CONFIRMATION: { fr: 'Poste confirmé à la revue', en: 'Post confirmed in a review' },
  REVUE_FIN_POSTE: { fr: 'Poste terminé à la revue', en: 'Post ended in a review' },
  REVUE_ECHEANCE: { fr: 'Échéance d’une campagne de revue', en: 'Review campaign due date' },
  REVUE_CLOTURE: { fr: 'Campagne de revue clôturée', en: 'Review campaign closed' },
} as const satisfies ActionLabels
