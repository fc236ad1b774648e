// The scenario list: each on a freshly started portal, in an order that keeps the writes after the
// reads they would change; the references first, measured in the same run to compare against.

import { startWebhookReceiver } from '../../tests/webhook-receiver.mjs'
import { archiveFigures } from './archive.mjs'
import { selected } from './context.mjs'
import { admin, agent } from './database.mjs'
import {
  benchFederatedUser,
  directTokenRequests,
  providerAnswers,
  registerBenchProvider,
  startBenchUpstream,
} from './federation.mjs'
import { exportFigures, HISTORY_MONTH, HISTORY_YEAR, historyQuery } from './history.mjs'
import { benchServiceAccount, clientCredentialsRequest, serviceToken } from './machines.mjs'
import { movingFigures } from './moving.mjs'
import { benchOidcClient, OIDC_REDIRECT, OIDC_VERIFIER, oidcGrants, tokenForm } from './oidc.mjs'
import { benchRegistrations } from './registrations.mjs'
import { openedCampaign } from './reviews.mjs'
import { benchSamlApplication, samlRequests } from './saml.mjs'
import { memoryMiB, stop } from './servers.mjs'

/** u050002 of `npm run seed:large`: an agent on a site, five levels below the admin's root post. */
const LARGE_SAMPLE_USER = 150002

/**
 * The two references, the bare Worker and the one-statement floor, and the raw PBKDF2 rate of the same
 * runtime: their rows head the table and the scenarios' ratios divide by them. A bare Remix page
 * (reference-page.js) shows what the stack itself leaves of the floor to a server-rendered page.
 */
/** The provider's answers the callback's scenario sends, each once. */
const FEDERATION_ANSWERS = 3000

/** How long a scenario of one request warms the freshly started portal before it is measured. */
const WARMUP_SECONDS = 2

async function measureReferences({ startReference }, { load }, reference) {
  const referenceServer = await startReference()
  const bare = await load(`${reference}/json`)
  const floor = await load(`${reference}/d1`)
  const form = await load(`${reference}/d1-form`, clientCredentialsRequest)
  const rowsFloor = await load(`${reference}/d1-rows`)
  const write = await load(`${reference}/d1-write`)
  const page = await load(`${reference}/page`)
  // Last: the hashes still queued when the load stops would slow whatever came next.
  const hash = await load(`${reference}/pbkdf2`)
  const memory = memoryMiB(referenceServer.child.pid)
  await stop(referenceServer.child)
  return { bare, floor, form, weight: rowsFloor, write, hash, page, memory }
}

/**
 * The references measured again after the scenarios: this machine's speed drifts by a fifth over a run, so a
 * reference's rate is the mean of both ends (each end is in the report).
 */
async function closeReferences(servers, client, reference, opening) {
  const closing = await measureReferences(servers, client, reference)
  const mean = (name) => ({ ...opening[name], rps: (opening[name].rps + closing[name].rps) / 2 })
  const references = {
    bare: mean('bare'),
    floor: mean('floor'),
    write: mean('write'),
    form: mean('form'),
    weight: mean('weight'),
    hash: mean('hash'),
    page: mean('page'),
  }
  const ends = Object.fromEntries(Object.keys(references).map((name) => [name, [opening[name].rps, closing[name].rps]]))
  return {
    ...references,
    ends,
    memory: opening.memory,
    rows: [
      { name: 'reference: bare Worker (JSON)', ...references.bare, statements: 0, kind: 'reference' },
      { name: 'reference: one D1 statement', ...references.floor, statements: 1, kind: 'reference' },
      // What a call that must count itself (a rate limit, a program's calls) starts from.
      { name: 'reference: one D1 write (a counter’s upsert)', ...references.write, statements: 1, kind: 'reference' },
      {
        name: 'reference: one D1 statement, a POST whose form is read',
        ...references.form,
        statements: 1,
        kind: 'reference',
      },
      {
        name: 'reference: one D1 statement of 100 rows, ~78 KB answered',
        ...references.weight,
        statements: 1,
        kind: 'reference',
      },
      { name: 'reference: raw PBKDF2-SHA512 100k', ...references.hash, statements: 0, kind: 'reference' },
      { name: 'reference: a Remix page, one D1 statement (SSR)', ...references.page, statements: 1, kind: 'reference' },
    ],
  }
}

/**
 * Runs every scenario `--only` selects, in order, after the references; `persistTo` is the portal's D1,
 * written between two scenarios, `benchLogins` the copies of the agent that sign in concurrently.
 * Returns the table's rows, the export's and the references the ratios divide by.
 */
export async function runScenarios(ctx, { persistTo, scratch, servers, client, benchLogins }) {
  const { options, api, base, reference, port, connections, duration } = ctx
  const { startPortal } = servers
  const { solvedCaptcha, login, browserCookie, statementsOf, load } = client
  const { oidcCodes, oidcSessions } = oidcGrants(ctx, login)
  const opening = await measureReferences(servers, client, reference)
  // The OpenID Connect and sign-in scenarios size what they prepare by the opening rates.
  const { floor, hash } = opening
  const rows = []

  /**
   * One scenario on a freshly started portal (local D1 keeps ~20 KiB per statement: restart each time). A scenario of
   * one request (`url`) is first driven for `WARMUP_SECONDS`, not counted: the references it is divided by are
   * measured on a Worker already serving, its code compiled and optimised. One whose requests are single use
   * (`run`: codes, rotated tokens, sign-ins) is warmed as long by its `warm` when it has requests to spare for it (the
   * SAML page's kept requests), else measured from its first request.
   */
  async function scenario(name, kind, prepare) {
    if (!selected(options, name)) return
    const { child } = await startPortal()
    try {
      const { url, init = {}, run, warm, own, statements: counted } = await prepare()
      const statements = counted ?? (url ? await statementsOf(url, init) : null)
      if (url) await load(url, { ...init, seconds: WARMUP_SECONDS })
      if (warm) await warm(WARMUP_SECONDS)
      const result = run ? await run() : await load(url, init)
      rows.push({ name, kind, statements, own, ...result, memory: memoryMiB(child.pid) })
      process.stderr.write(`${name}: ${result.rps.toFixed(0)} req/s\n`)
    } finally {
      await stop(child)
    }
  }

  await scenario('GET rest/public/health', 'read', async () => ({ url: `${api}/public/health` }))
  await scenario('GET rest/bd/acces/utilisateur/{id}', 'read', async () => {
    const session = await login(agent.login, agent.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/acces/utilisateur/${session.user.id}`, init: { headers } }
  })
  await scenario('GET rest/bd/demande/applications (what the agent may ask for)', 'read', async () => {
    const session = await login(agent.login, agent.password)
    return {
      url: `${api}/bd/demande/applications`,
      init: { headers: { Authorization: `Bearer ${session.jwt.accessToken}` } },
    }
  })
  await scenario('GET rest/bd/demande/aTraiter?page=1 (the requests waiting, admin of the root)', 'read', async () => {
    const session = await login(admin.login, admin.password)
    return {
      url: `${api}/bd/demande/aTraiter?page=1`,
      init: { headers: { Authorization: `Bearer ${session.jwt.accessToken}` } },
    }
  })
  await scenario('GET rest/bd/utilisateur/{id}', 'read', async () => {
    const session = await login(agent.login, agent.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/utilisateur/${session.user.id}`, init: { headers } }
  })
  // The list of one's sessions: the agent's every sign-in of the run, each with what it launched.
  await scenario('GET rest/bd/session/liste', 'read', async () => {
    const session = await login(agent.login, agent.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/session/liste`, init: { headers } }
  })
  // The account security page's read: the caller's factors (TOTP, passkeys, recovery codes left).
  await scenario('GET rest/bd/mfa', 'read', async () => {
    const session = await login(agent.login, agent.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/mfa`, init: { headers } }
  })
  await scenario('GET rest/bd/utilisateur/{id} (admin, a user in scope)', 'read', async () => {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    // In the large organisation, one of its 100 000 users (with a current post on a site).
    const target = options.large ? LARGE_SAMPLE_USER : (await login(agent.login, agent.password)).user.id
    return { url: `${api}/bd/utilisateur/${target}`, init: { headers } }
  })
  /** An administrator of a leaf: a site of the large organisation (adminsite), else the demo's southern direction. */
  const leafAdmin = options.large
    ? { login: 'adminsite', password: admin.password }
    : { login: 'adminsud', password: 'Adminsud1' }
  for (const [who, account] of [
    ['admin of the root', admin],
    ['admin of a leaf', leafAdmin],
  ]) {
    await scenario(`GET rest/bd/structure/user/me?users=true&page=1 (${who})`, 'read', async () => {
      const session = await login(account.login, account.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/structure/user/me?users=true&page=1`, init: { headers } }
    })
  }
  for (const [who, account] of [
    ['admin of the root', admin],
    ['admin of a leaf', leafAdmin],
  ]) {
    for (const [what, query] of [
      ['first page', 'page=1'],
      ['filtered page', 'page=2&q=ma&actif=true&poste=true&tri=-prenom'],
    ]) {
      await scenario(`GET rest/bd/utilisateur/liste?${query} (${who}, ${what})`, 'read', async () => {
        const session = await login(account.login, account.password)
        const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
        return { url: `${api}/bd/utilisateur/liste?${query}`, init: { headers } }
      })
    }
  }
  // The administration home: the user lists' totals (kept after the first count of the day), the queue,
  // the posts ending within 30 days, and a month of sign-ins and launches counted from the history.
  for (const [who, account] of [
    ['admin of the root', admin],
    ['admin of a leaf', leafAdmin],
  ]) {
    await scenario(`GET rest/bd/accueil (${who})`, 'read', async () => {
      const session = await login(account.login, account.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/accueil`, init: { headers } }
    })
  }
  // An access review over the whole organisation, opened on the queue (timed), then a reviewer's page of 50 items of
  // it: the root's administrator sees every item, a site's sees its own.
  const campaign = await openedCampaign(ctx, servers, client, persistTo)
  for (const [who, account] of [
    ['admin of the root', admin],
    ['admin of a leaf', leafAdmin],
  ]) {
    await scenario(`GET rest/bd/revue/{id} (a campaign and its progress, ${who})`, 'read', async () => {
      const session = await login(account.login, account.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/revue/${campaign.id}`, init: { headers } }
    })
    await scenario(
      `GET rest/bd/revue/{id}/elements?page=1&taille=50 (a reviewer's 50 items, ${who})`,
      'read',
      async () => {
        const session = await login(account.login, account.password)
        const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
        return { url: `${api}/bd/revue/${campaign.id}/elements?page=1&taille=50`, init: { headers } }
      },
    )
    // The reviewer's page's one call: both reads above in one round trip.
    await scenario(
      `GET rest/bd/revue/{id}?elements=50 (the campaign and 50 items in one call, ${who})`,
      'read',
      async () => {
        const session = await login(account.login, account.password)
        const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
        return { url: `${api}/bd/revue/${campaign.id}?elements=50`, init: { headers } }
      },
    )
  }
  await scenario('GET /pages/admin/revues/{id} (SSR, a reviewer’s 50 items, admin of the root)', 'page', async () => ({
    url: `${base}/pages/admin/revues/${campaign.id}`,
    init: { headers: { Cookie: await browserCookie(admin.login, admin.password) } },
  }))
  await scenario('GET /pages/admin/revues/{id} (SSR, a reviewer’s 50 items, admin of a leaf)', 'page', async () => ({
    url: `${base}/pages/admin/revues/${campaign.id}`,
    init: { headers: { Cookie: await browserCookie(leafAdmin.login, leafAdmin.password) } },
  }))
  await scenario('GET rest/bd/utilisateur/structure/{id}?page=1 (admin of the root, a site)', 'read', async () => {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/utilisateur/structure/${options.large ? 2000 : 4}?page=1`, init: { headers } }
  })
  await scenario('GET rest/public/bd/transporteur/structures (anonymous)', 'read', async () => ({
    url: `${api}/public/bd/transporteur/structures`,
  }))
  for (const query of ['', '?page=1&tri=nom']) {
    // The authorisation queue: 300 pending registrations in the large organisation, 3 in the demo.
    await scenario(`GET rest/bd/authorize/get/user/all${query} (admin of the root)`, 'read', async () => {
      const session = await login(admin.login, admin.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/authorize/get/user/all${query}`, init: { headers } }
    })
  }

  // The catalogue as a root administrator reads it: each application with its grants and how many users
  // may launch it today (a count over the posts of its granting functions).
  for (const query of ['?page=1', '?page=1&tri=-nbUtilisateurs']) {
    await scenario(`GET rest/bd/application${query} (admin of the root)`, 'read', async () => {
      const session = await login(admin.login, admin.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/application${query}`, init: { headers } }
    })
  }
  // The templates screen: every structure type's template and the catalogue to choose grants from.
  await scenario('GET rest/bd/typestructure/fonctions (admin of the root)', 'read', async () => {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/typestructure/fonctions`, init: { headers } }
  })

  // The audit history (a million entries over two years in the large organisation, a few sign-ins in
  // the demo). Its target: a month's first page within a p99 of 250 ms on the large organisation, for
  // the root's administrator (every entry in scope) as for a leaf's (few of the range's entries in scope).
  for (const [who, account] of [
    ['admin of the root', admin],
    ['admin of a leaf', leafAdmin],
  ]) {
    const template = `${HISTORY_MONTH}&page=1&taille=10`
    await scenario(`GET rest/bd/logs/?${template} (history: a month, page 1, ${who})`, 'read', async () => {
      const session = await login(account.login, account.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/logs/?${historyQuery(template)}`, init: { headers } }
    })
  }
  for (const [what, template] of [
    // Martin is the large organisation's most frequent last name: the search keeps many of the range's entries.
    ['a month, searched', `${HISTORY_MONTH}&q=martin&page=1&taille=10`],
    // Every entry in range: the page is read newest first, the total counts all of them.
    ['no range, page 3', 'page=3&taille=10'],
  ]) {
    await scenario(`GET rest/bd/logs/?${template} (history: ${what}, admin of the root)`, 'read', async () => {
      const session = await login(admin.login, admin.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/logs/?${historyQuery(template)}`, init: { headers } }
    })
  }

  /** Figures measured once each rather than under load, printed in their own table after the scenarios'. */
  const exportRows = await exportFigures(
    ctx,
    servers,
    client,
    'GET rest/bd/logs/export (history: export, admin of the root)',
    [
      ['a month', HISTORY_MONTH],
      ['a year', HISTORY_YEAR],
    ],
  )

  await scenario('GET /pages/admin/listeStructures (SSR, admin of the root)', 'page', async () => ({
    url: `${base}/pages/admin/listeStructures`,
    init: { headers: { Cookie: await browserCookie(admin.login, admin.password) } },
  }))
  await scenario('GET /pages/admin (SSR, the administration home, admin of the root)', 'page', async () => ({
    url: `${base}/pages/admin`,
    init: { headers: { Cookie: await browserCookie(admin.login, admin.password) } },
  }))
  /**
   * The other admin pages, as the root's administrator opens them (a site and one of its users in the large
   * organisation).
   */
  const SITE = options.large ? 2000 : 4
  for (const [what, path] of [
    ['the users', () => '/pages/admin/listeUtilisateurs'],
    ['the registrations', () => '/pages/admin/autorisation'],
    ['the access requests', () => '/pages/admin/demandes'],
    ['the access reviews', () => '/pages/admin/revues'],
    ['the history', () => '/pages/admin/listeLogs'],
    ['a new structure', () => '/pages/admin/structure'],
    ['a structure', () => `/pages/admin/structure/detail/${SITE}`],
    ["a structure's users", () => `/pages/admin/user/structure/${SITE}`],
    ['a new user', () => '/pages/admin/user/new'],
    ['a structure searched in a choice', () => '/pages/admin/structure/choix?structureRecherche=agence'],
    [
      'a user',
      async () =>
        `/pages/admin/user/detail/${options.large ? LARGE_SAMPLE_USER : (await login(agent.login, agent.password)).user.id}`,
    ],
    ['the applications', () => '/pages/admin/applications'],
    ['an application', () => '/pages/admin/applications/1'],
    ['the templates', () => '/pages/admin/modeles'],
    ['a template', () => '/pages/admin/modeles/2'],
  ]) {
    await scenario(`GET /pages/admin/… (SSR, ${what}, admin of the root)`, 'page', async () => ({
      url: `${base}${await path()}`,
      init: { headers: { Cookie: await browserCookie(admin.login, admin.password) } },
    }))
  }
  await scenario('GET /login (SSR, anonymous)', 'page', async () => ({ url: `${base}/login` }))
  await scenario('GET /pages/user/acces (SSR)', 'page', async () => ({
    url: `${base}/pages/user/acces`,
    init: { headers: { Cookie: await browserCookie(agent.login, agent.password) } },
  }))
  await scenario('GET /pages/user/me (SSR)', 'page', async () => ({
    url: `${base}/pages/user/me`,
    init: { headers: { Cookie: await browserCookie(agent.login, agent.password) } },
  }))
  await scenario('GET /pages/user/securite (SSR)', 'page', async () => ({
    url: `${base}/pages/user/securite`,
    init: { headers: { Cookie: await browserCookie(agent.login, agent.password) } },
  }))
  /**
   * A link to confirm a new address, as the mail carries it (read from the development mailbox). Asked
   * by the first bench account still under its hourly cap of address changes (the large organisation's
   * D1 is kept from run to run).
   */
  async function mailChangeLink() {
    for (const benchLogin of benchLogins) {
      const session = await login(benchLogin, agent.password)
      const response = await fetch(`${api}/bd/utilisateur/${session.user.id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${session.jwt.accessToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          nom: session.user.nom,
          prenom: session.user.prenom,
          mail: `bench.${Date.now()}@bench.example`,
        }),
      })
      if (response.status === 429) continue
      if (!response.ok) throw new Error(`address change ${response.status}`)
      const mails = await (await fetch(`${api}/dev/mails`)).json()
      const confirmation = mails.find((mail) => mail.kind === 'MAIL_CHANGE_CONFIRM')
      const { links } = await (await fetch(`${api}/dev/mails/${confirmation.id}`)).json()
      return new URL(links[0]).pathname
    }
    throw new Error('every bench account is at its hourly cap of address changes')
  }
  await scenario('GET rest/public/bd/utilisateur/mail/token/{token}', 'read', async () => {
    const token = (await mailChangeLink()).split('/').pop()
    return { url: `${api}/public/bd/utilisateur/mail/token/${token}` }
  })
  await scenario('GET /confirmMail/{token} (SSR)', 'page', async () => ({ url: `${base}${await mailChangeLink()}` }))
  await scenario('POST login/refreshToken (rotation)', 'read', async () => {
    // Each connection rotates its own session: every request spends the token the previous one got.
    const sessions = []
    for (let i = 0; i < connections; i++) sessions.push((await login(agent.login, agent.password)).jwt.refreshToken)
    let next = 0
    const requests = [
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        setupRequest(request, context) {
          context.token ??= sessions[next++ % sessions.length]
          return { ...request, body: JSON.stringify({ refreshToken: context.token }) }
        },
        onResponse(status, body, context) {
          if (status === 200) context.token = JSON.parse(body).refreshToken
        },
      },
    ]
    return { run: () => load(`${api}/public/bd/login/refreshToken`, { requests }) }
  })
  // The OpenID Connect client, the SAML application and the service account, written between two scenarios (no portal
  // running).
  benchOidcClient(persistTo)
  benchSamlApplication(persistTo)
  benchServiceAccount(persistTo)

  // A program's way in: the client credentials grant (a secret's SHA-256, no password hash), then SCIM as
  // an HR system reads it (Entra ID looks a user up by userName before each change) and a page of it.
  await scenario('POST oidc/token (client_credentials, a service account)', 'read', async () => ({
    url: `${base}/portail-backend/oidc/token`,
    init: clientCredentialsRequest,
    own: 'form',
  }))
  for (const [what, query] of [
    ['filter userName eq', `filter=${encodeURIComponent('userName eq "agent"')}`],
    ['a page of 100', 'startIndex=101&count=100'],
  ]) {
    await scenario(`GET scim/v2/Users (${what}, an account of the root)`, 'read', async () => {
      const headers = { Authorization: `Bearer ${await serviceToken(base)}` }
      // A page of 100 weighs ~78 KB: beside the floor of moving as much from D1 to the client too.
      return {
        url: `${base}/portail-backend/scim/v2/Users?${query}`,
        init: { headers },
        own: what === 'a page of 100' ? 'weight' : undefined,
      }
    })
  }

  await scenario('POST oidc/token (authorization_code with PKCE, a new code each)', 'read', async () => {
    // Codes live 60 s: made just before the run, enough for the floor's rate.
    const codes = await oidcCodes(Math.ceil(floor.rps * duration) + connections)
    let next = 0
    const requests = [
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        setupRequest(request) {
          const body = tokenForm({
            grant_type: 'authorization_code',
            code: codes[next++ % codes.length],
            redirect_uri: OIDC_REDIRECT,
            code_verifier: OIDC_VERIFIER,
          })
          return { ...request, body }
        },
      },
    ]
    return { run: () => load(`${base}/portail-backend/oidc/token`, { requests }) }
  })
  await scenario('POST oidc/token (refresh_token rotation)', 'read', async () => {
    // Each connection rotates its own session, as in the portal's own refresh.
    const sessions = (await oidcSessions(connections)).map((s) => s.refresh_token)
    let next = 0
    const requests = [
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        setupRequest(request, context) {
          context.token ??= sessions[next++ % sessions.length]
          return { ...request, body: tokenForm({ grant_type: 'refresh_token', refresh_token: context.token }) }
        },
        onResponse(status, body, context) {
          if (status === 200) context.token = JSON.parse(body).refresh_token
        },
      },
    ]
    return { run: () => load(`${base}/portail-backend/oidc/token`, { requests }) }
  })
  await scenario(
    'GET rest/bd/oidc/appareil (a device’s pending code looked up on /appareil, the agent)',
    'read',
    async () => {
      // One device's request (codes live 10 minutes): a right code costs no try, whatever the rate.
      const session = await login(agent.login, agent.password)
      const asked = await fetch(`${base}/portail-backend/oidc/device_authorization`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: tokenForm({ scope: 'openid' }),
      })
      const { user_code } = await asked.json()
      return {
        url: `${api}/bd/oidc/appareil?code=${user_code}`,
        init: { headers: { Authorization: `Bearer ${session.jwt.accessToken}` } },
      }
    },
  )
  await scenario(
    'GET /saml/connexion (SSR, a signed SAML response to a request kept, the agent signed in)',
    'page',
    async () => {
      // Each request is answered once: kept just before the run (they wait 6 minutes), enough for the floor's rate
      // through the warm-up and the run.
      const names = await samlRequests(base, Math.ceil(floor.rps * (duration + WARMUP_SECONDS)) + 2 * connections)
      const cookie = await browserCookie(agent.login, agent.password)
      let next = 0
      const requests = [
        {
          method: 'GET',
          headers: { Cookie: cookie, 'Sec-Fetch-Dest': 'document' },
          setupRequest(request) {
            return { ...request, path: `/saml/connexion?demande=${names[next++ % names.length]}` }
          },
        },
      ]
      return {
        warm: (seconds) => load(`${base}/saml/connexion`, { requests, seconds }),
        run: () => load(`${base}/saml/connexion`, { requests }),
      }
    },
  )
  const federation =
    'POST rest/public/bd/fournisseur/retour (a partner provider’s answer: code exchanged, ID token checked, signed in)'
  if (selected(options, federation)) {
    // A partner's employee signing in with their company's account, as every sign-in after the first: the code
    // exchanged at the provider's token endpoint (oidc-provider, a process of its own on this machine), the ID token
    // checked against its keys, the linked user's session opened. Each answer is spent once: all are made before the
    // run, which sends each once (a number of requests, not a duration).
    benchFederatedUser(persistTo)
    const upstream = await startBenchUpstream(base)
    try {
      await scenario(federation, 'write', async () => {
        const root = await login(admin.login, admin.password)
        const id = await registerBenchProvider(api, root.jwt.accessToken, upstream.issuer)
        const warmCount = 10 * connections
        const answers = await providerAnswers(api, id, 1 + warmCount + FEDERATION_ANSWERS)
        const headers = { 'Content-Type': 'application/json' }
        const url = `${api}/public/bd/fournisseur/retour`
        const statements = await statementsOf(url, { method: 'POST', headers, body: JSON.stringify(answers[0]) })
        let next = 1
        const requests = [
          {
            method: 'POST',
            headers,
            setupRequest: (request) => ({ ...request, body: JSON.stringify(answers[next++]) }),
          },
        ]
        return {
          statements,
          warm: () => load(url, { requests, amount: warmCount }),
          run: () => load(url, { requests, amount: FEDERATION_ANSWERS }),
        }
      })
      // What the callback waits on, measured alone with no portal running: its floor of its own.
      const requests = await directTokenRequests(base, upstream.issuer, FEDERATION_ANSWERS)
      const alone = await load(`${upstream.issuer}/token`, { requests, amount: FEDERATION_ANSWERS })
      rows.push({
        name: 'reference: the partner provider’s token endpoint alone (oidc-provider on Node, a code each)',
        kind: 'reference',
        statements: 0,
        ...alone,
      })
    } finally {
      upstream.child.kill()
    }
  }
  await scenario('GET oidc/userinfo (profile, email and current posts)', 'read', async () => {
    const [session] = await oidcSessions(1)
    return {
      url: `${base}/portail-backend/oidc/userinfo`,
      init: { headers: { Authorization: `Bearer ${session.access_token}` } },
    }
  })

  // A write that tells integrators (issue 65): the same change of a post's dates without a webhook subscription, then
  // with one (its event fanned out to a delivery in the batch, the queue's message after the answer); then how fast
  // the queue delivers what that run left, signed, to a receiver on this machine that answers at once.
  const posteWrite = async (moves = 'end') => {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}`, 'Content-Type': 'application/json' }
    const agentId = (await login(agent.login, agent.password)).user.id
    const user = await (await fetch(`${api}/bd/utilisateur/${agentId}`, { headers })).json()
    const poste = user.postesEnCours[0]
    const body = JSON.stringify({ id: poste.id, dateDebut: poste.dateDebut, dateFin: poste.dateFin })
    // Each request moves the end a day, then back: a real change each time (the same dates again tell nothing).
    const [d, m, y] = poste.dateFin.split('/')
    const later = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d) + 1)).toISOString().slice(0, 10)
    const ends = [poste.dateFin, later.split('-').reverse().join('/')]
    // Or the start, from its day to tomorrow and back: the post stops and starts counting, so that each write tells
    // the applications its function grants lost, then gained (acces.retire, acces.accorde).
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10).split('-').reverse().join('/')
    const starts = [poste.dateDebut, tomorrow]
    let next = 0
    const requests = [
      {
        method: 'PUT',
        headers,
        setupRequest(request) {
          const turn = next++ % 2
          const dates =
            moves === 'end'
              ? { dateDebut: poste.dateDebut, dateFin: ends[turn] }
              : { dateDebut: starts[turn], dateFin: poste.dateFin }
          return { ...request, body: JSON.stringify({ id: poste.id, ...dates }) }
        },
      },
    ]
    return { headers, init: { method: 'PUT', headers, body }, requests }
  }
  await scenario('PUT rest/bd/poste (a post’s dates, no webhook subscription)', 'write', async () => {
    const { init, requests } = await posteWrite()
    return { url: `${api}/bd/poste`, init, run: () => load(`${api}/bd/poste`, { requests }) }
  })
  await scenario(
    'PUT rest/bd/poste (a post’s start moved across today: its access told each time)',
    'write',
    async () => {
      const { init, requests } = await posteWrite('start')
      return {
        url: `${api}/bd/poste`,
        init,
        run: async () => {
          const result = await load(`${api}/bd/poste`, { requests })
          // The post as it was, counting today, for the scenarios after this one: once the requests the load left in
          // flight are answered.
          await new Promise((resolve) => setTimeout(resolve, 3000))
          const restored = await fetch(`${api}/bd/poste`, init)
          if (restored.status !== 200) throw new Error(`post restored: ${restored.status} ${await restored.text()}`)
          return result
        },
      }
    },
  )
  // An integrator's receiver on this machine (tests/webhook-receiver.mjs), answering 204 at once.
  const receiver = await startWebhookReceiver({ unref: true })
  await scenario('PUT rest/bd/poste (a post’s dates, one webhook subscription)', 'write', async () => {
    const { headers, init, requests } = await posteWrite()
    const subscribed = await fetch(`${api}/bd/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.origin}/ok/bench`, evenements: ['poste.*'], structure: { id: 1 } }),
    })
    if (subscribed.status !== 201)
      throw new Error(`webhook subscription ${subscribed.status} ${await subscribed.text()}`)
    const { id } = await subscribed.json()
    const pending = async () =>
      Number(
        (await fetch(`${api}/bd/webhook/${id}/livraisons?etat=EN_ATTENTE&taille=1`, { headers })).headers.get(
          'X-Total-Count',
        ),
      )
    return {
      url: `${api}/bd/poste`,
      init,
      run: async () => {
        const result = await load(`${api}/bd/poste`, { requests })
        // What the run left waiting, delivered by the queue's consumer: counted until none waits (2 minutes at most).
        const started = performance.now()
        const waiting = await pending()
        let left = waiting
        while (left > 0 && performance.now() - started < 120_000) {
          await new Promise((resolve) => setTimeout(resolve, 500))
          left = await pending()
        }
        const seconds = (performance.now() - started) / 1000
        rows.push({
          name: `webhook deliveries from the queue (${waiting - left} of ${waiting} left by the run, signed, to a receiver answering at once)`,
          kind: 'write',
          statements: null,
          rps: (waiting - left) / seconds,
          errors: left,
        })
        await fetch(`${api}/bd/webhook/${id}`, { method: 'DELETE', headers })
        return result
      },
    }
  })

  // The reads integrators and administrators wait for (issue 65): a subscription with 40 events of its own, each told
  // in the batch that changed a post's dates; then the pull of the events, the delivery log, and the log's page.
  const webhookReads = async () => {
    const { headers, requests } = await posteWrite()
    const subscribed = await fetch(`${api}/bd/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.origin}/ok/bench-reads`, evenements: ['poste.*'], structure: { id: 1 } }),
    })
    if (subscribed.status !== 201)
      throw new Error(`webhook subscription ${subscribed.status} ${await subscribed.text()}`)
    const { id } = await subscribed.json()
    const [change] = requests
    for (let n = 0; n < 40; n++) {
      const { body } = change.setupRequest({})
      const changed = await fetch(`${api}/bd/poste`, { method: 'PUT', headers, body })
      if (!changed.ok) throw new Error(`post change ${changed.status} ${await changed.text()}`)
    }
    // Measured once the queue has delivered them (a minute at most): the reads alone, not the consumer's work beside.
    const waiting = async () =>
      Number(
        (await fetch(`${api}/bd/webhook/${id}/livraisons?etat=EN_ATTENTE&taille=1`, { headers })).headers.get(
          'X-Total-Count',
        ),
      )
    for (const started = performance.now(); (await waiting()) > 0 && performance.now() - started < 60_000; ) {
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    const reading = { Authorization: headers.Authorization }
    /** The run, then the subscription deleted: the next scenario's writes tell no one else. */
    const measured = (url, init) => async () => {
      const result = await load(url, init)
      await fetch(`${api}/bd/webhook/${id}`, { method: 'DELETE', headers })
      return result
    }
    return { headers: reading, id, measured }
  }
  await scenario('GET rest/bd/evenements?limite=50 (the pull, admin of the root)', 'read', async () => {
    const { headers, measured } = await webhookReads()
    const url = `${api}/bd/evenements?limite=50`
    return { url, init: { headers }, run: measured(url, { headers }) }
  })
  await scenario('GET rest/bd/webhook/{id}/livraisons?page=1 (a subscription’s delivery log)', 'read', async () => {
    const { headers, id, measured } = await webhookReads()
    const url = `${api}/bd/webhook/${id}/livraisons?page=1`
    return { url, init: { headers }, run: measured(url, { headers }) }
  })
  await scenario('GET /pages/admin/webhooks/{id} (SSR, a subscription’s delivery log)', 'page', async () => {
    const { id, measured } = await webhookReads()
    const url = `${base}/pages/admin/webhooks/${id}`
    const init = { headers: { Cookie: await browserCookie(admin.login, admin.password) } }
    return { url, init, run: measured(url, init) }
  })

  if (!options.large) {
    // Registrations pile up in the D1 they run on: only on the demo organisation, made for each run.
    await scenario('POST rest/public/bd/transporteur/inscription (a new company each)', 'write', async () => {
      const captchas = []
      for (let i = 0; i < Math.ceil(floor.rps * duration) + connections; i++) captchas.push(await solvedCaptcha())
      let next = 0
      const run = Date.now()
      const requests = [
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          setupRequest(request) {
            const n = next++
            const body = {
              user: { mail: `carrier${run}.${n}@bench.example`, nom: 'Transporteur', prenom: 'Banc' },
              structure: { nom: `Bench ${run % 100000} ${n}` },
              captcha: captchas[n],
            }
            return { ...request, body: JSON.stringify(body) }
          },
        },
      ]
      return { run: () => load(`${api}/public/bd/transporteur/inscription`, { requests }) }
    })
  }
  if (!options.large && selected(options, 'POST rest/bd/authorize/user (authorise, a different registration each)')) {
    benchRegistrations(persistTo, port)
    await scenario('POST rest/bd/authorize/user (authorise, a different registration each)', 'write', async () => {
      const session = await login(admin.login, admin.password)
      const ids = await (
        await fetch(`${api}/bd/authorize/get/user/all?tri=mail`, {
          headers: { Authorization: `Bearer ${session.jwt.accessToken}` },
        })
      ).json()
      // Each once (a second authorisation would be a resend, five an hour at most).
      const pending = ids.filter((user) => user.mail.endsWith('@bench.example')).map((user) => user.id)
      let next = 0
      const requests = [
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session.jwt.accessToken}` },
          setupRequest(request) {
            return {
              ...request,
              body: JSON.stringify({ user: { id: pending[next++ % pending.length] }, authorize: true }),
            }
          },
        },
      ]
      return { run: () => load(`${api}/bd/authorize/user`, { requests }) }
    })
  }
  await scenario('POST rest/public/bd/login (PBKDF2)', 'hash', async () => {
    // A solved captcha per sign-in (single use), solved beforehand so that the client costs nothing.
    const needed = Math.ceil(hash.rps * duration * 1.5) + connections
    const captchas = []
    for (let i = 0; i < needed; i++) captchas.push(await solvedCaptcha())
    let next = 0
    let accounts = 0
    const requests = [
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        // Each connection signs in as its own account, again and again.
        setupRequest(request, context) {
          context.login ??= benchLogins[accounts++ % benchLogins.length]
          const body = { identifiant: context.login, motDePasse: agent.password, captcha: captchas[next++] }
          return { ...request, body: JSON.stringify(body) }
        },
      },
    ]
    return { run: () => load(`${api}/public/bd/login`, { requests }) }
  })

  // Last: it writes 100 000 users into the organisation (and takes them out again).
  const moving = await movingFigures(ctx, servers, client, { persistTo, scratch })
  // The large organisation's history archived, searched and exported (and put back as it was).
  const archive = await archiveFigures(ctx, servers, client, { persistTo, scratch })

  const references = await closeReferences(servers, client, reference, opening)
  return {
    rows: [...references.rows, ...rows],
    exportRows,
    moving,
    archive,
    campaign: campaign?.figures ?? null,
    references,
  }
}
