import type { ServiceAccount } from '../../../worker-api/contract/machines/service-accounts'

/**
 * The service accounts that act for an administrator and work today: what demoting them, ending a post of theirs
 * or deleting them stops (README, service accounts). Read on the confirmation step only, never with the page.
 */
export type StoppingAccounts = {
  accounts: Pick<ServiceAccount, 'id' | 'nom' | 'structure'>[]
  /** How many there are, the first `STOPPING_SHOWN` named. */
  total: number
}

/** How many of them a confirmation names; the others are counted, and listed on the service accounts' page. */
export const STOPPING_SHOWN = 10

/** The service accounts' page, showing those acting for one administrator: where they are handed over. */
export const accountsActingFor = (userId: number) => `/pages/admin/comptesService?responsable=${userId}`

/** What a demotion answers before it is done: the service accounts it would stop, to confirm it. */
export type DemotionShown = { stopping: StoppingAccounts }
