import { describe, expect, it } from 'vitest'
import { BULK_ACTIONS } from '../../worker-api/contract/bulk/audit'
import { CATALOGUE_ACTIONS } from '../../worker-api/contract/catalogue/audit'
import { FEDERATION_ACTIONS } from '../../worker-api/contract/federation/audit'
import { REQUEST_ACTIONS, REVIEW_ACTIONS } from '../../worker-api/contract/governance/audit'
import { HISTORY_ACTIONS } from '../../worker-api/contract/history/audit'
import { ADMINISTRATION_ACTIONS, LOG_LABELS, logLabel } from '../../worker-api/contract/log-labels'
import { MACHINE_ACTIONS } from '../../worker-api/contract/machines/audit'
import { ORGANISATION_ACTIONS } from '../../worker-api/contract/organisation/audit'
import { SESSION_ACTIONS, SIGN_IN_ACTIONS } from '../../worker-api/contract/sign-in/audit'

/**
 * Each feature declares the actions its audit entries name, with their labels, in its own contract
 * (`contract/<feature>/audit.ts`); the history reads them all. An action two features declared would
 * silently take one of their labels.
 */
describe('the actions the features declare', () => {
  const administration = [
    ORGANISATION_ACTIONS,
    CATALOGUE_ACTIONS,
    FEDERATION_ACTIONS,
    SIGN_IN_ACTIONS,
    MACHINE_ACTIONS,
    BULK_ACTIONS,
    HISTORY_ACTIONS,
  ].flatMap((actions) => Object.keys(actions))

  it('are each declared by one feature, and all named by the history', () => {
    expect(new Set(administration).size).toBe(administration.length)
    expect([...ADMINISTRATION_ACTIONS].sort()).toEqual([...administration].sort())
  })

  it('have a label in each language, which the history shows', () => {
    for (const groups of [
      ORGANISATION_ACTIONS,
      CATALOGUE_ACTIONS,
      FEDERATION_ACTIONS,
      SIGN_IN_ACTIONS,
      MACHINE_ACTIONS,
      BULK_ACTIONS,
      HISTORY_ACTIONS,
      SESSION_ACTIONS,
      REQUEST_ACTIONS,
      REVIEW_ACTIONS,
    ]) {
      for (const label of Object.values(groups)) {
        expect(label.fr.trim()).not.toBe('')
        expect(label.en.trim()).not.toBe('')
      }
    }
    expect(logLabel('fr', { typeLog: 'ADMINISTRATION', nomLog: 'COMPTE_SERVICE_SECRET' })).toBe(
      'Nouveau secret d’un compte de service',
    )
    expect(logLabel('en', { typeLog: 'REVUE_ACCES', nomLog: 'REVUE_CLOTURE' })).toBe('Review campaign closed')
    expect(logLabel('en', { typeLog: 'DECONNEXION', nomLog: 'SESSION_FIN' })).toBe('Session ended')
    expect(LOG_LABELS.fr.actions.ORGANISATION_IMPORT).toBe('Import dans l’organisation')
  })
})
