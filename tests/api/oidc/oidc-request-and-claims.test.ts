import { beforeAll, describe, expect, it } from 'vitest'
import type { AuthorizationRequest } from '../../../worker-api/contract/oidc/oidc'
import { call, createOrganisation, createUser, currentPost, db, sessionFor } from '../helpers'
import { userInfoBody } from '../oauth-answers'
import {
  authorizationParams,
  authorizeAs,
  type Client,
  confidentialClient,
  exchange,
  tokensOf,
  verifiedIdToken,
} from '../oidc-flow'

/**
 * README, "OpenID Connect": PKCE `S256` is required of every client (SECURITY.md: RFC 9700), and the
 * `profile` scope brings `name`, `given_name`, `family_name`, `preferred_username` and `locale`.
 */

let client: Client

beforeAll(async () => {
  await createOrganisation()
  client = await confidentialClient('Grafana')
})

async function agent() {
  const user = await createUser({ postes: [currentPost(4, 2)] })
  return { ...user, portal: await sessionFor(user.id) }
}

describe('PKCE', () => {
  it('code_challenge_method=plain, or none (RFC 7636 then means plain), gets invalid_request back at the client and no code', async () => {
    const user = await agent()
    for (const method of ['plain', undefined]) {
      const { params, verifier } = await authorizationParams(client)
      // A plain challenge is the verifier itself: 43 characters, as an S256 one has.
      const request: AuthorizationRequest = { ...params, code_challenge: verifier }
      if (method) request.code_challenge_method = method
      else delete request.code_challenge_method
      const back = await authorizeAs(user.portal.accessToken, request)
      expect(
        [back.origin + back.pathname, back.searchParams.get('error'), back.searchParams.get('state')],
        String(method),
      ).toEqual(['https://rp.example.test/callback', 'invalid_request', params.state])
      expect(back.searchParams.has('code'), String(method)).toBe(false)
    }
    const codes = await db().selectFrom('oidc_code').select('id').where('utilisateur_id', '=', user.id).execute()
    expect(codes).toEqual([])
  })
})

describe('the profile scope', () => {
  it('gives given_name and family_name (the first name and the surname), in the ID token and from UserInfo', async () => {
    const user = await agent()
    await db()
      .updateTable('utilisateur')
      .set({ prenom: 'Léa', nom: 'Dupont-Moreau' })
      .where('id', '=', user.id)
      .execute()
    const { params, verifier } = await authorizationParams(client, { scope: 'openid profile' })
    const code = (await authorizeAs(user.portal.accessToken, params)).searchParams.get('code') as string
    const tokens = await tokensOf(await exchange(client, { code, verifier }))
    const names = { name: 'Léa Dupont-Moreau', given_name: 'Léa', family_name: 'Dupont-Moreau' }
    expect(await verifiedIdToken(tokens.id_token)).toMatchObject(names)
    const info = await call('/oidc/userinfo', { token: tokens.access_token })
    expect(await info.json()).toMatchObject(names)
  })

  it('without it, neither', async () => {
    const user = await agent()
    const { params, verifier } = await authorizationParams(client, { scope: 'openid' })
    const code = (await authorizeAs(user.portal.accessToken, params)).searchParams.get('code') as string
    const tokens = await tokensOf(await exchange(client, { code, verifier }))
    const claims = await verifiedIdToken(tokens.id_token)
    const info = await userInfoBody(await call('/oidc/userinfo', { token: tokens.access_token }))
    for (const claimed of [claims, info]) {
      expect(Object.keys(claimed)).not.toContain('given_name')
      expect(Object.keys(claimed)).not.toContain('family_name')
    }
    expect(info).toEqual({ sub: String(user.id) })
  })
})
