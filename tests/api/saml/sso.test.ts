import { env } from 'cloudflare:test'
import { Buffer } from 'node:buffer'
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SamlServiceProviderInput } from '../../../worker-api/contract/saml/saml'
import { backgroundContext } from '../../../worker-api/lib/context'
import { purgeExpired } from '../../../worker-api/services/maintenance'
import { api, okBody } from '../client'
import {
  browserCookieOf,
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  sessionFor,
  signedInUser,
} from '../helpers'
import { visit } from '../visit'

/**
 * Single sign-on to a SAML application (issue 62), through the real Worker: the application's service provider is
 * node-saml, an independent library, which makes the requests and checks the responses; the portal's single sign-on
 * service, its page (signed in or not, granted or not) and the launcher's response, against a real D1.
 */
const SSO = 'http://localhost:8787/portail-backend/saml/sso'
const ENTITY = 'https://erp.example.test/mellon/metadata'
const ACS = 'https://erp.example.test/mellon/postResponse'
const [, SP_PAIR] = env.TEST_SAML_PAIRS
const SP_CERT = SP_PAIR.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')

const metadata = (entityId: string, signed = true) => `<?xml version="1.0"?>
<EntityDescriptor entityID="${entityId}" xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
  <SPSSODescriptor AuthnRequestsSigned="${signed}" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${SP_CERT}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>
    <AssertionConsumerService index="0" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ACS}"/>
  </SPSSODescriptor>
</EntityDescriptor>`

/** node-saml as the application: its requests signed with its key, the portal's responses checked with its certificate. */
const serviceProvider = (entityId = ENTITY, options: Partial<ConstructorParameters<typeof SAML>[0]> = {}) =>
  new SAML({
    issuer: entityId,
    callbackUrl: ACS,
    entryPoint: SSO,
    idpCert: env.SAML_IDP_CERT as string,
    idpIssuer: 'http://localhost:8787/portail-backend/saml/metadata',
    audience: entityId,
    privateKey: SP_PAIR.key,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    // A response must answer a request this very instance made (node-saml keeps their IDs).
    validateInResponseTo: ValidateInResponseTo.always,
    ...options,
  })

/** The ERP as one service provider throughout: the requests it made are the ones its responses may answer. */
const erp = serviceProvider()

let root: string
let agent: { id: number; login: string; accessToken: string; refreshToken: string; sid: string }
let cookie: string
let application: { id: number; libelle: string }

async function samlApplication(entityId: string, saml: Partial<SamlServiceProviderInput> = {}, signed = true) {
  return okBody(
    api(root).rest.bd.application.$post({
      json: {
        libelle: `ERP ${entityId}`,
        icone: 'receipt',
        url: 'https://erp.example.test/accueil',
        actif: true,
        protocole: 'SAML',
        saml: { metadata: metadata(entityId, signed), ...saml } as SamlServiceProviderInput,
        fonctions: [{ id: 2 }],
      },
    }),
    201,
  )
}

/** A request the application sends by HTTP-Redirect: the single sign-on service's address, as node-saml makes it. */
async function requestUrl(sp = erp, relayState = '/compta/factures') {
  const url = new URL(await sp.getAuthorizeUrlAsync(relayState, undefined, {}))
  return `${url.pathname}${url.search}`
}

/** Where the single sign-on service sends the browser (always a 303 to the portal's page). */
async function sso(path: string, init: RequestInit = {}) {
  const response = await visit(path, init)
  expect(response.status).toBe(303)
  return response.headers.get('Location') as string
}

/** The portal's page with the browser `cookie` (none: not signed in). */
async function page(location: string, withCookie: string | null = cookie) {
  const response = await visit(location, {
    headers: { ...(withCookie ? { Cookie: withCookie } : {}), 'Sec-Fetch-Dest': 'document' },
  })
  return { response, html: await response.text() }
}

const htmlValue = (html: string, name: string) => {
  const found = html.match(new RegExp(`name="${name}" value="([^"]*)"`))
  return found ? (found[1] as string).replace(/&quot;/g, '"').replace(/&amp;/g, '&') : null
}

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  const user = await createUser({ postes: [currentPost(4, 2)] })
  agent = { ...user, ...(await sessionFor(user.id)) }
  cookie = await browserCookieOf(agent)
  application = await samlApplication(ENTITY, {
    nameIdFormat: 'persistent',
    attributes: [
      { source: 'mail', nom: 'mail' },
      { source: 'postes', nom: 'postes' },
      { source: 'admin', nom: 'admin' },
    ],
  })
})

describe('single sign-on, asked by the application (SP-initiated)', () => {
  it('signs the agent in: the page posts a response node-saml accepts, with the attributes and the request answered', async () => {
    const location = await sso(await requestUrl())
    expect(location).toMatch(/^\/saml\/connexion\?demande=[\w-]{43}$/)

    const { response, html } = await page(location)
    expect(response.status).toBe(200)
    // The page's forms may post to the application, and nowhere else but the portal.
    expect(response.headers.get('Content-Security-Policy')).toMatch(
      /form-action 'self' https:\/\/erp\.example\.test(;|$)/,
    )
    expect(html).toContain(`action="${ACS}"`)
    expect(htmlValue(html, 'RelayState')).toBe('/compta/factures')
    const samlResponse = htmlValue(html, 'SAMLResponse') as string
    const { profile } = await erp.validatePostResponseAsync({ SAMLResponse: samlResponse })
    expect(profile?.nameIDFormat).toBe('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent')
    expect(profile?.nameID).toMatch(/^p[\w-]{40}$/)
    expect(profile?.mail).toBe(`${agent.login}@example.test`)
    expect(profile?.postes).toBe('Agence Lille/Agent de quai')
    expect(profile?.admin).toBe('false')
    expect(profile?.sessionIndex).toMatch(/^_/)
    const xml = Buffer.from(samlResponse, 'base64').toString('utf8')
    expect(xml).toMatch(/InResponseTo="_[0-9a-f]+"/)
    expect(xml).toContain('PasswordProtectedTransport')
    // The application refuses the same response twice, and one changed after it was signed.
    await expect(erp.validatePostResponseAsync({ SAMLResponse: samlResponse })).rejects.toThrow(/InResponseTo/)
    const changed = xml.replace('>false<', '>true<')
    expect(changed).not.toBe(xml)
    await expect(
      serviceProvider(ENTITY, { validateInResponseTo: ValidateInResponseTo.never }).validatePostResponseAsync({
        SAMLResponse: Buffer.from(changed).toString('base64'),
      }),
    ).rejects.toThrow(/signature/i)

    // Answered once: the page again says the request is no longer valid.
    const again = await page(location)
    expect(again.response.status).toBe(404)
    expect(again.html).toContain('Cette demande de connexion n&#x27;est plus valable')

    // The launch is in the history, with the session's sign-in to the application.
    const entries = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('utilisateur_id', '=', agent.id)
      .where('nom_log', '=', application.libelle)
      .execute()
    expect(entries).toEqual([{ nom_log: application.libelle, commentaire: null }])
    const signedIn = await db().selectFrom('saml_session').selectAll().where('family_id', '=', agent.sid).execute()
    expect(signedIn).toMatchObject([{ application_id: application.id, name_id: profile?.nameID }])
  })

  it('gives the same persistent name identifier each time, and a second factor says so', async () => {
    await db()
      .updateTable('refresh_token')
      .set({ methode: 'SECOND_FACTEUR' })
      .where('family_id', '=', agent.sid)
      .execute()
    const { html } = await page(await sso(await requestUrl()))
    const samlResponse = htmlValue(html, 'SAMLResponse') as string
    const { profile } = await erp.validatePostResponseAsync({ SAMLResponse: samlResponse })
    const first = await db().selectFrom('saml_session').select('name_id').where('family_id', '=', agent.sid).execute()
    expect(profile?.nameID).toBe(first[0]?.name_id)
    expect(Buffer.from(samlResponse, 'base64').toString('utf8')).toContain('https://refeds.org/profile/mfa')

    // Another session of the same user, another day: the same identifier, by the page and by the launcher.
    const other = await sessionFor(agent.id)
    const { html: again } = await page(await sso(await requestUrl()), await browserCookieOf({ ...agent, ...other }))
    const { profile: second } = await erp.validatePostResponseAsync({
      SAMLResponse: htmlValue(again, 'SAMLResponse') as string,
    })
    expect(second?.nameID).toBe(profile?.nameID)
    const launched = await okBody(
      api(other.accessToken).rest.bd.acces.application.$get({ query: { idApplication: application.id } }),
    )
    const { profile: third } = await serviceProvider(ENTITY, {
      validateInResponseTo: ValidateInResponseTo.ifPresent,
    }).validatePostResponseAsync({ SAMLResponse: launched.saml?.SAMLResponse as string })
    expect(third?.nameID).toBe(profile?.nameID)

    // Another user, another application: another identifier each.
    const colleague = await createUser({ postes: [currentPost(4, 2)] })
    const colleagueSession = await sessionFor(colleague.id)
    const { html: theirs } = await page(
      await sso(await requestUrl()),
      await browserCookieOf({ ...colleague, ...colleagueSession }),
    )
    const { profile: colleagues } = await erp.validatePostResponseAsync({
      SAMLResponse: htmlValue(theirs, 'SAMLResponse') as string,
    })
    expect(colleagues?.nameID).toMatch(/^p[\w-]{40}$/)
    expect(colleagues?.nameID).not.toBe(profile?.nameID)
    const hr = await samlApplication('https://rh.example.test/persistent', { nameIdFormat: 'persistent' })
    const atHr = await okBody(
      api(other.accessToken).rest.bd.acces.application.$get({ query: { idApplication: hr.id } }),
    )
    const { profile: hrs } = await serviceProvider('https://rh.example.test/persistent', {
      validateInResponseTo: ValidateInResponseTo.ifPresent,
    }).validatePostResponseAsync({ SAMLResponse: atHr.saml?.SAMLResponse as string })
    expect(hrs?.nameID).toMatch(/^p[\w-]{40}$/)
    expect(hrs?.nameID).not.toBe(profile?.nameID)
  })

  it('sends a visitor not signed in through the portal’s sign-in, and back to the request', async () => {
    const location = await sso(await requestUrl())
    const { response } = await page(location, null)
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(`/login?${new URLSearchParams({ redirect: location })}`)
  })

  it('answers a request that asks not to be shown a sign-in (IsPassive), nobody signed in, NoPassive, once', async () => {
    const passive = serviceProvider(ENTITY, { passive: true })
    const location = await sso(await requestUrl(passive))
    expect(location).toMatch(/^\/saml\/connexion\?demande=[\w-]{43}&passif=1$/)
    const { response, html } = await page(location, null)
    expect(response.status).toBe(200)
    expect(html).toContain(`action="${ACS}"`)
    const samlResponse = htmlValue(html, 'SAMLResponse') as string
    // node-saml reads NoPassive as "nobody signed in" (no profile, no error).
    expect(await passive.validatePostResponseAsync({ SAMLResponse: samlResponse })).toEqual({
      profile: null,
      loggedOut: false,
    })
    expect(Buffer.from(samlResponse, 'base64').toString('utf8')).toContain('status:NoPassive')
    expect(Buffer.from(samlResponse, 'base64').toString('utf8')).not.toContain('Assertion')
    // Answered: the page again sends the visitor to sign in, and no second response is made.
    const again = await page(location, null)
    expect(again.response.status).toBe(302)
    // Signed in, a passive request is answered as any other.
    const signedIn = await page(await sso(await requestUrl(passive)))
    const { profile } = await passive.validatePostResponseAsync({
      SAMLResponse: htmlValue(signedIn.html, 'SAMLResponse') as string,
    })
    expect(profile?.mail).toBe(`${agent.login}@example.test`)
  })

  it('reached by the portal’s script (after its sign-in form), loads as a document', async () => {
    const location = await sso(await requestUrl())
    const response = await visit(location, { headers: { Cookie: cookie, 'Sec-Fetch-Dest': 'empty' } })
    expect(response.status).toBe(302)
    expect(response.headers.get('X-Remix-Reload-Document')).toBe('true')
    expect(response.headers.get('Location')).toBe(location)
  })

  it('asks for a new sign-in when the application does (ForceAuthn) and the session is older than the request', async () => {
    const location = await sso(await requestUrl(serviceProvider(ENTITY, { forceAuthn: true })))
    const { response } = await page(location)
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(`/login?${new URLSearchParams({ redirect: location, reauth: '1' })}`)
  })

  it('refuses a user the application is not granted to with the portal’s page, and the attempt is in the history', async () => {
    const stranger = await createUser({ postes: [currentPost(4, 1)] })
    const session = await sessionFor(stranger.id)
    const strangerCookie = await browserCookieOf({ ...stranger, ...session })
    const location = await sso(await requestUrl())
    const { response, html } = await page(location, strangerCookie)
    expect(response.status).toBe(403)
    expect(html).toContain('Accès refusé')
    expect(html).toContain(`Aucun de vos postes actuels ne donne accès à ${application.libelle}`)
    expect(html).not.toContain('SAMLResponse')
    const entries = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('utilisateur_id', '=', stranger.id)
      .where('nom_log', '=', application.libelle)
      .execute()
    expect(entries).toEqual([{ commentaire: 'SAML : refusé, aucun poste actuel ne donne accès à cette application' }])
    expect(await db().selectFrom('saml_session').selectAll().where('family_id', '=', session.sid).execute()).toEqual([])
  })
})

describe('answered once, while the grant holds: the checks are inside the answer’s write', () => {
  const demandeOf = (location: string) => new URLSearchParams(location.split('?')[1]).get('demande') as string
  const writtenFor = async (sid: string) => ({
    sessions: await db().selectFrom('saml_session').select('family_id').where('family_id', '=', sid).execute(),
    launches: await db()
      .selectFrom('log')
      .select('id')
      .where('nom_log', '=', application.libelle)
      .where('commentaire', 'is', null)
      .where(
        'utilisateur_id',
        '=',
        (
          await db()
            .selectFrom('refresh_token')
            .select('utilisateur_id')
            .where('family_id', '=', sid)
            .executeTakeFirstOrThrow()
        ).utilisateur_id,
      )
      .execute(),
  })
  const answer = (demande: string, accessToken: string, DB?: D1Database) =>
    call('/rest/bd/saml/reponse', {
      method: 'POST',
      body: JSON.stringify({ demande }),
      token: accessToken,
      ...(DB ? { env: { DB } } : {}),
    })

  it('two pages answering the same request at once: one posts, the other is refused and writes nothing', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const demande = demandeOf(await sso(await requestUrl()))
    const statuses = (await Promise.all([answer(demande, session.accessToken), answer(demande, session.accessToken)]))
      .map((response) => response.status)
      .sort()
    expect(statuses).toEqual([200, 404])
    expect((await writtenFor(session.sid)).launches).toHaveLength(1)
  })

  it('another page answered it just before: refused, nothing written', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const demande = demandeOf(await sso(await requestUrl()))
    const otherPage = () =>
      db()
        .updateTable('saml_demande')
        .set({ repondue_at: new Date().toISOString(), reponse: 'the-other-page' })
        .where('id', '=', demande)
        .execute()
    const response = await answer(demande, session.accessToken, changedBeforeWrite(otherPage, { atBatch: 1 }))
    expect(response.status).toBe(404)
    expect(((await response.json()) as { businessCode: string }).businessCode).toBe('SAML_REQUEST_UNKNOWN')
    expect(await writtenFor(session.sid)).toEqual({ sessions: [], launches: [] })
  })

  it('a grant ended as the page answers: refused as not granted, no sign-in written', async () => {
    // The user's only grant is their post of function 2; it is removed as the page answers.
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const demande = demandeOf(await sso(await requestUrl()))
    const postEnded = () => db().deleteFrom('poste').where('utilisateur_id', '=', user.id).execute()
    const response = await answer(demande, session.accessToken, changedBeforeWrite(postEnded, { atBatch: 1 }))
    expect(response.status).toBe(403)
    expect(((await response.json()) as { businessCode: string }).businessCode).toBe('SAML_NOT_GRANTED')
    expect(await writtenFor(session.sid)).toEqual({ sessions: [], launches: [] })
  })

  it('a session ended as the page answers: 401, the request still waiting, nothing written', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const demande = demandeOf(await sso(await requestUrl()))
    const signedOut = () =>
      db()
        .updateTable('refresh_token')
        .set({ revoked_at: new Date().toISOString() })
        .where('family_id', '=', session.sid)
        .execute()
    const response = await answer(demande, session.accessToken, changedBeforeWrite(signedOut, { atBatch: 1 }))
    expect(response.status).toBe(401)
    expect(await writtenFor(session.sid)).toEqual({ sessions: [], launches: [] })
    const waiting = await db()
      .selectFrom('saml_demande')
      .select('repondue_at')
      .where('id', '=', demande)
      .executeTakeFirstOrThrow()
    expect(waiting.repondue_at).toBeNull()
  })

  it('an account moved to another domain as the page answers: refused, nothing written', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const demande = demandeOf(await sso(await requestUrl()))
    const moved = () =>
      db()
        .updateTable('utilisateur')
        .set({ domain: 'https://elsewhere.example.test' })
        .where('id', '=', user.id)
        .execute()
    const response = await answer(demande, session.accessToken, changedBeforeWrite(moved, { atBatch: 1 }))
    expect(response.status).toBe(403)
    expect(((await response.json()) as { businessCode: string }).businessCode).toBe('USER_UNAUTHORIZED_DOMAIN')
    expect(await writtenFor(session.sid)).toEqual({ sessions: [], launches: [] })
  })

  it('an expired request: unknown, nothing written', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const demande = demandeOf(await sso(await requestUrl()))
    await db()
      .updateTable('saml_demande')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', demande)
      .execute()
    const response = await answer(demande, session.accessToken)
    expect(response.status).toBe(404)
    expect(await writtenFor(session.sid)).toEqual({ sessions: [], launches: [] })
  })

  it('an application no longer SAML as the page answers: unknown, the request unused, nothing in the history', async () => {
    const entity = 'https://compta.example.test/mellon/metadata'
    const compta = await samlApplication(entity)
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const demande = demandeOf(await sso(await requestUrl(serviceProvider(entity))))
    // Its administrator switches it to OpenID Connect: its service provider goes.
    const notSaml = () => db().deleteFrom('saml_sp').where('application_id', '=', compta.id).execute()
    const response = await answer(demande, session.accessToken, changedBeforeWrite(notSaml, { atBatch: 1 }))
    expect(response.status).toBe(404)
    const entries = await db().selectFrom('log').select('id').where('nom_log', '=', compta.libelle).execute()
    expect(entries).toEqual([])
    const waiting = await db()
      .selectFrom('saml_demande')
      .select('repondue_at')
      .where('id', '=', demande)
      .executeTakeFirstOrThrow()
    expect(waiting.repondue_at).toBeNull()
  })

  it('a launch whose session ended since the launcher checked it: refused, nothing written', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const signedOut = () =>
      db()
        .updateTable('refresh_token')
        .set({ revoked_at: new Date().toISOString() })
        .where('family_id', '=', session.sid)
        .execute()
    const response = await call(`/rest/bd/acces/application?idApplication=${application.id}`, {
      token: session.accessToken,
      env: { DB: changedBeforeWrite(signedOut, { atBatch: 2 }) },
    })
    expect(response.status).not.toBe(200)
    expect(await writtenFor(session.sid)).toEqual({ sessions: [], launches: [] })
  })

  it('a launch whose grant ended since the launcher checked it: refused, nothing written', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const postEnded = () => db().deleteFrom('poste').where('utilisateur_id', '=', user.id).execute()
    const response = await call(`/rest/bd/acces/application?idApplication=${application.id}`, {
      token: session.accessToken,
      env: { DB: changedBeforeWrite(postEnded, { atBatch: 2 }) },
    })
    expect(response.status).toBe(403)
    expect(await writtenFor(session.sid)).toEqual({ sessions: [], launches: [] })
  })
})

describe('what the single sign-on service refuses, on the portal’s page', () => {
  const refusedWith = async (location: string, reason: string, text: string) => {
    expect(location).toBe(`/saml/connexion?refus=${reason}`)
    const { response, html } = await page(location, null)
    expect(response.status).toBe(400)
    expect(html).toContain('Demande de connexion refusée')
    expect(html).toContain(text)
  }

  it('a request presented again', async () => {
    const path = await requestUrl()
    await sso(path)
    await refusedWith(await sso(path), 'REPLAYED', 'Cette demande de connexion a déjà été présentée')
  })

  it('a request’s ID is kept 6 minutes against a replay (README), then goes with the hourly purge', async () => {
    const location = await sso(await requestUrl())
    const demande = new URLSearchParams(location.split('?')[1]).get('demande') as string
    const kept = await db()
      .selectFrom('saml_demande')
      .select(['created_at', 'expires_at'])
      .where('id', '=', demande)
      .executeTakeFirstOrThrow()
    expect(Date.parse(kept.expires_at) - Date.parse(kept.created_at)).toBe(6 * 60_000)
    await purgeExpired(backgroundContext(env), new Date(Date.parse(kept.expires_at) + 1000))
    expect(await db().selectFrom('saml_demande').select('id').where('id', '=', demande).execute()).toEqual([])
  })

  it('a request changed after it was signed, or not signed when the application signs', async () => {
    const path = await requestUrl()
    await refusedWith(
      await sso(path.replace('RelayState=%2Fcompta%2Ffactures', 'RelayState=%2Fadmin')),
      'BAD_SIGNATURE',
      'La signature de la demande de connexion n&#x27;est pas valable',
    )
    const unsigned = await requestUrl(serviceProvider(ENTITY, { privateKey: undefined }))
    await refusedWith(await sso(unsigned), 'UNSIGNED', 'L&#x27;application signe ses demandes de connexion')
  })

  it('a request of an application the portal does not know, or to an address not registered', async () => {
    await refusedWith(
      await sso(await requestUrl(serviceProvider('https://stranger.example.test/sp'))),
      'UNKNOWN_SP',
      'n&#x27;est pas une application SAML du portail',
    )
    const elsewhere = serviceProvider(ENTITY, { callbackUrl: 'https://evil.example.test/acs' })
    await refusedWith(await sso(await requestUrl(elsewhere)), 'ACS_NOT_REGISTERED', 'n&#x27;est pas enregistrée')
  })

  it('no request at all, by either binding: never an error of the API', async () => {
    await refusedWith(await sso('/portail-backend/saml/sso'), 'NOT_A_REQUEST', 'il n&#x27;y en a pas')
    await refusedWith(
      await sso('/portail-backend/saml/sso', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'SAMLRequest=%%%&RelayState=x',
      }),
      'MALFORMED',
      'est invalide',
    )
    await refusedWith(await sso('/portail-backend/saml/sso?SAMLRequest=AAAA'), 'MALFORMED', 'est invalide')
  })

  it('by HTTP-POST, the same request as by Redirect is read, and refused when replayed', async () => {
    const sp = serviceProvider(ENTITY, { authnRequestBinding: 'HTTP-POST' })
    const form = await sp.getAuthorizeFormAsync('/compta', undefined, {})
    const fields = Object.fromEntries(
      [...form.matchAll(/name="(SAMLRequest|RelayState)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    )
    const init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }
    expect(await sso('/portail-backend/saml/sso', init)).toMatch(/^\/saml\/connexion\?demande=/)
    await refusedWith(await sso('/portail-backend/saml/sso', init), 'REPLAYED', 'déjà été présentée')
  })
})

describe('a launch from the launcher (IdP-initiated)', () => {
  it('posts a response nobody asked for to the first assertion consumer service, recorded as a launch', async () => {
    const launched = await okBody(
      api(agent.accessToken).rest.bd.acces.application.$get({ query: { idApplication: application.id } }),
    )
    expect(launched.url).toBe(ACS)
    expect(launched.saml?.RelayState).toBe('https://erp.example.test/accueil')
    const xml = Buffer.from(launched.saml?.SAMLResponse as string, 'base64').toString('utf8')
    expect(xml).not.toContain('InResponseTo')
    const unsolicited = serviceProvider(ENTITY, { validateInResponseTo: ValidateInResponseTo.ifPresent })
    const { profile } = await unsolicited.validatePostResponseAsync({
      SAMLResponse: launched.saml?.SAMLResponse as string,
    })
    expect(profile?.nameID).toMatch(/^p[\w-]{40}$/)
  })
})
