import jwt from '@tsndr/cloudflare-worker-jwt'
import { beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../../worker-api/lib/crypto'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  getUserAs,
  isoDate,
  refreshWith,
  signedInUser,
} from '../helpers'

beforeAll(createOrganisation)

const accessOf = (token: string, userId: number | string) => call(`/rest/bd/acces/utilisateur/${userId}`, { token })
const launch = (token: string, idApplication: number | string, init: RequestInit = {}) =>
  call(`/rest/bd/acces/application?idApplication=${idApplication}`, { ...init, token })

const accessListOf = (token: string, userId: number, query: { futurs?: 'true' } = {}) =>
  okBody(api(token).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId }, query }))
const applicationIds = async (token: string, userId: number) =>
  (await accessListOf(token, userId)).accesApplication.map((a) => a.application.id)
/** The launch code of the application `idApplication`, launched by the holder of `token`. */
const launchCode = async (token: string, idApplication: number) =>
  (await okBody(api(token).rest.bd.acces.application.$get({ query: { idApplication } }))).refreshToken
/** The tokens a refresh token or a launch code is exchanged for. */
const refreshed = (refreshToken: string) =>
  okBody(api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken } }))

/** fonction 2 (Agent de quai) grants 1 Yard dangereux + 2 Pesage; 3 grants 3 Module Rendez vous; 1 grants 4 Facturation. */
const everyApplication = [currentPost(4, 2), currentPost(3, 3), currentPost(1, 1)]

describe('GET /rest/bd/acces/utilisateur/{userId}?futurs=true', () => {
  it('adds what future posts will open, from the first day one does, leaving out what is open already', async () => {
    const user = await signedInUser({
      postes: [
        currentPost(3, 3),
        // Agent de quai from two dates (Yard dangereux and Pesage), Responsable again (already open).
        { structureId: 4, fonctionId: 2, from: isoDate(40), to: isoDate(50) },
        { structureId: 4, fonctionId: 2, from: isoDate(10), to: isoDate(20) },
        { structureId: 3, fonctionId: 3, from: isoDate(60), to: isoDate(70) },
      ],
    })
    const body = await accessListOf(user.jwt.accessToken, user.id, { futurs: 'true' })
    expect(body.accesApplication.map((a) => a.application.id)).toEqual([3])
    const from = isoDate(10).split('-').reverse().join('/')
    expect(body.accesFuturs?.map((a) => [a.application.id, a.dateDebut])).toEqual([
      [2, from],
      [1, from],
    ])
    // The spec's answer, without the parameter, is unchanged.
    expect(Object.keys(await accessListOf(user.jwt.accessToken, user.id))).toEqual(['accesApplication'])
  })
})

describe('GET /rest/bd/acces/utilisateur/{userId}', () => {
  it('lists the applications of the functions of current posts, sorted by libelle', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const response = await accessOf(user.jwt.accessToken, user.id)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      accesApplication: [
        { application: { id: 4, libelle: 'Facturation', icone: 'receipt' } },
        { application: { id: 3, libelle: 'Module Rendez vous', icone: 'calendar' } },
        { application: { id: 2, libelle: 'Pesage', icone: 'scale' } },
        { application: { id: 1, libelle: 'Yard dangereux', icone: 'warning' } },
      ],
    })
  })

  it('grants nothing for a future or an expired post', async () => {
    const user = await signedInUser({
      postes: [
        { structureId: 4, fonctionId: 2, from: isoDate(1), to: isoDate(30) },
        { structureId: 3, fonctionId: 3, from: isoDate(-30), to: isoDate(-1) },
      ],
    })
    expect(await applicationIds(user.jwt.accessToken, user.id)).toEqual([])
  })

  it('lists an application once when two current posts grant it', async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2, 10), currentPost(4, 2, 20)] })
    expect(await applicationIds(user.jwt.accessToken, user.id)).toEqual([2, 1])
  })

  it("answers 403 to a non-admin asking for another user's list", async () => {
    const caller = await signedInUser({ postes: [currentPost(4, 2)] })
    const other = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await accessOf(caller.jwt.accessToken, other.id), 403, 'FORBIDDEN')
  })

  it('shows an admin the list of a user in scope, and 403 outside it', async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(3, 3)] })
    const inScope = await createUser({ postes: [currentPost(3, 3)] })
    expect(await applicationIds(admin.jwt.accessToken, inScope.id)).toEqual([3])
    const outside = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await accessOf(admin.jwt.accessToken, outside.id), 403, 'FORBIDDEN')
  })

  it('answers 400 for a bad id, 401 without a token', async () => {
    const user = await signedInUser()
    await expectError(await accessOf(user.jwt.accessToken, 'abc'), 400, 'VALIDATION_FAILED')
    await expectError(await call(`/rest/bd/acces/utilisateur/${user.id}`), 401, 'UNAUTHORIZED')
  })
})

describe('GET /rest/bd/acces/application', () => {
  it('returns the application url carrying the launch code as `code`', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const response = await api(user.jwt.accessToken).rest.bd.acces.application.$get({ query: { idApplication: 1 } })
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const body = await okBody(response)
    expect(Object.keys(body).sort()).toEqual(['refreshToken', 'url'])
    const url = new URL(body.url)
    expect(`${url.origin}${url.pathname}`).toBe('https://yard.example.test/')
    expect(url.searchParams.get('code')).toBe(body.refreshToken)
    expect(body.refreshToken.length).toBeGreaterThanOrEqual(43)
  })

  it('resolves a root-relative application url against the portal and keeps its query', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const body = await okBody(api(user.jwt.accessToken).rest.bd.acces.application.$get({ query: { idApplication: 2 } }))
    const url = new URL(body.url)
    expect(url.origin).toBe('http://localhost:8787')
    expect(url.pathname).toBe('/demo-app/pesage')
    expect(url.searchParams.get('lang')).toBe('fr')
    expect(url.searchParams.get('code')).toBe(body.refreshToken)
  })

  it('logs each launch with the type of the application name', async () => {
    const user = await signedInUser({ postes: everyApplication })
    for (const id of [1, 2, 3, 4]) {
      expect((await launch(user.jwt.accessToken, id)).status).toBe(200)
    }
    const rows = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log'])
      .where('utilisateur_id', '=', user.id)
      .where('type_log', '!=', 'CONNEXION')
      .orderBy('id')
      .execute()
    expect(rows).toEqual([
      { type_log: 'APPLI_YARD', nom_log: 'Yard dangereux' },
      { type_log: 'APPLI_PESAGE', nom_log: 'Pesage' },
      { type_log: 'APPLI_MODRDV', nom_log: 'Module Rendez vous' },
      { type_log: 'APPLICATION', nom_log: 'Facturation' },
    ])
  })

  it('answers 403 for an application not granted today, and logs nothing', async () => {
    const user = await signedInUser({
      postes: [currentPost(4, 2), { structureId: 3, fonctionId: 3, from: isoDate(1), to: isoDate(9) }],
    })
    await expectError(await launch(user.jwt.accessToken, 4), 403, 'FORBIDDEN')
    await expectError(await launch(user.jwt.accessToken, 3), 403, 'FORBIDDEN')
    const launches = await db()
      .selectFrom('log')
      .select('id')
      .where('utilisateur_id', '=', user.id)
      .where('type_log', '!=', 'CONNEXION')
      .execute()
    expect(launches).toEqual([])
  })

  it('answers 404 for an unknown application and 400 for a bad or missing id', async () => {
    const user = await signedInUser({ postes: everyApplication })
    await expectError(await launch(user.jwt.accessToken, 999), 404, 'NOT_FOUND')
    await expectError(await launch(user.jwt.accessToken, 'abc'), 400, 'VALIDATION_FAILED')
    await expectError(
      await call('/rest/bd/acces/application', { token: user.jwt.accessToken }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('answers 401 without a token', async () => {
    await expectError(await call('/rest/bd/acces/application?idApplication=1'), 401, 'UNAUTHORIZED')
  })
})

describe('Launch code exchange (POST /rest/public/bd/login/refreshToken)', () => {
  it('exchanges the code once for tokens of the same user', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const code = await launchCode(user.jwt.accessToken, 2)

    const tokens = await refreshed(code)
    expect(tokens.expiresInMsec).toBe(300_000)
    const me = await getUserAs(tokens.accessToken, user.id)
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ id: user.id, login: user.login })
    // The application's session rotates like any other.
    expect((await refreshWith(tokens.refreshToken)).status).toBe(200)

    await expectError(await refreshWith(code), 401, 'INVALID_REFRESH_TOKEN')
  })

  it("binds the application's session to it: its user's profile and sign-out, nothing else", async () => {
    const user = await signedInUser({ admin: true, postes: everyApplication })
    const other = await createUser({ postes: everyApplication })
    const code = await launchCode(user.jwt.accessToken, 2)
    const first = await refreshed(code)
    // Still bound after a rotation.
    const tokens = await refreshed(first.refreshToken)
    const claims = jwt.decode<{ app?: number }>(tokens.accessToken).payload as { app?: number }
    expect(claims.app).toBe(2)

    expect((await getUserAs(tokens.accessToken, user.id)).status).toBe(200)
    await expectError(await getUserAs(tokens.accessToken, other.id), 403, 'APPLICATION_TOKEN_SCOPE')
    await expectError(await launch(tokens.accessToken, 1), 403, 'APPLICATION_TOKEN_SCOPE')
    await expectError(
      await call(`/rest/bd/acces/utilisateur/${user.id}`, { token: tokens.accessToken }),
      403,
      'APPLICATION_TOKEN_SCOPE',
    )
    // Only its own id as written: another spelling of a path, or a malformed one, is refused (never a 500).
    for (const path of [`0${user.id}`, `${user.id}%20`, '%E0%A4%A', `${user.id}/`]) {
      await expectError(
        await call(`/rest/bd/utilisateur/${path}`, { token: tokens.accessToken }),
        403,
        'APPLICATION_TOKEN_SCOPE',
      )
    }
    expect((await call('/rest/bd/logout', { method: 'POST', token: tokens.accessToken })).status).toBe(204)
    // The portal's own session is untouched by the application's sign-out.
    expect((await getUserAs(user.jwt.accessToken, other.id)).status).toBe(200)
  })

  it('signs the applications out with the portal: single logout', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const code = await launchCode(user.jwt.accessToken, 2)
    const first = await refreshed(code)
    const appTokens = await refreshed(first.refreshToken)
    expect((await getUserAs(appTokens.accessToken, user.id)).status).toBe(200)

    expect((await call('/rest/bd/logout', { method: 'POST', token: user.jwt.accessToken })).status).toBe(204)
    await expectError(await getUserAs(appTokens.accessToken, user.id), 401, 'INVALID_TOKEN')
    await expectError(await refreshWith(appTokens.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
  })

  it('lets only one of two concurrent exchanges of the same code succeed', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const code = await launchCode(user.jwt.accessToken, 1)
    const statuses = (await Promise.all([refreshWith(code), refreshWith(code)])).map((r) => r.status).sort()
    expect(statuses).toEqual([200, 401])
  })

  it('answers 401 for an expired code', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const code = await launchCode(user.jwt.accessToken, 1)
    await db()
      .updateTable('refresh_token')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', await sha256Hex(code))
      .execute()
    expect((await refreshWith(code)).status).toBe(401)
  })

  it('is not an access token', async () => {
    const user = await signedInUser({ postes: everyApplication })
    const code = await launchCode(user.jwt.accessToken, 1)
    expect((await getUserAs(code, user.id)).status).toBe(401)
  })
})
