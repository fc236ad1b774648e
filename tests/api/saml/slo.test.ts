import { env } from 'cloudflare:test'
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SamlServiceProviderInput } from '../../../worker-api/contract/saml/saml'
import { backgroundContext } from '../../../worker-api/lib/context'
import { purgeExpired } from '../../../worker-api/services/maintenance'
import { api, okBody } from '../client'
import { browserCookieOf, createOrganisation, createUser, currentPost, db, sessionFor, signedInUser } from '../helpers'
import { visit } from '../visit'

/**
 * Single logout of SAML applications (issue 62), through the real Worker: two applications are node-saml, an
 * independent library, one told by HTTP-Redirect and one by HTTP-POST. The portal's sign-out tells both through the
 * browser; an application's own logout ends the portal session, the other is told, and it is answered last; what the
 * single logout service refuses ends nothing.
 */
const ORIGIN = 'http://localhost:8787'
const SSO = `${ORIGIN}/portail-backend/saml/sso`
const SLO = `${ORIGIN}/portail-backend/saml/slo`
const IDP = `${ORIGIN}/portail-backend/saml/metadata`
const [, SP_PAIR] = env.TEST_SAML_PAIRS
const SP_CERT = SP_PAIR.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')

type App = { entity: string; acs: string; slo: string; binding: 'HTTP-Redirect' | 'HTTP-POST' }
const ERP: App = {
  entity: 'https://erp-slo.example.test/sp',
  acs: 'https://erp-slo.example.test/acs',
  slo: 'https://erp-slo.example.test/logout',
  binding: 'HTTP-Redirect',
}
const FLOTTE: App = {
  entity: 'https://flotte-slo.example.test/sp',
  acs: 'https://flotte-slo.example.test/acs',
  slo: 'https://flotte-slo.example.test/logout',
  binding: 'HTTP-POST',
}

const metadata = (app: App) => `<?xml version="1.0"?>
<EntityDescriptor entityID="${app.entity}" xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
  <SPSSODescriptor AuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${SP_CERT}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>
    <SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${app.binding}" Location="${app.slo}"/>
    <AssertionConsumerService index="0" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${app.acs}"/>
  </SPSSODescriptor>
</EntityDescriptor>`

/** node-saml as the application: its messages signed with its key, the portal's checked with its certificate. */
const serviceProvider = (app: App, options: Partial<ConstructorParameters<typeof SAML>[0]> = {}) =>
  new SAML({
    issuer: app.entity,
    callbackUrl: app.acs,
    entryPoint: SSO,
    logoutUrl: SLO,
    idpCert: env.SAML_IDP_CERT as string,
    idpIssuer: IDP,
    audience: app.entity,
    privateKey: SP_PAIR.key,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    ...options,
  })

const erp = serviceProvider(ERP)
const flotte = serviceProvider(FLOTTE)

let root: string
const applications: Record<string, number> = {}

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  for (const [name, app] of [
    ['erp', ERP],
    ['flotte', FLOTTE],
  ] as const) {
    const created = await okBody(
      api(root).rest.bd.application.$post({
        json: {
          libelle: name === 'erp' ? 'ERP (SLO)' : 'Flotte (SLO)',
          icone: 'receipt',
          url: `${new URL(app.acs).origin}/`,
          actif: true,
          protocole: 'SAML',
          saml: { metadata: metadata(app), nameIdFormat: 'persistent' } as SamlServiceProviderInput,
          fonctions: [{ id: 2 }],
        },
      }),
      201,
    )
    applications[name] = created.id
  }
})

/** A user of their own, signed in (a portal session and its browser cookie). */
async function signedInAgent() {
  const user = await createUser({ postes: [currentPost(4, 2)] })
  const session = await sessionFor(user.id)
  const agent = { ...user, ...session }
  return { ...agent, cookie: await browserCookieOf(agent) }
}

/** The agent signs in to the application from its page: the profile node-saml read from the portal's response. */
async function signIn(sp: SAML, cookie: string) {
  const url = new URL(await sp.getAuthorizeUrlAsync('/', undefined, {}))
  const sso = await visit(`${url.pathname}${url.search}`)
  const page = await visit(sso.headers.get('Location') as string, {
    headers: { Cookie: cookie, 'Sec-Fetch-Dest': 'document' },
  })
  const html = await page.text()
  const SAMLResponse = (html.match(/name="SAMLResponse" value="([^"]*)"/) as RegExpMatchArray)[1] as string
  const { profile } = await sp.validatePostResponseAsync({ SAMLResponse })
  if (!profile) throw new Error('no profile')
  return profile
}

/** The portal's logout page. */
const LOGOUT = '/saml/deconnexion'

/** The logout page as a browser loads it, with its cookies (its logout sequence's, the portal session's). */
const logoutPage = (location: string, ...cookies: (string | null)[]) =>
  visit(location, { headers: { 'Sec-Fetch-Dest': 'document', Cookie: cookies.filter(Boolean).join('; ') } })

/** The logout sequence a response gave the browser, as its cookie (`portail-saml-slo=…`); null for none. */
const sequenceOf = (response: Response) =>
  /portail-saml-slo=[\w-]{43}/.exec(response.headers.get('Set-Cookie') ?? '')?.[0] ?? null

/** The portal's sign-out, by its form: to the logout page, the sequence in the browser's cookie. */
async function signOut(cookie: string) {
  const response = await visit('/logout', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: ORIGIN,
      Host: 'localhost:8787',
      Cookie: cookie,
    },
    body: '',
  })
  expect(response.status).toBe(302)
  expect(response.headers.get('Location')).toBe(LOGOUT)
  const sequence = sequenceOf(response)
  expect(sequence).toMatch(/^portail-saml-slo=[\w-]{43}$/)
  expect(response.headers.get('Set-Cookie')).toMatch(
    /portail-saml-slo=[\w-]{43}; Path=\/saml; HttpOnly; SameSite=Lax; Max-Age=600/,
  )
  return sequence as string
}

/** Where the logout page sends the browser on by its refresh (a message in an address: HTTP-Redirect). */
async function refreshTo(page: Response) {
  expect(page.status).toBe(200)
  const html = await page.text()
  const found = html.match(/<meta http-equiv="refresh" content="0;url=([^"]+)"/)
  expect(found, 'the page goes on by itself').not.toBeNull()
  const url = ((found as RegExpMatchArray)[1] as string).replace(/&amp;/g, '&')
  // And by its link, without the refresh.
  expect(html).toContain(`href="${(found as RegExpMatchArray)[1]}"`)
  return new URL(url)
}

/** A path of the portal from a URL node-saml made (the single logout service's). */
const pathOf = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.pathname}${parsed.search}`
}

/** The single logout service's answer: always a 303, to the logout page. */
async function slo(path: string, init: RequestInit = {}) {
  return (await sloStarted(path, init)).location
}

/** The same, with the logout sequence an application's request started (the browser's cookie). */
async function sloStarted(path: string, init: RequestInit = {}) {
  const response = await visit(path, init)
  expect(response.status).toBe(303)
  return { location: response.headers.get('Location') as string, sequence: sequenceOf(response) }
}

const sequenceRows = (familyId: string) =>
  db()
    .selectFrom('saml_deconnexion')
    .select(['application_id', 'statut'])
    .where('family_id', '=', familyId)
    .orderBy('application_id')
    .execute()

/** Whether the portal session still answers (its access token checks its family on every call). */
const sessionAnswers = async (accessToken: string): Promise<number> =>
  (await api(accessToken).rest.bd.session.$get()).status

describe('the portal’s sign-out tells each SAML application through the browser', () => {
  it('by HTTP-Redirect and by HTTP-POST, each once, with the name identifier and session index it was given', async () => {
    const agent = await signedInAgent()
    const atErp = await signIn(erp, agent.cookie)
    const atFlotte = await signIn(flotte, agent.cookie)

    const sequence = await signOut(agent.cookie)
    expect(await sessionAnswers(agent.accessToken)).toBe(401)
    expect(await sequenceRows(agent.sid)).toEqual([
      { application_id: applications.erp, statut: 'A_ENVOYER' },
      { application_id: applications.flotte, statut: 'A_ENVOYER' },
    ])

    // The first application: a signed LogoutRequest in the address (HTTP-Redirect), which node-saml accepts.
    // Without the browser's cookie, the page tells no one: the sequence is that browser's.
    expect((await logoutPage(LOGOUT)).headers.get('Location')).toBe('/login')
    const request = await refreshTo(await logoutPage(LOGOUT, sequence))
    expect(`${request.origin}${request.pathname}`).toBe(ERP.slo)
    // The sequence is never sent to an application: the answer is known by its InResponseTo.
    expect(request.searchParams.has('RelayState')).toBe(false)
    expect(request.search).not.toContain(sequence.split('=')[1])
    const told = await erp.validateRedirectAsync(Object.fromEntries(request.searchParams), request.search.slice(1))
    expect(told.loggedOut).toBe(true)
    expect(told.profile?.nameID).toBe(atErp.nameID)
    expect(told.profile?.sessionIndex).toBe(atErp.sessionIndex)
    // A message changed after it was signed is refused by the application.
    const changed = new URLSearchParams(request.search)
    changed.set('RelayState', 'autre')
    await expect(erp.validateRedirectAsync(Object.fromEntries(changed), changed.toString())).rejects.toThrow()

    const answerErp = await erp.getLogoutResponseUrlAsync(told.profile!, '', {}, true)

    // Its answer brings the browser back to the page: the second application, by a form (HTTP-POST).
    const back = await slo(pathOf(answerErp))
    expect(back).toBe(LOGOUT)
    const second = await logoutPage(back, sequence)
    expect(second.status).toBe(200)
    expect(second.headers.get('Content-Security-Policy')).toMatch(
      /form-action 'self' https:\/\/flotte-slo\.example\.test(;|$)/,
    )
    const html = await second.text()
    expect(html).toContain(`action="${FLOTTE.slo}"`)
    expect(html).toContain('Déconnexion de Flotte (SLO)')
    const SAMLRequest = (html.match(/name="SAMLRequest" value="([^"]*)"/) as RegExpMatchArray)[1] as string
    const toldFlotte = await flotte.validatePostRequestAsync({ SAMLRequest })
    expect(toldFlotte.loggedOut).toBe(true)
    expect(toldFlotte.profile?.nameID).toBe(atFlotte.nameID)
    expect(toldFlotte.profile?.sessionIndex).toBe(atFlotte.sessionIndex)

    const answerFlotte = await flotte.getLogoutResponseUrlAsync(toldFlotte.profile!, '', {}, true)
    const last = await logoutPage(await slo(pathOf(answerFlotte)), sequence)
    expect(last.status).toBe(302)
    expect(last.headers.get('Location')).toBe('/login')
    // Over: the browser forgets the sequence.
    expect(last.headers.get('Set-Cookie')).toMatch(/portail-saml-slo=; Path=\/saml; HttpOnly; SameSite=Lax; Max-Age=0/)
    expect(await sequenceRows(agent.sid)).toEqual([
      { application_id: applications.erp, statut: 'FAITE' },
      { application_id: applications.flotte, statut: 'FAITE' },
    ])

    // The same answer again answers nothing the portal has under way.
    const replayed = await slo(pathOf(answerFlotte))
    expect(replayed).toBe('/saml/deconnexion?refus=UNEXPECTED')
    const refused = await logoutPage(replayed)
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('ne répond à aucune demande de déconnexion en cours du portail')
  })

  it('a page loaded twice sends each request once; an application that answers “no” is recorded so', async () => {
    const agent = await signedInAgent()
    const atErp = await signIn(erp, agent.cookie)
    const sequence = await signOut(agent.cookie)
    const request = await refreshTo(await logoutPage(LOGOUT, sequence))
    // Loaded again (the user went back): nothing more to send, the sign-in page.
    const again = await logoutPage(LOGOUT, sequence)
    expect(again.headers.get('Location')).toBe('/login')

    const told = await erp.validateRedirectAsync(Object.fromEntries(request.searchParams), request.search.slice(1))
    expect(told.profile?.nameID).toBe(atErp.nameID)
    const refusal = await erp.getLogoutResponseUrlAsync(told.profile!, '', {}, false)
    await slo(pathOf(refusal))
    expect(await sequenceRows(agent.sid)).toEqual([{ application_id: applications.erp, statut: 'REFUSEE' }])
  })

  it('a session ended with nobody there (an administrator) records its applications as not reachable', async () => {
    const agent = await signedInAgent()
    await signIn(erp, agent.cookie)
    const ended = await api(root).rest.bd.utilisateur[':id'].sessions.$delete({ param: { id: agent.id } })
    expect(ended.status).toBe(204)
    expect(await sequenceRows(agent.sid)).toEqual([{ application_id: applications.erp, statut: 'INJOIGNABLE' }])
    expect(
      await db().selectFrom('saml_session').select('family_id').where('family_id', '=', agent.sid).execute(),
    ).toEqual([])
  })

  it('a sign-out with no SAML application goes straight on to the sign-in page, with its notice', async () => {
    const agent = await signedInAgent()
    const page = await logoutPage(LOGOUT, await signOut(agent.cookie))
    expect(page.status).toBe(302)
    expect(page.headers.get('Location')).toBe('/login')
    expect(page.headers.get('Set-Cookie')).toMatch(/toast/)
  })
})

describe('an application’s own logout (SP-initiated)', () => {
  it('ends the portal session it names, tells the other application, then answers it last, signed', async () => {
    const agent = await signedInAgent()
    const atErp = await signIn(erp, agent.cookie)
    const atFlotte = await signIn(flotte, agent.cookie)

    const asked = await erp.getLogoutUrlAsync(atErp, '/au-revoir', {})
    const { location, sequence } = await sloStarted(pathOf(asked))
    expect(location).toBe(LOGOUT)
    expect(await sessionAnswers(agent.accessToken)).toBe(401)
    const entries = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('utilisateur_id', '=', agent.id)
      .where('type_log', '=', 'DECONNEXION')
      .execute()
    expect(entries).toEqual([{ nom_log: 'DECONNEXION', commentaire: 'SAML : déconnexion demandée par ERP (SLO)' }])

    // The other application first, by a form; the page forgets the browser's ended session.
    const first = await logoutPage(location, sequence, agent.cookie)
    expect(first.status).toBe(200)
    expect(first.headers.get('Set-Cookie')).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/)
    const SAMLRequest = (
      (await first.text()).match(/name="SAMLRequest" value="([^"]*)"/) as RegExpMatchArray
    )[1] as string
    const toldFlotte = await flotte.validatePostRequestAsync({ SAMLRequest })
    expect(toldFlotte.profile?.nameID).toBe(atFlotte.nameID)
    const back = await slo(pathOf(await flotte.getLogoutResponseUrlAsync(toldFlotte.profile!, '', {}, true)))

    // Then the application that asked: a signed LogoutResponse to its very request, its RelayState given back.
    const response = await refreshTo(await logoutPage(back, sequence))
    expect(`${response.origin}${response.pathname}`).toBe(ERP.slo)
    expect(response.searchParams.get('RelayState')).toBe('/au-revoir')
    expect(
      await erp.validateRedirectAsync(Object.fromEntries(response.searchParams), response.search.slice(1)),
    ).toEqual({
      profile: null,
      loggedOut: true,
    })
    // Answered once: then the sign-in page.
    expect((await logoutPage(back, sequence)).headers.get('Location')).toBe('/login')
    // The same request again: refused, nothing more ends.
    const again = await slo(pathOf(asked))
    expect(again).toBe(`${LOGOUT}?refus=REPLAYED`)
  })

  it('answers an application whose user has no portal session any more, and ends nothing else', async () => {
    const agent = await signedInAgent()
    const atErp = await signIn(erp, agent.cookie)
    const other = await signedInAgent()
    await signIn(erp, other.cookie)
    const asked = await erp.getLogoutUrlAsync({ ...atErp, sessionIndex: '_unknown' }, '', {})
    const started = await sloStarted(pathOf(asked))
    const response = await refreshTo(await logoutPage(started.location, started.sequence))
    expect(`${response.origin}${response.pathname}`).toBe(ERP.slo)
    expect(
      (await erp.validateRedirectAsync(Object.fromEntries(response.searchParams), response.search.slice(1))).loggedOut,
    ).toBe(true)
    expect(await sessionAnswers(agent.accessToken)).toBe(200)
    expect(await sessionAnswers(other.accessToken)).toBe(200)
  })
})

describe('limits (README)', () => {
  it('a logout sequence lasts 10 minutes; its records go with the purge after 30 days', async () => {
    const agent = await signedInAgent()
    await signIn(erp, agent.cookie)
    const sequence = await signOut(agent.cookie)
    const age = async (seconds: number) =>
      db()
        .updateTable('saml_deconnexion')
        .set({ created_at: new Date(Date.now() - seconds * 1000).toISOString() })
        .where('family_id', '=', agent.sid)
        .execute()
    await age(10 * 60 + 1)
    expect((await logoutPage(LOGOUT, sequence)).headers.get('Location')).toBe('/login')
    await age(10 * 60 - 5)
    await refreshTo(await logoutPage(LOGOUT, sequence))

    const [row] = await db()
      .selectFrom('saml_deconnexion')
      .select('created_at')
      .where('family_id', '=', agent.sid)
      .execute()
    const created = Date.parse(row?.created_at as string)
    await purgeExpired(backgroundContext(env), new Date(created + 30 * 86_400_000 - 1000))
    expect(await sequenceRows(agent.sid)).toHaveLength(1)
    await purgeExpired(backgroundContext(env), new Date(created + 30 * 86_400_000 + 1000))
    expect(await sequenceRows(agent.sid)).toEqual([])
  })

  it('one logout request ends at most 10 portal sessions of its name identifier', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const sessions = []
    for (let i = 0; i < 11; i++) {
      const session = await sessionFor(user.id)
      await db()
        .insertInto('saml_session')
        .values({
          family_id: session.sid,
          application_id: applications.erp as number,
          utilisateur_id: user.id,
          name_id: `p-limite-${user.id}`,
          format_name_id: 'persistent',
          session_index: `_limite${i}`,
          created_at: new Date().toISOString(),
        })
        .execute()
      sessions.push(session)
    }
    const asked = await erp.getLogoutUrlAsync(
      {
        issuer: ERP.entity,
        nameID: `p-limite-${user.id}`,
        nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      },
      '',
      {},
    )
    expect((await sloStarted(pathOf(asked))).location).toBe(LOGOUT)
    const statuses = await Promise.all(sessions.map((session) => sessionAnswers(session.accessToken)))
    expect(statuses.filter((status) => status === 401)).toHaveLength(10)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
  })
})

describe('what the single logout service refuses ends nothing', () => {
  const refusedWith = async (location: string, reason: string, text: string) => {
    expect(location).toBe(`/saml/deconnexion?refus=${reason}`)
    const page = await logoutPage(location)
    expect(page.status).toBe(400)
    const html = await page.text()
    expect(html).toContain('Demande de déconnexion refusée')
    expect(html).toContain(text)
  }

  it('an unsigned request, one changed after it was signed, one of an application the portal does not know', async () => {
    const agent = await signedInAgent()
    const atErp = await signIn(erp, agent.cookie)
    const unsigned = serviceProvider(ERP, { privateKey: undefined })
    await refusedWith(
      await slo(pathOf(await unsigned.getLogoutUrlAsync(atErp, '', {}))),
      'UNSIGNED',
      'doit être signée par l&#x27;application',
    )
    const signed = pathOf(await erp.getLogoutUrlAsync(atErp, '/x', {}))
    await refusedWith(await slo(signed.replace('RelayState=%2Fx', 'RelayState=%2Fy')), 'BAD_SIGNATURE', 'pas valable')
    const stranger = serviceProvider({ ...ERP, entity: 'https://stranger.example.test/sp' })
    await refusedWith(
      await slo(pathOf(await stranger.getLogoutUrlAsync(atErp, '', {}))),
      'UNKNOWN_SP',
      'n&#x27;est pas une application SAML du portail',
    )
    expect(await sessionAnswers(agent.accessToken)).toBe(200)
  })

  it('no message at all, by either binding, and a response signed by another key: never an error of the API', async () => {
    await refusedWith(await slo('/portail-backend/saml/slo'), 'NOT_A_REQUEST', 'il n&#x27;y en a pas')
    await refusedWith(
      await slo('/portail-backend/saml/slo', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'SAMLResponse=%%%',
      }),
      'MALFORMED',
      'est invalide',
    )
    // Larger than any form the portal reads: said on the page too.
    await refusedWith(
      await slo('/portail-backend/saml/slo', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `SAMLRequest=${'A'.repeat(70 * 1024)}`,
      }),
      'TOO_LARGE',
      'trop grande',
    )
    const [idpPair] = env.TEST_SAML_PAIRS
    const forger = serviceProvider(ERP, { privateKey: idpPair.key })
    const forged = await forger.getLogoutResponseUrlAsync(
      { ID: '_sent', issuer: IDP, nameID: 'x', nameIDFormat: 'x' } as never,
      '',
      {},
      true,
    )
    await refusedWith(await slo(pathOf(forged)), 'BAD_SIGNATURE', 'pas valable')
  })
})
