import type { Ctx } from '../../lib/types'
import { actorWith, type Caller } from '../core/actor'
import type { ProviderMetadata } from './discovery'

/** Where a provider sends the browser after its own sign-out: the portal's sign-in page. */
export const postLogoutUri = (origin: string) => `${origin}/login`

/**
 * GET rest/bd/session/fournisseur: for the caller's own session opened through a partner's provider that has an
 * `end_session_endpoint`, the provider's sign-out to send the browser to once the portal's session is over
 * (OpenID Connect RP-Initiated Logout: id_token_hint, client_id, post_logout_redirect_uri); else nulls. Read before
 * the portal's sign-out, which revokes the token that asks.
 */
export async function federatedSignOut(ctx: Ctx, caller: Caller): Promise<{ url: string | null; nom: string | null }> {
  const db = ctx.db
  const { session } = await actorWith(ctx, caller, {
    session: db
      .selectFrom('session_fournisseur as s')
      .innerJoin('fournisseur as f', 'f.id', 's.fournisseur_id')
      .select(['s.id_token', 'f.nom', 'f.client_id', 'f.metadata'])
      .where('s.family_id', '=', caller.claims.sid)
      .where((eb) =>
        eb.exists(
          db
            .selectFrom('refresh_token as r')
            .select('r.id')
            .where('r.family_id', '=', caller.claims.sid)
            .where('r.utilisateur_id', '=', caller.id),
        ),
      ),
  })
  const [row] = session
  if (!row) return { url: null, nom: null }
  const metadata = JSON.parse(row.metadata) as ProviderMetadata
  if (typeof metadata.end_session_endpoint !== 'string') return { url: null, nom: row.nom }
  const url = new URL(metadata.end_session_endpoint)
  url.searchParams.set('id_token_hint', row.id_token)
  url.searchParams.set('client_id', row.client_id)
  url.searchParams.set('post_logout_redirect_uri', postLogoutUri(ctx.request.origin))
  return { url: url.href, nom: row.nom }
}
