import { createServer } from 'node:http'
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose'
import Provider from 'oidc-provider'

/**
 * A partner's identity provider for the tests: panva's `oidc-provider` (OpenID Certified), started on a free port of
 * this machine with two clients of the portal (a client secret, and `private_key_jwt` with the portal's key) and the
 * accounts a test gives it. Its sign-in page is a one-field form (the account's `sub`), so that a test — a fetch or a
 * browser — signs in as whom it needs; consent is given with the sign-in.
 *
 * `unref`: the server does not keep the process alive (started by a test runner's configuration).
 *
 * `/test/...` is this fixture's own control, never a provider's: `PUT /test/accounts/{sub}` sets an account's claims,
 * `POST /test/next-token` arms the next token response to be tampered with (`{ "attack": "unsigned" | "foreign-key" |
 * "audience" | "nonce" | "issuer" | "expired" }`), as a man in the middle or a rogue provider would.
 */

export const UPSTREAM_CLIENT_SECRET = 'secret-du-portail-chez-le-fournisseur-de-test'

/**
 * `codeSeconds` and `unbounded`: how long an authorization code lives, and a storage that keeps every code until it
 * expires (oidc-provider's own keeps its last 1000 entries), for a benchmark that prepares thousands of answers ahead.
 * @param {{ redirectUris: string[], postLogoutRedirectUris?: string[], portalJwks: { keys: object[] }, unref?: boolean, codeSeconds?: number, unbounded?: boolean }} options
 */
export async function startUpstreamProvider({
  redirectUris,
  postLogoutRedirectUris = [],
  portalJwks,
  unref = false,
  codeSeconds = 60,
  unbounded = false,
}) {
  const accounts = new Map()
  let armed = null
  const attacker = await generateKeyPair('RS256')
  // The provider's own signing key, known here so that an attack can sign exactly as the provider would.
  const own = await generateKeyPair('RS256', { extractable: true })
  const ownJwk = { ...(await exportJWK(own.privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' }
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  // In a test runner's own process, the provider lives as long as the run and never holds it open.
  if (unref) server.unref()
  const issuer = `http://127.0.0.1:${server.address().port}`

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'portail',
        client_secret: UPSTREAM_CLIENT_SECRET,
        redirect_uris: redirectUris,
        post_logout_redirect_uris: postLogoutRedirectUris,
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: 'portail-jwt',
        redirect_uris: redirectUris,
        post_logout_redirect_uris: postLogoutRedirectUris,
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: portalJwks,
      },
    ],
    jwks: { keys: [ownJwk] },
    clientDefaults: { id_token_signed_response_alg: 'RS256' },
    claims: {
      acr: null,
      amr: null,
      auth_time: null,
      sid: null,
      // amr and acr in every ID token, as Entra ID gives them.
      openid: ['sub', 'amr', 'acr'],
      email: ['email', 'email_verified'],
      profile: ['family_name', 'given_name', 'name'],
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.body = `<!doctype html><html lang="fr"><head><title>Déconnexion</title></head><body>${form}<button form="op.logoutForm" name="logout" value="yes">Se déconnecter du fournisseur</button></body></html>`
        },
      },
    },
    pkce: { required: () => true },
    // The claims of the scopes in the ID token, as Entra ID and Google give them.
    conformIdTokenClaims: false,
    findAccount: async (_ctx, sub) => {
      const account = accounts.get(sub)
      if (!account) return undefined
      return { accountId: sub, claims: async () => ({ sub, ...account.claims }) }
    },
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId)
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['upstream-provider-tests-only'] },
    ...(unbounded ? { adapter: unboundedAdapter() } : {}),
    ttl: {
      Session: 3600,
      Interaction: 600,
      Grant: 3600,
      IdToken: 300,
      AccessToken: 300,
      AuthorizationCode: codeSeconds,
    },
  })
  provider.proxy = false

  // A token answer tampered with, once, when a test armed it.
  provider.use(async (ctx, next) => {
    await next()
    if (ctx.path !== '/token' || !armed || ctx.status !== 200 || !ctx.body?.id_token) return
    const attack = armed
    armed = null
    ctx.body = { ...ctx.body, id_token: await tamper(ctx.body.id_token, attack, { own, attacker }, issuer) }
  })

  const callback = provider.callback()
  server.on('request', async (req, res) => {
    try {
      const url = new URL(req.url, issuer)
      if (url.pathname.startsWith('/test/')) return await control(req, res, url)
      if (url.pathname.startsWith('/interaction/')) return await interaction(req, res, url)
      return callback(req, res)
    } catch (error) {
      res.statusCode = 500
      res.end(String(error))
    }
  })

  async function control(req, res, url) {
    const body = JSON.parse((await readBody(req)) || '{}')
    const account = url.pathname.match(/^\/test\/accounts\/([^/]+)$/)
    if (req.method === 'PUT' && account) {
      accounts.set(decodeURIComponent(account[1]), { claims: body })
      res.statusCode = 204
      return res.end()
    }
    if (req.method === 'POST' && url.pathname === '/test/next-token') {
      armed = body.attack
      res.statusCode = 204
      return res.end()
    }
    res.statusCode = 404
    res.end()
  }

  async function interaction(req, res, url) {
    const details = await provider.interactionDetails(req, res)
    if (req.method === 'GET') {
      res.setHeader('content-type', 'text/html; charset=utf-8')
      return res.end(`<!doctype html><html lang="fr"><head><title>Fournisseur de test</title></head><body><main>
<h1>Fournisseur d'identité de test</h1>
<form method="post" action="${url.pathname}"><label for="sub">Compte</label>
<input id="sub" name="sub" autocomplete="off"><label for="amr">Facteurs</label><input id="amr" name="amr" value="pwd">
<button type="submit">Se connecter</button></form></main></body></html>`)
    }
    const form = new URLSearchParams(await readBody(req))
    const sub = form.get('sub') ?? ''
    if (!accounts.has(sub)) {
      return provider.interactionFinished(req, res, { error: 'access_denied' }, { mergeWithLastSubmission: false })
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: sub, clientId: details.params.client_id })
    grant.addOIDCScope(String(details.params.scope ?? 'openid'))
    const grantId = await grant.save()
    const amr = (form.get('amr') || 'pwd').split(/\s+/).filter(Boolean)
    return provider.interactionFinished(
      req,
      res,
      { login: { accountId: sub, amr, acr: amr.includes('mfa') ? 'mfa' : 'pwd' }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    )
  }

  return {
    issuer,
    provider,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

/** oidc-provider's storage in a Map with no bound on its size; an entry is forgotten when it expires. */
function unboundedAdapter() {
  const entries = new Map()
  const index = new Map()
  return class UnboundedAdapter {
    constructor(model) {
      this.model = model
    }
    key(id) {
      return `${this.model}:${id}`
    }
    async upsert(id, payload, expiresIn) {
      entries.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity })
      if (payload.uid) index.set(`${this.model}:uid:${payload.uid}`, id)
      if (payload.userCode) index.set(`${this.model}:userCode:${payload.userCode}`, id)
      if (payload.grantId) {
        const members = index.get(`grant:${payload.grantId}`) ?? new Set()
        index.set(`grant:${payload.grantId}`, members.add(this.key(id)))
      }
    }
    async find(id) {
      const entry = entries.get(this.key(id))
      if (!entry || entry.expiresAt <= Date.now()) {
        entries.delete(this.key(id))
        return undefined
      }
      return entry.payload
    }
    async findByUid(uid) {
      const id = index.get(`${this.model}:uid:${uid}`)
      return id ? this.find(id) : undefined
    }
    async findByUserCode(userCode) {
      const id = index.get(`${this.model}:userCode:${userCode}`)
      return id ? this.find(id) : undefined
    }
    async consume(id) {
      const entry = entries.get(this.key(id))
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000)
    }
    async destroy(id) {
      entries.delete(this.key(id))
    }
    async revokeByGrantId(grantId) {
      for (const key of index.get(`grant:${grantId}`) ?? []) entries.delete(key)
      index.delete(`grant:${grantId}`)
    }
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => {
      text += chunk
    })
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })
}

/** The ID token an attack makes of the genuine one. */
async function tamper(idToken, attack, keys, issuer) {
  const claims = decodeJwt(idToken)
  const header = decodeProtectedHeader(idToken)
  const now = Math.floor(Date.now() / 1000)
  const changed = {
    unsigned: claims,
    'foreign-key': claims,
    audience: { ...claims, aud: 'another-client' },
    nonce: { ...claims, nonce: 'another-nonce' },
    issuer: { ...claims, iss: `${issuer}/another` },
    expired: { ...claims, iat: now - 7200, exp: now - 3600 },
  }[attack]
  if (!changed) throw new Error(`Unknown attack ${attack}`)
  if (attack === 'unsigned') {
    const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url')
    return `${part({ alg: 'none', typ: 'JWT' })}.${part(changed)}.`
  }
  // A foreign key signs under the kid of the provider's own; every other attack is signed by the provider's key.
  const key = attack === 'foreign-key' ? keys.attacker.privateKey : keys.own.privateKey
  return new SignJWT(changed).setProtectedHeader({ alg: 'RS256', kid: header.kid }).sign(key)
}

/** The public JWKS of the portal's signing key (OIDC_SIGNING_KEY), for a client authenticating with private_key_jwt. */
export async function publicJwks(privateJwk) {
  const { kty, crv, x, y } = typeof privateJwk === 'string' ? JSON.parse(privateJwk) : privateJwk
  // Its kid is its thumbprint, as the portal's JWKS publishes it (worker-api/lib/oidc-keys.ts).
  const kid = await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256')
  return { keys: [{ kty, crv, x, y, kid, use: 'sig', alg: 'ES256' }] }
}
