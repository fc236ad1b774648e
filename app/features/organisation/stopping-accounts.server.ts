import type { Auth } from '~/lib/auth.server'
import { STOPPING_SHOWN, type StoppingAccounts } from './stopping-accounts'

/**
 * The working service accounts of the admin's scope that act for the user `userId` (GET rest/bd/compteService
 * ?responsable=&suspendu=false, one page), or with `post` those that ending that post of theirs stops (`sansPoste`):
 * null when the list cannot be read, so that a confirmation still asks.
 */
export async function stoppingAccounts(auth: Auth, userId: number, post?: number): Promise<StoppingAccounts | null> {
  const result = await auth.settle(
    auth.api.rest.bd.compteService.$get({
      query: {
        responsable: userId,
        ...(post === undefined ? { suspendu: 'false' as const } : { sansPoste: post }),
        page: 1,
        taille: STOPPING_SHOWN,
      },
    }),
  )
  if (!result.ok) return null
  return {
    accounts: result.data.map(({ id, nom, structure }) => ({ id, nom, structure })),
    total: result.total ?? result.data.length,
  }
}
