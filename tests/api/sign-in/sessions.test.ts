import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { logLabel } from '../../../worker-api/contract/log-labels'
import type { PortalSession } from '../../../worker-api/contract/sign-in/sessions'
import { api, okBody } from '../client'
import {
  call,
  changedBeforeWrite,
  createOidcClient,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  insertServiceAccount,
  refreshWith,
  serviceAccountToken,
  sessionFor,
  solvedCaptcha,
} from '../helpers'
import { oauthErrorCode, tokenBody } from '../oauth-answers'

/**
 * The list of a user's open sessions and their ending (DESIGN §3): GET rest/bd/session/liste,
 * DELETE rest/bd/session/{id} and session/autres, and an administrator's GET and DELETE
 * rest/bd/utilisateur/{id}/sessions — on real sign-ins, launch codes and OpenID Connect sessions.
 */

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'

/** The OpenID Connect client of these tests: confidential, granted to Agent de quai, with a back-channel address. */
const OIDC = { clientId: 'sessions-rp', secret: 'sessions-secret', redirect: 'https://rp.sessions.example.test/cb' }
/** A PKCE pair: the verifier and its challenge (SHA-256, base64url). */
const VERIFIER = 'dBjftJeZ4CQP-pQRbUbi5NjpF9ys3RTOBsf7SQ4lhWI'
const CHALLENGE = '_QW7SKKyK6JAe1ojBiIk8abAYDNYypK3Fr61-IUp5jI'
let oidcApplication: number

beforeAll(async () => {
  await createOrganisation()
  oidcApplication = await createOidcClient({
    libelle: 'Annuaire OIDC',
    clientId: OIDC.clientId,
    secret: OIDC.secret,
    redirectUri: OIDC.redirect,
    fonctionId: 2,
  })
  // Not deliverable from the tests (https, outside development): the delivery waits, visible in D1.
  await db()
    .updateTable('oidc_client')
    .set({ backchannel_logout_uri: 'https://rp.sessions.example.test/backchannel' })
    .where('client_id', '=', OIDC.clientId)
    .execute()
})

/** A sign-in through the API from a browser: its tokens and the session's id (the access token's `sid`). */
async function signInFrom(user: { login: string; password: string }, userAgent: string) {
  const { jwt } = await okBody(
    api().rest.public.bd.login.$post(
      { json: { identifiant: user.login, motDePasse: user.password, captcha: await solvedCaptcha() } },
      { headers: { 'User-Agent': userAgent } },
    ),
  )
  const sid = JSON.parse(atob(jwt.accessToken.split('.')[1] as string)).sid as string
  return { ...jwt, sid }
}

const listOf = (token: string) => okBody(api(token).rest.bd.session.liste.$get())

/** Pesage (id 2, granted to Agent de quai) launched from a session, its code exchanged: the application's session. */
async function launchedPesage(accessToken: string) {
  const { refreshToken: code } = await okBody(
    api(accessToken).rest.bd.acces.application.$get({ query: { idApplication: 2 } }),
  )
  return okBody(api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken: code } }))
}

/** The OpenID Connect code flow from a portal session: the client's tokens. */
async function oidcSignIn(accessToken: string) {
  const decision = await okBody(
    api(accessToken).rest.bd.oidc.authorize.$post({
      json: {
        client_id: OIDC.clientId,
        redirect_uri: OIDC.redirect,
        response_type: 'code',
        scope: 'openid',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
      },
    }),
  )
  expect(decision.action).toBe('redirect')
  const url = decision.action === 'redirect' ? decision.url : ''
  const code = new URL(url).searchParams.get('code') as string
  const tokens = await oidcToken({
    grant_type: 'authorization_code',
    code,
    redirect_uri: OIDC.redirect,
    code_verifier: VERIFIER,
  })
  expect(tokens.status).toBe(200)
  return tokenBody(tokens)
}

const oidcToken = (fields: Record<string, string>) =>
  call('/oidc/token', {
    method: 'POST',
    body: new URLSearchParams({ ...fields, client_id: OIDC.clientId, client_secret: OIDC.secret }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })

const alive = async (accessToken: string) => (await call('/rest/bd/session', { token: accessToken })).status

const logsOf = (userId: number) =>
  db()
    .selectFrom('log')
    .select(['type_log', 'nom_log', 'commentaire', 'nom_navigateur'])
    .where('utilisateur_id', '=', userId)
    .where('type_log', 'in', ['DECONNEXION', 'ADMINISTRATION'])
    .orderBy('id')
    .execute()

const mailsTo = (userId: number) =>
  db().selectFrom('outbox').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()

describe('GET rest/bd/session/liste', () => {
  it("lists the caller's open sessions, the latest used first, theirs marked, with the browser, the times and what each launched", async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const firefox = await signInFrom(user, FIREFOX)
    const chrome = await signInFrom(user, CHROME)
    // Firefox's session used last: a refresh (a rotation row, which carries no browser) and two launches.
    const refreshed = await okBody(
      api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken: firefox.refreshToken } }),
    )
    await launchedPesage(firefox.accessToken)
    await oidcSignIn(firefox.accessToken)
    // A launch code not exchanged yet opens no application's session.
    expect((await call('/rest/bd/acces/application?idApplication=1', { token: chrome.accessToken })).status).toBe(200)
    // Neither a signed-out session nor one past its idle end is open.
    const signedOut = await signInFrom(user, CHROME)
    expect((await call('/rest/bd/logout', { method: 'POST', token: signedOut.accessToken })).status).toBe(204)
    const idle = await signInFrom(user, CHROME)
    await db()
      .updateTable('refresh_token')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('family_id', '=', idle.sid)
      .execute()

    const sessions = await listOf(chrome.accessToken)
    expect(sessions.map((s) => [s.id, s.courante])).toEqual([
      [firefox.sid, false],
      [chrome.sid, true],
    ])
    const [first, second] = sessions as [PortalSession, PortalSession]
    expect(first).toMatchObject({
      navigateur: 'Firefox',
      versionNavigateur: '128.0',
      applications: [
        { id: oidcApplication, libelle: 'Annuaire OIDC' },
        { id: 2, libelle: 'Pesage' },
      ],
    })
    expect(second).toMatchObject({ navigateur: 'Chrome', versionNavigateur: '126.0.0.0', applications: [] })
    expect(Date.parse(first.derniereUtilisation)).toBeGreaterThan(Date.parse(first.creation))
    expect(second.derniereUtilisation).toBe(second.creation)
    expect(Object.keys(first).sort()).toEqual(
      [
        'appareil',
        'applications',
        'courante',
        'creation',
        'derniereUtilisation',
        'id',
        'navigateur',
        'versionNavigateur',
      ].sort(),
    )
    // A browser's session is no device's (the device authorization grant's: tests/api/oidc/oidc-device.test.ts).
    expect(first.appareil).toBeNull()
    // The other session sees the same list, itself marked (the same session after its refresh too).
    expect((await listOf(firefox.accessToken)).map((s) => s.courante)).toEqual([true, false])
    const { accessToken: rotated } = refreshed
    expect((await listOf(rotated)).map((s) => s.courante)).toEqual([true, false])
  })

  it("refuses an application's session and a signed-out one", async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(user.id)
    const application = await launchedPesage(session.accessToken)
    await expectError(
      await call('/rest/bd/session/liste', { token: application.accessToken }),
      403,
      'APPLICATION_TOKEN_SCOPE',
    )
    await call('/rest/bd/logout', { method: 'POST', token: session.accessToken })
    expect((await call('/rest/bd/session/liste', { token: session.accessToken })).status).toBe(401)
    expect((await call('/rest/bd/session/liste')).status).toBe(401)
  })
})

describe('DELETE rest/bd/session/{id}', () => {
  it('ends the session and the applications opened from it (launch code, OpenID Connect); audited', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const ended = await signInFrom(user, FIREFOX)
    const kept = await signInFrom(user, CHROME)
    const pesage = await launchedPesage(ended.accessToken)
    const oidc = await oidcSignIn(ended.accessToken)
    const keptPesage = await launchedPesage(kept.accessToken)

    const response = await call(`/rest/bd/session/${ended.sid}`, {
      method: 'DELETE',
      token: kept.accessToken,
      headers: { 'User-Agent': CHROME },
    })
    expect(response.status).toBe(204)

    // The session is over: its refresh token and access token are refused.
    await expectError(await refreshWith(ended.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    expect(await alive(ended.accessToken)).toBe(401)
    // So are the applications' sessions it opened; the OpenID Connect client is to be told.
    await expectError(await refreshWith(pesage.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    expect(await alive(pesage.accessToken)).toBe(401)
    const oidcRefresh = await oidcToken({ grant_type: 'refresh_token', refresh_token: oidc.refresh_token })
    expect(oidcRefresh.status).toBe(400)
    expect(await oauthErrorCode(oidcRefresh)).toBe('invalid_grant')
    const oidcSid = JSON.parse(atob(oidc.id_token.split('.')[1] as string)).sid as string
    const delivery = await db()
      .selectFrom('logout_delivery')
      .select(['application_id', 'utilisateur_id'])
      .where('family_id', '=', oidcSid)
      .executeTakeFirst()
    expect(delivery).toEqual({ application_id: oidcApplication, utilisateur_id: user.id })
    // The other session, and what it launched, live on.
    expect(await alive(kept.accessToken)).toBe(200)
    expect(await alive(keptPesage.accessToken)).toBe(200)
    expect((await listOf(kept.accessToken)).map((s) => s.id)).toEqual([kept.sid])

    const logs = await logsOf(user.id)
    expect(logs).toEqual([
      {
        type_log: 'DECONNEXION',
        nom_log: 'SESSION_FIN',
        commentaire: expect.stringMatching(/^Firefox 128\.0 \(\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}\)$/),
        nom_navigateur: 'Chrome',
      },
    ])
    // Ended already: unknown now, and nothing more is written.
    await expectError(
      await call(`/rest/bd/session/${ended.sid}`, { method: 'DELETE', token: kept.accessToken }),
      404,
      'NOT_FOUND',
    )
    expect(await logsOf(user.id)).toHaveLength(1)
  })

  it("answers 404 for another user's session, which stays open, and for an application's session", async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const other = await createUser({ postes: [currentPost(4, 2)] })
    const mine = await sessionFor(user.id)
    const theirs = await sessionFor(other.id)
    const myApplication = await launchedPesage(mine.accessToken)
    const applicationFamily = await db()
      .selectFrom('refresh_token')
      .select('family_id')
      .where('parent_family_id', '=', mine.sid)
      .where('kind', '=', 'SESSION')
      .executeTakeFirstOrThrow()
    for (const id of [theirs.sid, applicationFamily.family_id, 'not-a-session', '1']) {
      await expectError(
        await call(`/rest/bd/session/${id}`, { method: 'DELETE', token: mine.accessToken }),
        404,
        'NOT_FOUND',
      )
    }
    // An administrator who manages the other user cannot end it through this call either.
    const admin = await createUser({ admin: true, postes: [currentPost(2, 1)] })
    const adminSession = await sessionFor(admin.id)
    await expectError(
      await call(`/rest/bd/session/${theirs.sid}`, { method: 'DELETE', token: adminSession.accessToken }),
      404,
      'NOT_FOUND',
    )
    expect(await alive(theirs.accessToken)).toBe(200)
    expect(await alive(myApplication.accessToken)).toBe(200)
    expect(await logsOf(user.id)).toEqual([])
    expect(await logsOf(admin.id)).toEqual([])
  })

  it('ends the current session too: a sign-out', async () => {
    const user = await createUser()
    const session = await signInFrom(user, FIREFOX)
    expect(
      (await call(`/rest/bd/session/${session.sid}`, { method: 'DELETE', token: session.accessToken })).status,
    ).toBe(204)
    expect(await alive(session.accessToken)).toBe(401)
    await expectError(await refreshWith(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
  })
})

describe('DELETE rest/bd/session/autres', () => {
  it('ends every other session of the caller and what they launched, keeps the current one; audited once', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const other = await createUser({ postes: [currentPost(4, 2)] })
    const first = await signInFrom(user, FIREFOX)
    const second = await signInFrom(user, CHROME)
    const current = await signInFrom(user, CHROME)
    const launchedFromFirst = await launchedPesage(first.accessToken)
    const launchedFromCurrent = await launchedPesage(current.accessToken)
    const othersSession = await sessionFor(other.id)

    const response = await call('/rest/bd/session/autres', { method: 'DELETE', token: current.accessToken })
    expect(response.status).toBe(204)
    for (const ended of [first, second]) {
      await expectError(await refreshWith(ended.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
      expect(await alive(ended.accessToken)).toBe(401)
    }
    expect(await alive(launchedFromFirst.accessToken)).toBe(401)
    expect(await alive(current.accessToken)).toBe(200)
    expect(await alive(launchedFromCurrent.accessToken)).toBe(200)
    expect((await refreshWith(current.refreshToken)).status).toBe(200)
    expect(await alive(othersSession.accessToken)).toBe(200)
    expect((await listOf(current.accessToken)).map((s) => s.id)).toEqual([current.sid])
    expect(await logsOf(user.id)).toEqual([
      {
        type_log: 'DECONNEXION',
        nom_log: 'SESSIONS_AUTRES_FIN',
        commentaire: expect.stringMatching(/^Chrome 126\.0\.0\.0 \(.+\), Firefox 128\.0 \(.+\)$/),
        nom_navigateur: null,
      },
    ])

    // Nothing left to end: nothing written.
    expect((await call('/rest/bd/session/autres', { method: 'DELETE', token: current.accessToken })).status).toBe(204)
    expect(await logsOf(user.id)).toHaveLength(1)
  })
})

describe('an administrator and the sessions of a user they manage', () => {
  it('lists them and ends them all; the user is told by mail who did; audited', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(2, 1)] })
    const adminSession = await sessionFor(admin.id)
    const { nom: adminNom, prenom: adminPrenom } = await db()
      .selectFrom('utilisateur')
      .select(['nom', 'prenom'])
      .where('id', '=', admin.id)
      .executeTakeFirstOrThrow()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const firefox = await signInFrom(user, FIREFOX)
    const chrome = await signInFrom(user, CHROME)
    const pesage = await launchedPesage(firefox.accessToken)
    const openCode = await okBody(
      api(chrome.accessToken).rest.bd.acces.application.$get({ query: { idApplication: 1 } }),
    )

    const sessions = await okBody(
      api(adminSession.accessToken).rest.bd.utilisateur[':id'].sessions.$get({ param: { id: user.id } }),
    )
    expect(sessions.map((s) => [s.id, s.navigateur, s.courante, s.applications.map((a) => a.id)])).toEqual([
      [chrome.sid, 'Chrome', false, []],
      [firefox.sid, 'Firefox', false, [2]],
    ])

    const ended = await call(`/rest/bd/utilisateur/${user.id}/sessions`, {
      method: 'DELETE',
      token: adminSession.accessToken,
    })
    expect(ended.status).toBe(204)
    for (const session of [firefox, chrome, pesage]) {
      expect(await alive(session.accessToken)).toBe(401)
      await expectError(await refreshWith(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    }
    await expectError(await refreshWith(openCode.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    expect(await alive(adminSession.accessToken)).toBe(200)

    const mails = await mailsTo(user.id)
    expect(mails.map((m) => [m.kind, m.to_address, m.subject])).toEqual([
      ['SESSIONS_ENDED', `${user.login}@example.test`, 'Vos sessions ont été fermées'],
    ])
    expect(mails[0]?.text).toContain(`${adminPrenom} ${adminNom}, administrateur du portail, a fermé`)
    expect(await logsOf(admin.id)).toEqual([
      {
        type_log: 'ADMINISTRATION',
        nom_log: 'UTILISATEUR_SESSIONS_FIN',
        commentaire: `#${user.id} ${user.login}`,
        nom_navigateur: null,
      },
    ])
    expect((await call(`/rest/bd/utilisateur/${user.id}/sessions`, { token: adminSession.accessToken })).status).toBe(
      200,
    )

    // Nothing left to end: no mail, no entry.
    const again = await call(`/rest/bd/utilisateur/${user.id}/sessions`, {
      method: 'DELETE',
      token: adminSession.accessToken,
    })
    expect(again.status).toBe(204)
    expect(await mailsTo(user.id)).toHaveLength(1)
    expect(await logsOf(admin.id)).toHaveLength(1)
  })

  it('writes the mail in the user’s language', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(2, 1)] })
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await db().updateTable('utilisateur').set({ langue: 'en' }).where('id', '=', user.id).execute()
    await sessionFor(user.id)
    const { accessToken } = await sessionFor(admin.id)
    expect(
      (await call(`/rest/bd/utilisateur/${user.id}/sessions`, { method: 'DELETE', token: accessToken })).status,
    ).toBe(204)
    const [mail] = await mailsTo(user.id)
    expect(mail?.subject).toBe('Your sessions were ended')
    expect(mail?.text).toContain('an administrator of the portal, ended every open session of your account')
  })

  it('refuses an administrator outside the user’s sub-tree, a user, and oneself: nothing ended, nothing written', async () => {
    // Direction Sud's administrator; the user is in Agence Lille, under Direction Nord.
    const southAdmin = await createUser({ admin: true, postes: [currentPost(3, 3)] })
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    const colleague = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(agent.id)
    for (const [caller, status] of [
      [southAdmin, 403],
      [colleague, 403],
    ] as const) {
      const { accessToken } = await sessionFor(caller.id)
      await expectError(
        await call(`/rest/bd/utilisateur/${agent.id}/sessions`, { token: accessToken }),
        status,
        'FORBIDDEN',
      )
      await expectError(
        await call(`/rest/bd/utilisateur/${agent.id}/sessions`, { method: 'DELETE', token: accessToken }),
        status,
        'FORBIDDEN',
      )
      expect(await logsOf(caller.id)).toEqual([])
    }
    const { accessToken: own } = await sessionFor(southAdmin.id)
    await expectError(await call(`/rest/bd/utilisateur/${southAdmin.id}/sessions`, { token: own }), 403, 'FORBIDDEN')
    await expectError(await call('/rest/bd/utilisateur/999999/sessions', { token: own }), 404, 'NOT_FOUND')
    expect(await alive(session.accessToken)).toBe(200)
    expect(await alive(own)).toBe(200)
    expect(await mailsTo(agent.id)).toEqual([])
  })

  it('holds the check inside the write: rights lost between the check and the write end nothing', async () => {
    const cases = {
      'the admin flag taken': (adminId: number) =>
        env.DB.prepare('update utilisateur set admin = 0 where id = ?').bind(adminId).run(),
      'the post on the scope ended': (adminId: number) =>
        env.DB.prepare("update poste set date_debut = '1999-01-01', date_fin = '2000-01-01' where utilisateur_id = ?")
          .bind(adminId)
          .run(),
      "the administrator's session ended": (adminId: number) =>
        env.DB.prepare('update refresh_token set revoked_at = ? where utilisateur_id = ?')
          .bind(new Date().toISOString(), adminId)
          .run(),
    }
    for (const [meanwhile, change] of Object.entries(cases)) {
      const admin = await createUser({ admin: true, postes: [currentPost(2, 1)] })
      const user = await createUser({ postes: [currentPost(4, 2)] })
      const session = await sessionFor(user.id)
      const { accessToken } = await sessionFor(admin.id)
      const answer = await call(`/rest/bd/utilisateur/${user.id}/sessions`, {
        method: 'DELETE',
        token: accessToken,
        env: { DB: changedBeforeWrite(() => change(admin.id)) },
      })
      expect(answer.status, meanwhile).toBe(403)
      expect(await alive(session.accessToken), meanwhile).toBe(200)
      expect(await mailsTo(user.id), meanwhile).toEqual([])
      expect(await logsOf(admin.id), meanwhile).toEqual([])
    }
  })
})

describe('GET rest/bd/utilisateur/{id}?sessions=true (a profile page in one call)', () => {
  const withSessions = (token: string, id: number) =>
    okBody(api(token).rest.bd.utilisateur[':id'].$get({ param: { id }, query: { sessions: 'true' } }))
  const without = (token: string, id: number) =>
    okBody(api(token).rest.bd.utilisateur[':id'].$get({ param: { id }, query: {} }))

  it("adds one's own sessions as session/liste answers them, the caller's marked; the user unchanged", async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const firefox = await signInFrom(user, FIREFOX)
    const chrome = await signInFrom(user, CHROME)
    await launchedPesage(firefox.accessToken)

    const { sessions, ...read } = await withSessions(chrome.accessToken, user.id)
    expect(sessions).toEqual(await listOf(chrome.accessToken))
    expect(sessions?.map((s) => [s.id, s.courante, s.applications.map((a) => a.id)])).toEqual([
      [chrome.sid, true, []],
      [firefox.sid, false, [2]],
    ])
    expect(read).toEqual(await without(chrome.accessToken, user.id))
    // Not asked for, not read.
    expect(await without(chrome.accessToken, user.id)).not.toHaveProperty('sessions')
  })

  it('adds those of a user the administrator manages, as utilisateur/{id}/sessions answers them', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(2, 1)] })
    const { accessToken } = await sessionFor(admin.id)
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const firefox = await signInFrom(user, FIREFOX)
    await launchedPesage(firefox.accessToken)

    const read = await withSessions(accessToken, user.id)
    expect(read.modification).toBe(true)
    expect(read.sessions).toEqual(
      await okBody(api(accessToken).rest.bd.utilisateur[':id'].sessions.$get({ param: { id: user.id } })),
    )
    expect(read.sessions?.map((s) => [s.id, s.courante, s.applications.map((a) => a.id)])).toEqual([
      [firefox.sid, false, [2]],
    ])
  })

  it('answers null for a user the administrator sees but does not manage, and refuses what the read refuses', async () => {
    // Direction Nord's administrator sees a user with a post under Nord, but one more under Sud keeps them from managing.
    const northAdmin = await createUser({ admin: true, postes: [currentPost(2, 1)] })
    const { accessToken } = await sessionFor(northAdmin.id)
    const straddling = await createUser({ postes: [currentPost(4, 2), currentPost(3, 2)] })
    await signInFrom(straddling, FIREFOX)
    const read = await withSessions(accessToken, straddling.id)
    expect([read.modification, read.sessions]).toEqual([false, null])

    // Outside the sub-tree, or another user for a non-administrator: 403 as without sessions, nothing of theirs.
    const southAdmin = await createUser({ admin: true, postes: [currentPost(3, 3)] })
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    const colleague = await createUser({ postes: [currentPost(4, 2)] })
    for (const caller of [southAdmin, colleague]) {
      const { accessToken: token } = await sessionFor(caller.id)
      await expectError(await call(`/rest/bd/utilisateur/${agent.id}?sessions=true`, { token }), 403, 'FORBIDDEN')
    }
    await expectError(await call('/rest/bd/utilisateur/999999?sessions=true', { token: accessToken }), 404, 'NOT_FOUND')
    await expectError(
      await call(`/rest/bd/utilisateur/${agent.id}?sessions=oui`, { token: accessToken }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it("refuses them to an application's session, which may read its user only; a service account gets an administrator's answer", async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const session = await signInFrom(user, FIREFOX)
    const application = await launchedPesage(session.accessToken)
    await expectError(
      await call(`/rest/bd/utilisateur/${user.id}?sessions=true`, { token: application.accessToken }),
      403,
      'APPLICATION_TOKEN_SCOPE',
    )
    expect((await call(`/rest/bd/utilisateur/${user.id}`, { token: application.accessToken })).status).toBe(200)

    // A program of Direction Nord: the user's sessions as its administrator sees them, none for a user outside Nord.
    const north = await serviceAccountToken(await insertServiceAccount({ structure: 2, scopes: 'api' }))
    const read = await withSessions(north, user.id)
    expect(read.sessions?.map((s) => [s.id, s.courante])).toEqual([[session.sid, false]])
    const south = await createUser({ postes: [currentPost(3, 2)] })
    await expectError(await call(`/rest/bd/utilisateur/${south.id}?sessions=true`, { token: north }), 403, 'FORBIDDEN')
  })
})

describe('the history', () => {
  it('names the endings by their labels and finds them by those words, in both languages', async () => {
    const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const rootSession = await sessionFor(root.id)
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const first = await sessionFor(user.id)
    const second = await sessionFor(user.id)
    expect((await call(`/rest/bd/session/${first.sid}`, { method: 'DELETE', token: second.accessToken })).status).toBe(
      204,
    )
    await sessionFor(user.id)
    expect((await call('/rest/bd/session/autres', { method: 'DELETE', token: second.accessToken })).status).toBe(204)
    expect(
      (await call(`/rest/bd/utilisateur/${user.id}/sessions`, { method: 'DELETE', token: rootSession.accessToken }))
        .status,
    ).toBe(204)
    const found = async (q: string) => {
      const entries = await okBody(api(rootSession.accessToken).rest.bd.logs.index.$get({ query: { page: 1, q } }))
      return entries.map((entry) => [entry.nomLog, logLabel('fr', entry), logLabel('en', entry)])
    }
    const own = [
      ['SESSIONS_AUTRES_FIN', 'Fermeture des autres sessions', 'Other sessions ended'],
      ['SESSION_FIN', 'Fermeture d’une session', 'Session ended'],
    ]
    const byAdmin = ['UTILISATEUR_SESSIONS_FIN', 'Fermeture des sessions d’un utilisateur', 'User’s sessions ended']
    // The newest first; the administrator's entry names the user in its comment.
    expect(await found(`fermeture ${user.login}`)).toEqual([byAdmin, ...own])
    expect(await found(`ended ${user.login}`)).toEqual([byAdmin, ...own])
    expect(await found(`fermeture utilisateur ${user.login}`)).toEqual([byAdmin])
    // A sign-out's type still finds them.
    expect(await found(`déconnexion ${user.login}`)).toEqual(own)
  })
})
