import { env } from 'cloudflare:test'
import { SAML } from '@node-saml/node-saml'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { userApi } from '../../app/lib/api.server'
import { ADMIN_MENU, USER_MENU } from '../../app/lib/menu'
import { getSession } from '../../app/lib/session.server'
import { createApp } from '../../worker-api/app'
import { createMeter } from '../../worker-api/db/meter'
import { BOOKMARK_HEADER } from '../../worker-api/db/request-scope'
import { base64url } from '../../worker-api/lib/crypto'
import { signAccessToken } from '../../worker-api/lib/jwt'
import { api, okBody } from './client'
import {
  call,
  createOidcClient,
  createOrganisation,
  createUser,
  currentPost,
  db,
  insertServiceAccount,
  loginWith,
  ORIGIN,
  sessionFor,
  uiContext,
} from './helpers'
import { tokenBody } from './oauth-answers'
import { visit } from './visit'

/**
 * What a request costs in D1 statements (issue: "≤ 2 for an API read, ≤ 3 for a signed-in page"),
 * read from the Server-Timing header the Worker adds when asked to, and the D1 session each request
 * opens so that a client reads its own writes from a replica (DESIGN §1).
 */

beforeAll(createOrganisation)

const TIMING = { SERVER_TIMING: 'on' }

/** The D1 statements, round trips and in-process API calls a response reports. */
function cost(response: { headers: Headers }) {
  const header = response.headers.get('Server-Timing') ?? ''
  const d1 = /d1;dur=[\d.]+;desc="(\d+) statements, (\d+) round trips"/.exec(header)
  const calls = /api;dur=[\d.]+;desc="(\d+) in-process calls"/.exec(header)?.[1]
  return {
    statements: Number(d1?.[1] ?? Number.NaN),
    roundTrips: Number(d1?.[2] ?? Number.NaN),
    apiCalls: Number(calls ?? 0),
  }
}

/** A D1 binding that records how each request opens its session, and otherwise is the real one. */
function recordingDb() {
  const constraints: string[] = []
  const DB = new Proxy(env.DB, {
    get(target, property) {
      if (property === 'withSession') {
        return (constraint: string) => {
          constraints.push(constraint)
          return target.withSession(constraint)
        }
      }
      const value = Reflect.get(target, property)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { DB, constraints }
}

/** The browser cookie of a signed-in user (what the login form leaves), its access token optionally expired. */
async function browserCookie(user: { id: number; login: string }, { expired = false } = {}) {
  const tokens = await sessionFor(user.id)
  const session = await getSession(new Request(`${ORIGIN}/pages/user/acces`), uiContext)
  const accessToken = expired
    ? await signAccessToken(
        env.JWT_SECRET,
        { sub: String(user.id), admin: false, domain: ORIGIN, sid: tokens.sid },
        Date.now() - 3_600_000,
      )
    : tokens.accessToken
  session.session.set('accessToken', accessToken)
  session.session.set('refreshToken', tokens.refreshToken)
  session.session.set('user', { id: user.id, login: user.login, nom: 'N', prenom: 'P', admin: false })
  return { cookie: (await session.commit()).split(';')[0] as string, ...tokens }
}

/** A page, the statements its request makes and the in-process API calls: the pins of the tables below. */
type Pinned = readonly (readonly [string, number, number])[]

/**
 * The pages a table pins, then the menu's (app/lib/menu.ts) it does not: a page added to the menu is read here with no
 * other change, and its one round trip checked (its statements and calls, once pinned in the table, exactly).
 */
const withMenu = (pinned: Pinned, menu: readonly { to: string }[]) => [
  ...new Set([...pinned.map(([page]) => page), ...menu.map((item) => item.to)]),
]

/** Each page as the signed-in `cookie` reads it: its status and its cost. */
async function costsOf(pages: string[], cookie: string) {
  const measured = []
  for (const page of pages) {
    const response = await visit(page, { headers: { Cookie: cookie } }, TIMING)
    measured.push([page, response.status, cost(response)])
  }
  return measured
}

/** What `costsOf` should find: 200 and one round trip for each page, its statements and calls as pinned. */
const expected = (pages: string[], pinned: Pinned) =>
  pages.map((page) => {
    const pin = pinned.find(([pinnedPage]) => pinnedPage === page)
    return [
      page,
      200,
      pin ? { statements: pin[1], roundTrips: 1, apiCalls: pin[2] } : expect.objectContaining({ roundTrips: 1 }),
    ]
  })

describe('statements per request', () => {
  it('an API read costs one round trip: the caller (with what it needs of the user) and the data together', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { accessToken: token } = await sessionFor(user.id)
    const read = async (path: string) => {
      const { statements, roundTrips } = cost(await call(path, { token, env: TIMING }))
      return { statements, roundTrips }
    }

    expect(cost(await call('/rest/public/health', { env: TIMING }))).toMatchObject({ statements: 1, roundTrips: 1 })
    expect(await read('/rest/bd/session')).toEqual({ statements: 1, roundTrips: 1 })
    expect(await read(`/rest/bd/utilisateur/${user.id}`)).toEqual({ statements: 2, roundTrips: 1 })
    expect(await read(`/rest/bd/acces/utilisateur/${user.id}`)).toEqual({ statements: 2, roundTrips: 1 })
    expect(await read('/rest/bd/session/liste')).toEqual({ statements: 2, roundTrips: 1 })
  })

  it('an administrator reading a user in scope: the scope comes with the caller, the posts with the user', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(2, 1)] })
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const { accessToken: token } = await sessionFor(admin.id)
    const response = await api(token, TIMING).rest.bd.utilisateur[':id'].$get({ param: { id: target.id }, query: {} })
    expect(response.status).toBe(200)
    expect((await okBody(response)).modification).toBe(true)
    expect(cost(response)).toMatchObject({ statements: 2, roundTrips: 1 })
    // The administration home: every figure with the caller, the user counts kept or counted in the batch.
    for (const _ of [1, 2]) {
      const home = await call('/rest/bd/accueil', { token, env: TIMING })
      expect(home.status).toBe(200)
      expect(cost(home).roundTrips).toBe(1)
    }
    // The templates screen: every type's template and the catalogue with the caller (a root administrator).
    const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const templates = await call('/rest/bd/typestructure/fonctions', {
      token: (await sessionFor(root.id)).accessToken,
      env: TIMING,
    })
    expect(templates.status).toBe(200)
    expect(cost(templates).roundTrips).toBe(1)
    const access = await call(`/rest/bd/acces/utilisateur/${target.id}`, { token, env: TIMING })
    expect(access.status).toBe(200)
    expect(cost(access)).toMatchObject({ statements: 3, roundTrips: 1 })
    // A user's sessions: the caller, the user (whether the caller manages them) and the sessions together.
    const sessions = await call(`/rest/bd/utilisateur/${target.id}/sessions`, { token, env: TIMING })
    expect(sessions.status).toBe(200)
    expect(cost(sessions)).toMatchObject({ statements: 3, roundTrips: 1 })
  })

  it('a signed-in page checks its caller once for the layout and the page, with the page data', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { cookie } = await browserCookie(user)
    // The access page reads what current posts open and what future ones will in one statement, the
    // demandable applications in another, the latest requests (uncounted) in one more, all in one call;
    // the profile asks for the user with their sessions.
    const pages = [
      ['/pages/user/acces', 4, 2],
      ['/pages/user/me', 3, 2],
      // The second factor: the TOTP row, the passkeys and the recovery codes left.
      // With the links to partners' identity providers.
      ['/pages/user/securite', 5, 2],
    ] as const
    // The layout asks who the session is, the page asks for its data: one check, one round trip.
    expect(await costsOf(withMenu(pages, USER_MENU), cookie)).toEqual(expected(withMenu(pages, USER_MENU), pages))
  })

  it('every admin page makes its reads and the admin check in one round trip', async () => {
    const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    const { cookie } = await browserCookie(root)
    const at = new Date().toISOString()
    const { id: imported } = await db()
      .insertInto('import')
      .values({
        type: 'utilisateurs',
        etat: 'TERMINE',
        auteur_id: root.id,
        fichier: 'cout.csv',
        domaine: 'http://localhost:8787',
        origine: 'http://localhost:8787',
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db().updateTable('application').set({ demandable: 1 }).where('id', '=', 3).execute()
    const { id: demande } = await db()
      .insertInto('demande_acces')
      .values({
        utilisateur_id: agent.id,
        application_id: 3,
        motif: 'Coût',
        date_debut: at.slice(0, 10),
        date_fin: at.slice(0, 10),
        created_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const { id: revue } = await db()
      .insertInto('revue')
      .values({
        nom: 'Coût',
        structure_id: 2,
        structure_nom: 'Direction Nord',
        chemin: '/1/2/',
        echeance: '2099-01-01',
        si_non_revu: 'CONSERVER',
        etat: 'OUVERTE',
        auteur_id: root.id,
        domaine: 'http://localhost:8787',
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const { id: webhook } = await db()
      .insertInto('webhook')
      .values({
        url: 'https://rh.example/cout',
        evenements: '["utilisateur.*"]',
        description: null,
        recherche: 'https://rh.example/cout',
        actif: 1,
        structure_id: 2,
        cree_par: root.id,
        domain: 'http://localhost:8787',
        secret_scelle: 'scelle',
        ancien_secret_scelle: null,
        ancien_secret_expire: null,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    // [page, statements, in-process calls]: the session call the layout and the guard share, then the
    // page's own, all in the batch of the request's one check of the caller.
    const pages = [
      // The home's figures (with the history's storage) and the count of the access requests waiting.
      ['/pages/admin', 20, 3],
      ['/pages/admin/listeStructures', 3, 2],
      ['/pages/admin/listeUtilisateurs', 5, 2],
      ['/pages/admin/autorisation', 3, 2],
      // The page of entries with its total, and the archived months of its range.
      ['/pages/admin/listeLogs', 7, 2],
      ['/pages/admin/structure', 2, 2],
      ['/pages/admin/structure?type=3', 4, 3],
      ['/pages/admin/structure/detail/4', 7, 6],
      ['/pages/admin/structure/detail/4?type=3', 7, 6],
      ['/pages/admin/user/new', 3, 2],
      // A page of the structures to choose from, the one in the path by id, and its functions.
      ['/pages/admin/user/4/new', 6, 4],
      ['/pages/admin/user/structure/4', 9, 3],
      // The user with their sessions and their links to partners' providers (the user's row says whether the caller
      // manages them), what their posts open.
      [`/pages/admin/detail/user/${agent.id}`, 6, 3],
      [`/pages/admin/user/detail/${agent.id}`, 6, 3],
      ['/pages/admin/applications', 4, 2],
      ['/pages/admin/applications/nouvelle', 3, 2],
      ['/pages/admin/applications/1', 5, 3],
      ['/pages/admin/modeles', 4, 2],
      ['/pages/admin/modeles/3', 4, 2],
      ['/pages/admin/securite', 2, 2],
      // A page of the service accounts and their count, the structures to create one in (a page and
      // its count), and the admin's factors (whether a code may prove it is them).
      ['/pages/admin/comptesService', 9, 4],
      // The admin's latest imports; one import with a page of its errors and, a kept preview, its first changes.
      ['/pages/admin/import', 2, 2],
      [`/pages/admin/import/${imported}`, 4, 2],
      // The access requests waiting (a page and its total); one request with the functions that could grant it.
      ['/pages/admin/demandes', 3, 2],
      [`/pages/admin/demandes/${demande}`, 3, 2],
      // The campaigns (a page and its total) and the structures to open one on (a page, its count); one campaign
      // with its progress per structure and a page of its items, in one call (their total is the progress).
      ['/pages/admin/revues', 5, 3],
      [`/pages/admin/revues/${revue}`, 4, 2],
      // The subscriptions (a page and its total) and the structures to make one on (a page, its count); one
      // subscription with a page of its delivery log and its total.
      ['/pages/admin/webhooks', 5, 3],
      [`/pages/admin/webhooks/${webhook}`, 5, 3],
    ] as const
    expect(await costsOf(withMenu(pages, ADMIN_MENU), cookie)).toEqual(expected(withMenu(pages, ADMIN_MENU), pages))
  })

  it('every public page reads in at most one round trip, signed in or not', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { cookie } = await browserCookie(user)
    const token = 'A'.repeat(43)
    // [page, status, statements, in-process calls] for an anonymous visitor, then for a signed-in user
    // (whom /login and the documentation ask the session of).
    const pages = [
      // The captcha's question, and the partners' providers the page lists (one statement).
      ['/login', [200, 1, 2], [200, 1, 1]],
      ['/createAccount', [200, 1, 2], [200, 1, 2]],
      ['/createAccount/mail', [200, 0, 0], [200, 0, 0]],
      ['/forgotPassword', [200, 0, 1], [200, 0, 1]],
      [`/renewPassword/${token}`, [200, 1, 1], [200, 1, 1]],
      [`/confirmMail/${token}`, [200, 1, 1], [200, 1, 1]],
      ['/pages/documentation', [302, 0, 0], [200, 1, 1]],
      ['/', [302, 0, 0], [302, 0, 0]],
    ] as const
    const measured = []
    for (const [page] of pages) {
      const row = []
      for (const headers of [{}, { Cookie: cookie }] as Record<string, string>[]) {
        const response = await visit(page, { headers }, TIMING)
        const { statements, roundTrips, apiCalls } = cost(response)
        row.push([response.status, statements, apiCalls, roundTrips])
      }
      measured.push([page, ...row])
    }
    expect(measured).toEqual(pages.map(([page, ...visits]) => [page, ...visits.map((v) => [...v, v[1] === 0 ? 0 : 1])]))
  })

  it('the OpenID Connect authorization page: the client checked in one round trip, a code in two', async () => {
    await createOidcClient({
      libelle: 'Coût OIDC',
      clientId: 'cost',
      secret: null,
      redirectUri: 'https://rp.cost.example.test/cb',
      fonctionId: 2,
    })
    const query = new URLSearchParams({
      client_id: 'cost',
      redirect_uri: 'https://rp.cost.example.test/cb',
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'A'.repeat(43),
      code_challenge_method: 'S256',
    })
    const anonymous = await visit(`/oidc/authorize?${query}`, { redirect: 'manual' }, TIMING)
    expect(anonymous.status).toBe(302)
    expect(cost(anonymous)).toEqual({ statements: 1, roundTrips: 1, apiCalls: 1 })
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { cookie } = await browserCookie(user)
    const signedIn = await visit(
      `/oidc/authorize?${query}`,
      { headers: { Cookie: cookie }, redirect: 'manual' },
      TIMING,
    )
    expect(signedIn.status).toBe(302)
    expect(new URL(signedIn.headers.get('Location') as string).searchParams.has('code')).toBe(true)
    // The caller, the client, the grant and the session's sign-in time; then the code and its audit entry.
    expect(cost(signedIn)).toEqual({ statements: 6, roundTrips: 2, apiCalls: 1 })
    // The page keeps the portal's framing and script rules.
    const refused = await visit('/oidc/authorize?client_id=cost&redirect_uri=https%3A%2F%2Fevil.example.test%2F')
    expect(refused.status).toBe(400)
    expect(refused.headers.get('X-Frame-Options')).toBe('DENY')
    expect(refused.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'")
    // The end-session page: the client read in one round trip; asking a signed-in user first, nothing more.
    const logout = await visit('/oidc/logout?client_id=cost', { headers: { Cookie: cookie } }, TIMING)
    expect(logout.status).toBe(200)
    expect(cost(logout)).toEqual({ statements: 1, roundTrips: 1, apiCalls: 1 })
    expect(logout.headers.get('Access-Control-Allow-Origin')).toBeNull()
  })

  it('the device page: the code form reads nothing, a code’s request one round trip, a decision two', async () => {
    await createOidcClient({
      libelle: 'Coût appareil',
      clientId: 'cost-device',
      secret: null,
      redirectUri: 'https://rp.cost.example.test/cb',
      fonctionId: 2,
      deviceGrant: true,
    })
    const asked = await call('/oidc/device_authorization', {
      method: 'POST',
      body: new URLSearchParams({ client_id: 'cost-device' }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    const { user_code } = (await asked.json()) as { user_code: string }
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { cookie } = await browserCookie(user)
    const form = await visit('/appareil', { headers: { Cookie: cookie } }, TIMING)
    expect([form.status, cost(form)]).toEqual([200, { statements: 0, roundTrips: 0, apiCalls: 0 }])
    // The caller, the request and whether it is theirs to decide, the tries so far and the count of a wrong one.
    const request = await visit(`/appareil?code=${user_code}`, { headers: { Cookie: cookie } }, TIMING)
    expect([request.status, cost(request)]).toEqual([200, { statements: 6, roundTrips: 1, apiCalls: 1 }])
    // The same reads, then the decision and its history entry.
    const body = new URLSearchParams({ intent: 'decision', code: user_code, decision: 'APPROUVER', nom: '' })
    const decided = await visit(
      '/appareil',
      {
        method: 'POST',
        body: body.toString(),
        headers: {
          Cookie: cookie,
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: ORIGIN,
          Host: new URL(ORIGIN).host,
        },
        redirect: 'manual',
      },
      TIMING,
    )
    expect([decided.status, cost(decided)]).toEqual([302, { statements: 8, roundTrips: 2, apiCalls: 1 }])
  })

  it('SAML single sign-on: the request kept in two round trips, the page’s answer in one, a launch in two', async () => {
    const [, pair] = env.TEST_SAML_PAIRS
    const certificate = pair.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')
    const { id } = await db()
      .insertInto('application')
      .values({ libelle: 'Coût SAML', icone: 'receipt', url: 'https://sp.cost.example.test/', protocole: 'SAML' })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db()
      .insertInto('saml_sp')
      .values({
        application_id: id,
        entity_id: 'https://sp.cost.example.test/metadata',
        acs: JSON.stringify([{ url: 'https://sp.cost.example.test/acs', index: 0 }]),
        slo_url: null,
        slo_binding: null,
        certificats: JSON.stringify([certificate]),
      })
      .execute()
    await db().insertInto('fonction_application').values({ fonction_id: 2, application_id: id }).execute()
    const request = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_cost" Version="2.0" IssueInstant="${new Date().toISOString()}"><saml:Issuer>https://sp.cost.example.test/metadata</saml:Issuer></samlp:AuthnRequest>`
    const kept = await visit(
      '/portail-backend/saml/sso',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ SAMLRequest: btoa(request) }).toString(),
      },
      TIMING,
    )
    expect(kept.status).toBe(303)
    // The service provider its issuer names; then the request kept.
    expect(cost(kept)).toMatchObject({ statements: 2, roundTrips: 2 })
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { cookie, accessToken } = await browserCookie(user)
    const page = await visit(
      kept.headers.get('Location') as string,
      { headers: { Cookie: cookie, 'Sec-Fetch-Dest': 'document' } },
      TIMING,
    )
    expect(page.status).toBe(200)
    // One round trip: the caller; the request marked, the persistent identifier, the session's sign-in, the launch's
    // entry; then the request with its provider and its user, and the user's posts.
    expect(cost(page)).toEqual({ statements: 7, roundTrips: 1, apiCalls: 1 })
    const launch = await visit(
      `/portail-backend/rest/bd/acces/application?idApplication=${id}`,
      { headers: { Authorization: `Bearer ${accessToken}` } },
      TIMING,
    )
    expect(launch.status).toBe(200)
    // The caller, the application and what the caller may launch; the sign-in's writes, the provider and the subject.
    expect(cost(launch)).toMatchObject({ roundTrips: 2 })
  })

  it('SAML single logout: an application’s request in two round trips, each step of the logout page in two', async () => {
    const [, pair] = env.TEST_SAML_PAIRS
    const certificate = pair.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')
    const { id } = await db()
      .insertInto('application')
      .values({ libelle: 'Coût SLO', icone: 'receipt', url: 'https://slo.cost.example.test/', protocole: 'SAML' })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db()
      .insertInto('saml_sp')
      .values({
        application_id: id,
        entity_id: 'https://slo.cost.example.test/metadata',
        acs: JSON.stringify([{ url: 'https://slo.cost.example.test/acs', index: 0 }]),
        slo_url: 'https://slo.cost.example.test/logout',
        slo_binding: 'HTTP-Redirect',
        certificats: JSON.stringify([certificate]),
      })
      .execute()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { accessToken } = await browserCookie(user)
    const sid = JSON.parse(atob((accessToken.split('.')[1] as string).replace(/-/g, '+').replace(/_/g, '/'))).sid
    await db()
      .insertInto('saml_session')
      .values({
        family_id: sid,
        application_id: id,
        utilisateur_id: user.id,
        name_id: user.login,
        format_name_id: 'email',
        session_index: '_cost',
        created_at: new Date().toISOString(),
      })
      .execute()
    const application = new SAML({
      entryPoint: 'http://localhost:8787/portail-backend/saml/sso',
      issuer: 'https://slo.cost.example.test/metadata',
      callbackUrl: 'https://slo.cost.example.test/acs',
      logoutUrl: 'http://localhost:8787/portail-backend/saml/slo',
      idpCert: env.SAML_IDP_CERT as string,
      privateKey: pair.key,
      signatureAlgorithm: 'sha256',
    })
    const asked = new URL(
      await application.getLogoutUrlAsync(
        {
          issuer: '',
          nameID: user.login,
          nameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
          sessionIndex: '_cost',
        },
        '',
        {},
      ),
    )
    const ended = await visit(`${asked.pathname}${asked.search}`, {}, TIMING)
    expect(ended.status).toBe(303)
    // The service provider its issuer names; then the sessions ended, their entries and the logouts to tell.
    expect(cost(ended)).toMatchObject({ statements: 5, roundTrips: 2 })
    const sequence = /portail-saml-slo=[\w-]{43}/.exec(ended.headers.get('Set-Cookie') ?? '')?.[0] ?? ''
    const step = await visit(
      ended.headers.get('Location') as string,
      { headers: { 'Sec-Fetch-Dest': 'document', Cookie: sequence } },
      TIMING,
    )
    expect(step.status).toBe(200)
    // The sequence and whether the page's session ended: one round trip; then the answer marked sent.
    expect(cost(step)).toEqual({ statements: 2, roundTrips: 2, apiCalls: 1 })
  })

  it('the token endpoint: a code exchanged and a token refreshed in two round trips each, a service account’s token in one', async () => {
    await createOidcClient({
      libelle: 'Coût jetons',
      clientId: 'cost-token',
      secret: null,
      redirectUri: 'https://rp.cost.example.test/cb',
      fonctionId: 2,
    })
    const verifier = 'v'.repeat(43)
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
    const query = new URLSearchParams({
      client_id: 'cost-token',
      redirect_uri: 'https://rp.cost.example.test/cb',
      response_type: 'code',
      scope: 'openid',
      code_challenge: base64url(new Uint8Array(digest)),
      code_challenge_method: 'S256',
    })
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { cookie } = await browserCookie(user)
    const authorized = await visit(`/oidc/authorize?${query}`, { headers: { Cookie: cookie }, redirect: 'manual' })
    const code = new URL(authorized.headers.get('Location') as string).searchParams.get('code') as string
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      env: TIMING,
    })
    const exchanged = await call(
      '/oidc/token',
      form({
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://rp.cost.example.test/cb',
        code_verifier: verifier,
        client_id: 'cost-token',
      }),
    )
    expect(exchanged.status).toBe(200)
    // The address's failures, the budget spent (the grant is the client's), the client, the code, the
    // profile and the posts; then the code spent and the session opened.
    expect(cost(exchanged)).toMatchObject({ statements: 8, roundTrips: 2 })
    const { refresh_token } = await tokenBody(exchanged)
    const refreshed = await call(
      '/oidc/token',
      form({ grant_type: 'refresh_token', refresh_token, client_id: 'cost-token' }),
    )
    expect(refreshed.status).toBe(200)
    expect(cost(refreshed).roundTrips).toBe(2)
    const account = await insertServiceAccount({ structure: 2, scopes: 'api' })
    const serviceToken = await call(
      '/oidc/token',
      form({ grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.secret }),
    )
    expect(serviceToken.status).toBe(200)
    // The address's failures, the budget spent (the secret is the account's) and the account.
    expect(cost(serviceToken)).toEqual({ statements: 3, roundTrips: 1, apiCalls: 0 })
  })

  it('signing in is two round trips: the checks and the user, then the session; a refusal is one', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    // The client's rate, the captcha spent, the attempt counted and the user; then the count cleared,
    // the session, its log entry and its event (connexion.reussie).
    const signedIn = await loginWith({ identifiant: user.login, motDePasse: user.password }, {}, TIMING)
    expect(signedIn.status).toBe(200)
    expect(cost(signedIn)).toMatchObject({ statements: 9, roundTrips: 2 })
    const refused = await loginWith({ identifiant: user.login, motDePasse: 'Wrong123' }, {}, TIMING)
    expect(refused.status).toBe(401)
    expect(cost(refused)).toMatchObject({ statements: 5, roundTrips: 1 })
    // Without a valid captcha, only the client's rate is counted, and the user read.
    const noCaptcha = await loginWith(
      { identifiant: user.login, motDePasse: user.password, captcha: 'AAAA' },
      {},
      TIMING,
    )
    expect(noCaptcha.status).toBe(400)
    expect(cost(noCaptcha)).toMatchObject({ roundTrips: 1 })
  })

  it('the cost is shown only in development or when switched on', async () => {
    const user = await createUser()
    const { cookie } = await browserCookie(user)
    const page = await visit('/pages/user/acces', { headers: { Cookie: cookie } })
    expect(page.headers.get('Server-Timing')).toBeNull()
    expect((await call('/rest/public/health')).headers.get('Server-Timing')).toBeNull()

    const shown = await visit('/pages/user/acces', { headers: { Cookie: cookie } }, { ENVIRONMENT: 'development' })
    expect(shown.headers.get('Server-Timing')).toMatch(
      /^d1;dur=[\d.]+;desc="\d+ statements, \d+ round trips", api;dur=[\d.]+;desc="\d+ in-process calls", render;dur=[\d.]+, total;dur=[\d.]+$/,
    )
  })

  it('the layout and the page refresh an expired access token once between them', async () => {
    const user = await createUser()
    const { cookie } = await browserCookie(user, { expired: true })
    const request = new Request(`${ORIGIN}/pages/user/acces`, { headers: { Cookie: cookie } })
    // Two loaders of one request, with the same load context, as Remix runs them.
    const context = { ...uiContext, meter: createMeter() }
    const [first, second] = [
      userApi(request, context, await getSession(request, context)),
      userApi(request, context, await getSession(request, context)),
    ]
    const [a, b] = await Promise.all([first.api.rest.bd.session.$get(), second.api.rest.bd.session.$get()])
    expect([a.status, b.status]).toEqual([200, 200])
    // Both get the same rotated pair, from one refresh call: 2 refused calls, 1 refresh, 2 retries.
    expect(first.state.refreshed && second.state.refreshed).toBe(true)
    expect(context.meter.apiCalls).toBe(5)
  })
})

describe('the check of the caller', () => {
  it('a route that would answer without checking its caller in D1 fails closed', async () => {
    const api = createApp()
    api.get('/rest/bd/forgetful', (c) => c.json({ secret: true }))
    const user = await createUser()
    const { accessToken } = await sessionFor(user.id)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    const response = await api.request(
      `${ORIGIN}/portail-backend/rest/bd/forgetful`,
      { headers: { Authorization: `Bearer ${accessToken}` } },
      env,
    )
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({
      businessCode: 'TECHNICAL_ERROR',
      message: 'Technical error',
      attributs: [],
    })
    expect(errors).toHaveBeenCalledWith('GET /portail-backend/rest/bd/forgetful answered without checking its caller')
    errors.mockRestore()
  })
})

describe('D1 sessions and bookmarks (read-your-writes from replicas)', () => {
  it('a write starts at the primary and answers its bookmark; a read sent with it starts there', async () => {
    const user = await createUser()
    const { accessToken: token } = await sessionFor(user.id)
    const { DB, constraints } = recordingDb()
    const body = JSON.stringify({ nom: 'Renommé', prenom: 'Prénom', mail: `${user.login}@example.test` })
    const write = await call(`/rest/bd/utilisateur/${user.id}`, { method: 'PUT', body, token, env: { DB } })
    expect(write.status).toBe(200)
    const bookmark = write.headers.get(BOOKMARK_HEADER)
    expect(bookmark).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/)

    const read = await api(token, { DB }).rest.bd.utilisateur[':id'].$get(
      { param: { id: user.id }, query: {} },
      { headers: { [BOOKMARK_HEADER]: bookmark as string } },
    )
    expect((await okBody(read)).nom).toBe('Renommé')
    expect(constraints).toEqual(['first-primary', bookmark])
    // Bookmarks order the database's history: the read is at least as recent as the write.
    expect((read.headers.get(BOOKMARK_HEADER) as string) >= (bookmark as string)).toBe(true)
  })

  it('a read without a bookmark may start anywhere; a malformed one is ignored, not an error', async () => {
    const { DB, constraints } = recordingDb()
    expect((await call('/rest/public/health', { env: { DB } })).status).toBe(200)
    const odd = await call('/rest/public/health', { env: { DB }, headers: { [BOOKMARK_HEADER]: "x' OR 1=1" } })
    expect(odd.status).toBe(200)
    expect(constraints).toEqual(['first-unconstrained', 'first-unconstrained'])
  })

  it('the browser keeps the bookmark of its last write in a cookie, and its next page reads from there', async () => {
    const user = await createUser()
    const { cookie } = await browserCookie(user)
    const { DB, constraints } = recordingDb()
    const form = new URLSearchParams({
      intent: 'profile',
      nom: 'Nouveau',
      prenom: 'Nom',
      mail: `${user.login}@example.test`,
    })
    const saved = await visit(
      '/pages/user/me',
      {
        method: 'POST',
        body: form,
        headers: { Cookie: cookie, Origin: ORIGIN, Host: new URL(ORIGIN).host },
        redirect: 'manual',
      },
      { DB },
    )
    expect(saved.status).toBe(302)
    const set = saved.headers.getSetCookie().find((c) => c.startsWith('portail-d1='))
    expect(set).toMatch(/^portail-d1=[0-9a-f-]+; Path=\/; HttpOnly; SameSite=Lax$/)
    const bookmarkCookie = (set as string).split(';')[0] as string

    const page = await visit('/pages/user/me', { headers: { Cookie: `${cookie}; ${bookmarkCookie}` } }, { DB })
    expect(page.status).toBe(200)
    expect(constraints).toEqual(['first-primary', bookmarkCookie.split('=')[1]])
    // A page that only reads leaves the cookie as it was.
    expect(page.headers.getSetCookie().some((c) => c.startsWith('portail-d1='))).toBe(false)
  })
})
