import type { env } from 'cloudflare:test'
import { decodeProtectedHeader } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import { browserCookieOf, call, createOrganisation, createUser, currentPost, post, sessionFor } from '../helpers'
import { jwksBody } from '../oauth-answers'
import { type Client, confidentialClient, oidcSession } from '../oidc-flow'
import { visit } from '../visit'

/**
 * SECURITY.md, "Rotating the OpenID Connect key": the next key is published first
 * (`OIDC_SIGNING_KEY_NEXT`), then becomes `OIDC_SIGNING_KEY` and the former one goes; "an
 * `id_token_hint` signed by a key no longer published is refused at logout (the page says so; nothing
 * is ended)".
 */

/** The key the rotation moves to (the tests' configuration signs with another). */
const NEXT_KEY =
  '{"kty":"EC","x":"2AS_Kukw6QCT9oR2Yq9_W81LGdtuWUnmhH1pj7B7U2g","y":"7bIBPOV7VGsurm7Kybrjtn-l7-KTMrc1CK5j_FKigFw","crv":"P-256","d":"4mlRGuYBjpAcO4x7lxqKGDEYJlTL8sTNQx7J86dVEL0"}'

/** During the rotation: the current key signs, the next one is published beside it. */
const announced = { OIDC_SIGNING_KEY_NEXT: NEXT_KEY }
/** After it: the next key signs, the former one is no longer published. */
const rotated = { OIDC_SIGNING_KEY: NEXT_KEY, OIDC_SIGNING_KEY_NEXT: undefined }

let client: Client

beforeAll(async () => {
  await createOrganisation()
  client = await confidentialClient('Grafana')
})

/** A page of the Worker, served with the keys of `keys`. */
async function page(path: string, headers: Record<string, string>, keys: Partial<typeof env>) {
  const response = await visit(path, { headers }, keys)
  return { status: response.status, body: await response.text() }
}

const publishedKids = async (keys: Partial<typeof env>) =>
  (await jwksBody(await call('/oidc/jwks', { env: keys }))).keys.map((k) => k.kid)

describe('an ID token hint after a key rotation', () => {
  it('is refused at logout once its key is no longer published: the page says so and the portal session lives on', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const portal = await sessionFor(user.id)
    const { id_token: hint } = await oidcSession(portal.accessToken, client)
    const { kid } = decodeProtectedHeader(hint)
    const logoutTarget = (keys: Partial<typeof env>) =>
      post('/rest/public/bd/oidc/logout', { id_token_hint: hint }, { env: keys })

    // While the next key is announced, the hint's key is still published and the hint still names its user.
    expect(await publishedKids(announced)).toContain(kid)
    const during = await okBody(
      api(undefined, announced).rest.public.bd.oidc.logout.$post({ json: { id_token_hint: hint } }),
    )
    expect(during.sub).toBe(String(user.id))

    // Rotated: the hint's key is gone from the JWKS, and the hint is refused.
    expect(await publishedKids(rotated)).not.toContain(kid)
    expect((await logoutTarget(rotated)).status).toBe(400)
    const cookie = await browserCookieOf({ ...user, ...portal })
    const refused = await page(`/oidc/logout?id_token_hint=${hint}`, { Cookie: cookie }, rotated)
    expect(refused.status).toBe(400)
    expect(refused.body).toContain('La demande de déconnexion envoyée par l&#x27;application est invalide')
    expect((await call('/rest/bd/session', { token: portal.accessToken })).status).toBe(200)
  })
})
