import { env } from 'cloudflare:test'
import * as client from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import type { LogEntry } from '../../../worker-api/contract/history/logs'
import { logLabel } from '../../../worker-api/contract/log-labels'
import { DEVICE_CODE_GRANT } from '../../../worker-api/contract/oidc/oidc'
import { backgroundContext } from '../../../worker-api/lib/context'
import { sha256Hex } from '../../../worker-api/lib/crypto'
import { purgeExpired } from '../../../worker-api/services/maintenance'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  currentPost,
  db,
  expectError,
  ORIGIN,
  sessionFor,
  signedInUser,
  withFrozenClock,
} from '../helpers'
import { oauthErrorCode, tokenBody } from '../oauth-answers'
import { rpOptions, signedInAgent } from '../oidc-rp'

/**
 * The device authorization grant (RFC 8628): an application allows it in the catalogue or at its registration, a device
 * asks for a code, a user granted the application approves it on /appareil, and the device polls for its tokens.
 */

let root: string

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
})

/** The history's newest entry. */
const lastEntry = () =>
  db()
    .selectFrom('log')
    .select(['type_log', 'nom_log', 'commentaire', 'utilisateur_id'])
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow()

/** A device client of the catalogue (public unless a secret is asked for), granted to function 2. */
async function deviceClient(
  libelle: string,
  oidc: { public: boolean; deviceGrant?: boolean; redirectUris?: string[] },
) {
  const body = await okBody(api(root).rest.bd.application.$post({ json: deviceApplicationBody(libelle, oidc) }), 201)
  if (!body.oidc) throw new Error('no client')
  return { id: body.id, clientId: body.oidc.clientId, secret: body.oidc.clientSecret ?? null }
}

/** The device's openid-client configuration, from discovery. */
const deviceRp = (device: { clientId: string; secret: string | null }) =>
  client.discovery(
    new URL(ORIGIN),
    device.clientId,
    device.secret ?? undefined,
    device.secret ? client.ClientSecretBasic(device.secret) : client.None(),
    rpOptions,
  )

/** A device's raw request for codes, from `ip`. */
const askCodes = (fields: Record<string, string>, ip = '203.0.113.7', headers: Record<string, string> = {}) =>
  call('/oidc/device_authorization', {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'CF-Connecting-IP': ip, ...headers },
  })

/** An OIDC application of the catalogue with the device grant (no redirect address), granted to function 2. */
const deviceApplicationBody = (
  libelle: string,
  oidc: { public: boolean; redirectUris?: string[]; deviceGrant?: boolean },
) => ({
  libelle,
  icone: 'truck' as const,
  url: 'https://terminal.example.test/',
  actif: true,
  protocole: 'OIDC' as const,
  oidc: { redirectUris: [], deviceGrant: true, ...oidc },
  fonctions: [{ id: 2 }],
})

describe('an application allows the device grant', () => {
  it('in the catalogue, public or confidential, without a redirect address only when it allows the grant', async () => {
    const created = await api(root).rest.bd.application.$post({
      json: deviceApplicationBody('Terminal de quai', { public: true }),
    })
    expect(created.status).toBe(201)
    const body = await created.json()
    expect(body.oidc).toMatchObject({ public: true, redirectUris: [], deviceGrant: true })
    // Without the grant, a client still needs somewhere to send the user back.
    const refused = await api(root).rest.bd.application.$post({
      json: {
        ...deviceApplicationBody('Sans redirection', { public: true }),
        oidc: { public: true, redirectUris: [] },
      },
    })
    const { attributs } = await expectError(refused, 400, 'VALIDATION_FAILED')
    expect((attributs as { field: string }[]).map((a) => a.field)).toEqual(['oidc.redirectUris'])
    // Switched off again: the grant is the catalogue's to allow (read back as saved).
    const updated = await api(root).rest.bd.application.$put({
      json: {
        ...deviceApplicationBody('Terminal de quai', {
          public: true,
          redirectUris: ['https://terminal.example.test/cb'],
        }),
        id: body.id,
        oidc: { public: true, redirectUris: ['https://terminal.example.test/cb'], deviceGrant: false },
      },
    })
    expect(updated.status).toBe(200)
    const saved = await db()
      .selectFrom('oidc_client')
      .select('device_grant')
      .where('application_id', '=', body.id)
      .executeTakeFirstOrThrow()
    expect(saved.device_grant).toBe(0)
    const log = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('type_log', '=', 'ADMINISTRATION')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(log.nom_log).toBe('APPLICATION_MODIFICATION')
    expect(log.commentaire).toContain('client OpenID Connect')
  })

  it('at its dynamic registration: a public client of the device grant alone, without redirect addresses', async () => {
    const registered = await client.dynamicClientRegistration(
      new URL(ORIGIN),
      { client_name: 'Lecteur de quai', grant_types: [DEVICE_CODE_GRANT], token_endpoint_auth_method: 'none' },
      undefined,
      { ...rpOptions, initialAccessToken: root },
    )
    const metadata = registered.clientMetadata()
    expect(metadata.client_secret).toBeUndefined()
    expect(metadata.grant_types).toEqual(['refresh_token', DEVICE_CODE_GRANT])
    expect(metadata.response_types).toEqual([])
    expect(metadata.redirect_uris).toEqual([])
    const saved = await db()
      .selectFrom('oidc_client')
      .select(['device_grant', 'secret_hash', 'redirect_uris'])
      .where('client_id', '=', metadata.client_id)
      .executeTakeFirstOrThrow()
    expect(saved).toEqual({ device_grant: 1, secret_hash: null, redirect_uris: '[]' })
  })

  it('a registration says the grants it asks for: the code needs redirect addresses, the device none', async () => {
    const register = (body: unknown) =>
      call('/oidc/register', { method: 'POST', token: root, body: JSON.stringify(body) })
    const both = await register({
      client_name: 'Terminal et web',
      grant_types: ['authorization_code', DEVICE_CODE_GRANT],
      redirect_uris: ['https://terminal.example.test/cb'],
    })
    expect(both.status).toBe(201)
    const answered = (await both.json()) as { grant_types: string[]; response_types: string[] }
    expect(answered.grant_types).toEqual(['authorization_code', 'refresh_token', DEVICE_CODE_GRANT])
    expect(answered.response_types).toEqual(['code'])
    // The code flow (asked for, or by default) without redirect addresses; a response type without the code flow.
    for (const body of [
      { client_name: 'Sans adresse', grant_types: ['authorization_code', DEVICE_CODE_GRANT] },
      { client_name: 'Sans adresse' },
    ]) {
      const refused = await register(body)
      expect([refused.status, await oauthErrorCode(refused)]).toEqual([400, 'invalid_redirect_uri'])
    }
    const code = await register({
      client_name: 'Sans code',
      grant_types: [DEVICE_CODE_GRANT],
      response_types: ['code'],
    })
    expect([code.status, await oauthErrorCode(code)]).toEqual([400, 'invalid_client_metadata'])
    const implicit = await register({ client_name: 'Implicite', grant_types: ['implicit'] })
    expect([implicit.status, await oauthErrorCode(implicit)]).toEqual([400, 'invalid_client_metadata'])
  })
})

describe('a device asks for its codes', () => {
  it('discovery names the endpoint and the grant', async () => {
    const rp = await deviceRp(await deviceClient('Découverte', { public: true }))
    const metadata = rp.serverMetadata()
    expect(metadata.device_authorization_endpoint).toBe(`${ORIGIN}/portail-backend/oidc/device_authorization`)
    expect(metadata.grant_types_supported).toContain(DEVICE_CODE_GRANT)
  })

  it('with openid-client: a user code to show, a page to approve it on, 10 minutes and 5 seconds; both codes kept as hashes', async () => {
    const device = await deviceClient('Lecteur de quai 1', { public: true })
    const started = await client.initiateDeviceAuthorization(await deviceRp(device), { scope: 'openid profile' })
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(started.verification_uri).toBe(`${ORIGIN}/appareil`)
    expect(started.verification_uri_complete).toBe(`${ORIGIN}/appareil?code=${started.user_code}`)
    expect([started.expires_in, started.interval]).toEqual([600, 5])
    expect(started.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const row = await db()
      .selectFrom('device_authorization')
      .selectAll()
      .where('application_id', '=', device.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ scope: 'openid profile', etat: 'EN_ATTENTE', issuer: ORIGIN, poll_interval: 5 })
    expect(row.device_code_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(row)).not.toContain(started.device_code)
    expect(JSON.stringify(row)).not.toContain(started.user_code.replace('-', ''))
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(600_000)
  })

  it('says what kind of device asks, in its row and in the history', async () => {
    const device = await deviceClient('Terminal de cabine', { public: true })
    const handheld =
      'Mozilla/5.0 (Linux; Android 13; TC52) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36'
    const asked = await askCodes({ client_id: device.clientId, scope: 'openid' }, '203.0.113.8', {
      'User-Agent': handheld,
    })
    expect(asked.status).toBe(200)
    expect(asked.headers.get('Cache-Control')).toBe('no-store')
    const row = await db()
      .selectFrom('device_authorization')
      .select(['type_appareil', 'nom_navigateur'])
      .where('application_id', '=', device.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ type_appareil: 'mobile · Android', nom_navigateur: 'Chrome' })
    const entry = await lastEntry()
    expect(entry).toEqual({
      type_log: 'CONNEXION',
      nom_log: 'APPAREIL_DEMANDE',
      commentaire: 'Terminal de cabine (mobile · Android)',
      utilisateur_id: null,
    })
  })

  it('refuses a client without the grant, a scope without openid, and a confidential client without its secret', async () => {
    const web = await deviceClient('Sans appareil', {
      public: true,
      redirectUris: ['https://web.example.test/cb'],
      deviceGrant: false,
    })
    const refused = await askCodes({ client_id: web.clientId })
    expect([refused.status, await oauthErrorCode(refused)]).toEqual([400, 'unauthorized_client'])
    const device = await deviceClient('Portique', { public: true })
    const scope = await askCodes({ client_id: device.clientId, scope: 'profile email' })
    expect([scope.status, await oauthErrorCode(scope)]).toEqual([400, 'invalid_scope'])
    const confidential = await deviceClient('Portique confidentiel', { public: false })
    const anonymous = await askCodes({ client_id: confidential.clientId })
    expect([anonymous.status, await oauthErrorCode(anonymous)]).toEqual([401, 'invalid_client'])
    const wrong = await askCodes({ client_id: confidential.clientId, client_secret: 'not-the-secret' })
    expect([wrong.status, await oauthErrorCode(wrong)]).toEqual([401, 'invalid_client'])
    const right = await askCodes({ client_id: confidential.clientId, client_secret: confidential.secret as string })
    expect(right.status).toBe(200)
    // Nothing was issued for the refusals.
    const rows = await db()
      .selectFrom('device_authorization')
      .select('application_id')
      .where('application_id', 'in', [web.id, device.id, confidential.id])
      .execute()
    expect(rows.map((r) => r.application_id)).toEqual([confidential.id])
  })

  it('10 codes a minute per client and address, 60 per client: then 429 with the wait', async () => {
    const device = await deviceClient('Quai compté', { public: true })
    await withFrozenClock(async () => {
      const ask = (address: number) => askCodes({ client_id: device.clientId }, `198.51.100.${address}`)
      for (let i = 0; i < 10; i++) expect((await ask(1)).status).toBe(200)
      const eleventh = await ask(1)
      expect([eleventh.status, await oauthErrorCode(eleventh)]).toEqual([429, 'invalid_request'])
      expect(Number(eleventh.headers.get('Retry-After'))).toBeGreaterThan(0)
      // That refusal spent nothing of the client's 60: five more addresses get their 10.
      for (let address = 2; address <= 6; address++) {
        for (let i = 0; i < 10; i++) expect((await ask(address)).status).toBe(200)
      }
      const sixtyFirst = await ask(9)
      expect([sixtyFirst.status, await oauthErrorCode(sixtyFirst)]).toEqual([429, 'invalid_request'])
    }, new Date('2026-12-05T10:00:05Z'))
    // Another client is not held back.
    const other = await deviceClient('Quai voisin', { public: true })
    expect((await askCodes({ client_id: other.clientId }, '198.51.100.1')).status).toBe(200)
  })

  it('a request is forgotten a day after it expired', async () => {
    const device = await deviceClient('Quai purgé', { public: true })
    await askCodes({ client_id: device.clientId }, '198.51.100.20')
    await askCodes({ client_id: device.clientId }, '198.51.100.20')
    const [first, second] = await db()
      .selectFrom('device_authorization')
      .select('id')
      .where('application_id', '=', device.id)
      .orderBy('id')
      .execute()
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString()
    await db()
      .updateTable('device_authorization')
      .set({ expires_at: hoursAgo(25) })
      .where('id', '=', first?.id ?? 0)
      .execute()
    await db()
      .updateTable('device_authorization')
      .set({ expires_at: hoursAgo(23) })
      .where('id', '=', second?.id ?? 0)
      .execute()
    await purgeExpired(backgroundContext(env))
    const left = await db()
      .selectFrom('device_authorization')
      .select('id')
      .where('application_id', '=', device.id)
      .execute()
    expect(left.map((r) => r.id)).toEqual([second?.id])
  })
})

const PHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1'

/** A device's pending request: its codes as the device got them. */
async function pendingRequest(device: { clientId: string }, ip = '192.0.2.50') {
  const asked = await askCodes({ client_id: device.clientId, scope: 'openid profile' }, ip)
  expect(asked.status).toBe(200)
  return (await asked.json()) as { device_code: string; user_code: string }
}

/** The /appareil page's calls, for a signed-in user on their phone at `ip`. */
const appareil = (token: string, ip = '192.0.2.10') => {
  const headers = { 'User-Agent': PHONE, 'CF-Connecting-IP': ip }
  return {
    lookup: (code: string) => api(token).rest.bd.oidc.appareil.$get({ query: { code } }, { headers }),
    decide: (code: string, decision: 'APPROUVER' | 'REFUSER', nom?: string) =>
      api(token).rest.bd.oidc.appareil.$post({ json: { code, decision, nom } }, { headers }),
  }
}

const requestRow = (userCode: string) =>
  sha256Hex(userCode.replace('-', '')).then((hash) =>
    db().selectFrom('device_authorization').selectAll().where('user_code_hash', '=', hash).executeTakeFirstOrThrow(),
  )

describe('a user decides on /appareil', () => {
  let terminal: Awaited<ReturnType<typeof deviceClient>>
  beforeAll(async () => {
    terminal = await deviceClient('Terminal de cour', { public: true })
  })

  it('sees which application asks, from which kind of device and when; approves it once, naming the device', async () => {
    const handheld =
      'Mozilla/5.0 (Linux; Android 13; TC52) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36'
    const asked = await askCodes({ client_id: terminal.clientId }, '192.0.2.51', { 'User-Agent': handheld })
    const { user_code } = (await asked.json()) as { user_code: string }
    const agent = await signedInAgent()
    const page = appareil(agent.accessToken)
    // Typed as a person types it: lower case, a space for the dash.
    const seen = await okBody(page.lookup(user_code.toLowerCase().replace('-', ' ')))
    expect(seen).toMatchObject({
      code: user_code,
      application: { id: terminal.id, libelle: 'Terminal de cour' },
      appareil: 'mobile · Android',
      navigateur: 'Chrome',
    })
    expect(Date.parse(seen.expireLe) - Date.parse(seen.demandeLe)).toBe(600_000)
    const decided = await okBody(page.decide(user_code, 'APPROUVER', '  Terminal de quai 3 '))
    expect(decided).toEqual({
      decision: 'APPROUVER',
      application: { id: terminal.id, libelle: 'Terminal de cour' },
      nom: 'Terminal de quai 3',
    })
    const row = await requestRow(user_code)
    expect(row).toMatchObject({
      etat: 'APPROUVEE',
      utilisateur_id: agent.id,
      nom: 'Terminal de quai 3',
      approuve_depuis: 'mobile',
      approving_family_id: agent.sid,
    })
    expect(row.auth_time).not.toBeNull()
    const entry = await lastEntry()
    expect(entry).toEqual({
      type_log: 'CONNEXION',
      nom_log: 'APPAREIL_APPROBATION',
      commentaire: 'Terminal de cour · Terminal de quai 3 · mobile · Android',
      utilisateur_id: agent.id,
    })
    // A code works once.
    await expectError(await page.lookup(user_code), 404, 'OIDC_DEVICE_CODE_UNKNOWN')
    await expectError(await page.decide(user_code, 'REFUSER'), 404, 'OIDC_DEVICE_CODE_UNKNOWN')
  })

  it('refuses it: the request is refused, in the history', async () => {
    const { user_code } = await pendingRequest(terminal)
    const agent = await signedInAgent()
    expect(await okBody(appareil(agent.accessToken).decide(user_code, 'REFUSER'))).toMatchObject({
      decision: 'REFUSER',
    })
    expect(await requestRow(user_code)).toMatchObject({ etat: 'REFUSEE', utilisateur_id: agent.id })
    const entry = await db()
      .selectFrom('log')
      .select(['nom_log', 'utilisateur_id'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({ nom_log: 'APPAREIL_REFUS', utilisateur_id: agent.id })
  })

  it('only a user granted the application decides: anyone else is told so, and the code stays pending', async () => {
    const { user_code } = await pendingRequest(terminal)
    // A Lille administrator holds no post of function 2: the application is not theirs, approve or refuse.
    const stranger = await signedInUser({ admin: true, postes: [currentPost(4, 1)] })
    const page = appareil(stranger.jwt.accessToken, '192.0.2.11')
    await expectError(await page.lookup(user_code), 403, 'OIDC_DEVICE_NOT_GRANTED')
    await expectError(await page.decide(user_code, 'APPROUVER'), 403, 'OIDC_DEVICE_NOT_GRANTED')
    await expectError(await page.decide(user_code, 'REFUSER'), 403, 'OIDC_DEVICE_NOT_GRANTED')
    expect(await requestRow(user_code)).toMatchObject({ etat: 'EN_ATTENTE', utilisateur_id: null })
    const agent = await signedInAgent()
    expect((await appareil(agent.accessToken).decide(user_code, 'APPROUVER')).status).toBe(200)
  })

  it('an expired code, or a code of another portal name, is unknown', async () => {
    const { user_code } = await pendingRequest(terminal)
    const agent = await signedInAgent()
    const elsewhere = await api(agent.accessToken, {}, 'http://127.0.0.1:8787').rest.bd.oidc.appareil.$get({
      query: { code: user_code },
    })
    await expectError(elsewhere, 404, 'OIDC_DEVICE_CODE_UNKNOWN')
    const hash = await sha256Hex(user_code.replace('-', ''))
    await db()
      .updateTable('device_authorization')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_code_hash', '=', hash)
      .execute()
    await expectError(
      await appareil(agent.accessToken, '192.0.2.12').decide(user_code, 'APPROUVER'),
      404,
      'OIDC_DEVICE_CODE_UNKNOWN',
    )
    expect(await requestRow(user_code)).toMatchObject({ etat: 'EN_ATTENTE' })
  })

  it('two users deciding at the same moment: one decision holds, the other is told the code no longer works', async () => {
    const { user_code } = await pendingRequest(terminal)
    const [first, second] = [await signedInAgent(), await signedInAgent()]
    const answers = await Promise.all([
      appareil(first.accessToken, '192.0.2.13').decide(user_code, 'APPROUVER'),
      appareil(second.accessToken, '192.0.2.14').decide(user_code, 'REFUSER'),
    ])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404])
    const entries = await db()
      .selectFrom('log')
      .select('nom_log')
      .where('utilisateur_id', 'in', [first.id, second.id])
      .where('nom_log', 'like', 'APPAREIL_%')
      .execute()
    expect(entries).toHaveLength(1)
  })

  it('guessing: 5 wrong codes a minute per user, 10 per address; then every code is refused, a right one too', async () => {
    const { user_code } = await pendingRequest(terminal)
    await withFrozenClock(async () => {
      const guesser = await signedInAgent()
      const page = appareil(guesser.accessToken, '192.0.2.20')
      for (let i = 0; i < 5; i++) await expectError(await page.lookup('BCDF-GHJK'), 404, 'OIDC_DEVICE_CODE_UNKNOWN')
      const sixth = await page.lookup('BCDF-GHJK')
      await expectError(sixth, 429, 'TOO_MANY_ATTEMPTS')
      await expectError(await page.lookup(user_code), 429, 'TOO_MANY_ATTEMPTS')
      // The same address under other accounts: 10 in all (the guesser's sixth counted too).
      const [other, another] = [await signedInAgent(), await signedInAgent()]
      const sameAddress = (user: { accessToken: string }) => appareil(user.accessToken, '192.0.2.20')
      for (let i = 0; i < 3; i++) {
        await expectError(await sameAddress(other).lookup('BCDF-GHJK'), 404, 'OIDC_DEVICE_CODE_UNKNOWN')
      }
      await expectError(await sameAddress(another).decide('BCDF-GHJK', 'APPROUVER'), 404, 'OIDC_DEVICE_CODE_UNKNOWN')
      await expectError(await sameAddress(another).lookup('BCDF-GHJK'), 429, 'TOO_MANY_ATTEMPTS')
      await expectError(await sameAddress(another).lookup(user_code), 429, 'TOO_MANY_ATTEMPTS')
      // A right code from elsewhere, by a user who has not guessed, still works.
      expect((await appareil(another.accessToken, '192.0.2.21').lookup(user_code)).status).toBe(200)
    }, new Date('2026-12-05T10:20:05Z'))
    expect(await requestRow(user_code)).toMatchObject({ etat: 'EN_ATTENTE' })
  })

  it('a device name over 60 characters is refused on its field', async () => {
    const { user_code } = await pendingRequest(terminal)
    const agent = await signedInAgent()
    const refused = await appareil(agent.accessToken).decide(user_code, 'APPROUVER', 'x'.repeat(61))
    const { attributs } = await expectError(refused, 400, 'VALIDATION_FAILED')
    expect((attributs as { field: string }[]).map((a) => a.field)).toEqual(['nom'])
  })
})

describe('the history', () => {
  it('names each step of a device sign-in, and finds them by those names in either language', async () => {
    const device = await deviceClient('Terminal historisé', { public: true })
    const { user_code } = await pendingRequest(device, '192.0.2.60')
    const agent = await signedInAgent()
    await okBody(appareil(agent.accessToken, '192.0.2.61').decide(user_code, 'APPROUVER'))
    for (const words of ['approuvé', 'device approved']) {
      const found = await okBody(
        api(root).rest.bd.logs.index.$get({ query: { q: `${words} ${agent.login}@example.test` } }),
      )
      expect(found.map((entry) => [entry.typeLog, entry.nomLog])).toEqual([['CONNEXION', 'APPAREIL_APPROBATION']])
      expect(logLabel('fr', found[0] as LogEntry)).toBe('Appareil approuvé')
    }
  })
})

/** A device's raw poll of the token endpoint (a public client: its id in the form). */
const poll = (device: { clientId: string }, deviceCode: string) =>
  call('/oidc/token', {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: DEVICE_CODE_GRANT,
      device_code: deviceCode,
      client_id: device.clientId,
    }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })

/** Lets the poll interval pass, as the device waits it. */
const waitedInterval = (deviceCode: string) =>
  sha256Hex(deviceCode).then((hash) =>
    db()
      .updateTable('device_authorization')
      .set({ last_polled_at: new Date(Date.now() - 60_000).toISOString() })
      .where('device_code_hash', '=', hash)
      .execute(),
  )

describe('the device polls the token endpoint', () => {
  let handheld: Awaited<ReturnType<typeof deviceClient>>
  beforeAll(async () => {
    handheld = await deviceClient('Scanner de quai', { public: true })
  })

  it('with openid-client: approved on /appareil, it gets the usual tokens, reads UserInfo and refreshes', async () => {
    const rp = await deviceRp(handheld)
    const started = await client.initiateDeviceAuthorization(rp, { scope: 'openid profile postes' })
    const agent = await signedInAgent()
    await okBody(appareil(agent.accessToken).decide(started.user_code, 'APPROUVER', 'Terminal de quai 3'))
    // openid-client waits `interval` before each poll: the test's device does not wait.
    const tokens = await client.pollDeviceAuthorizationGrant(rp, { ...started, interval: 0 })
    const claims = tokens.claims()
    expect(claims?.sub).toBe(String(agent.id))
    expect(claims?.aud).toBe(handheld.clientId)
    expect(tokens.scope).toBe('openid profile postes')
    const info = await client.fetchUserInfo(rp, tokens.access_token, String(agent.id))
    expect(info.preferred_username).toBe(agent.login)
    expect(info.postes).toEqual([
      { structure: { id: 4, nom: expect.any(String) }, fonction: { id: 2, libelle: expect.any(String) } },
    ])
    // Its own session: no parent (it outlives the phone's), named, 10 hours from the approval at most.
    const session = await db()
      .selectFrom('refresh_token')
      .selectAll()
      .where('family_id', '=', claims?.sid as string)
      .executeTakeFirstOrThrow()
    const request = await requestRow(started.user_code)
    expect(session).toMatchObject({
      utilisateur_id: agent.id,
      application_id: handheld.id,
      parent_family_id: null,
      appareil: 'Terminal de quai 3',
      appareil_approuve_depuis: 'mobile',
      scope: 'openid profile postes',
    })
    expect(Date.parse(session.family_expires_at) - Date.parse(request.decided_at as string)).toBe(10 * 3600_000)
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(30 * 60_000)
    expect(request).toMatchObject({ etat: 'EMISE', family_id: claims?.sid })
    const launch = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log', 'utilisateur_id', 'commentaire'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(launch).toEqual({
      type_log: 'APPLICATION',
      nom_log: 'Scanner de quai',
      utilisateur_id: agent.id,
      commentaire: 'Terminal de quai 3',
    })
    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token as string)
    expect(refreshed.claims()?.sid).toBe(claims?.sid)
    // The device code is spent.
    const again = await poll(handheld, started.device_code)
    expect([again.status, await oauthErrorCode(again)]).toEqual([400, 'invalid_grant'])
  })

  it('pending, then polling too fast: authorization_pending, then slow_down and 5 seconds more to wait', async () => {
    const { device_code } = await pendingRequest(handheld)
    const first = await poll(handheld, device_code)
    expect([first.status, await oauthErrorCode(first)]).toEqual([400, 'authorization_pending'])
    const tooSoon = await poll(handheld, device_code)
    expect([tooSoon.status, await oauthErrorCode(tooSoon)]).toEqual([400, 'slow_down'])
    const hash = await sha256Hex(device_code)
    const row = () =>
      db()
        .selectFrom('device_authorization')
        .select(['poll_interval', 'etat'])
        .where('device_code_hash', '=', hash)
        .executeTakeFirstOrThrow()
    expect(await row()).toEqual({ poll_interval: 10, etat: 'EN_ATTENTE' })
    // 10 seconds waited (but not 5 only): pending again, the interval kept.
    await db()
      .updateTable('device_authorization')
      .set({ last_polled_at: new Date(Date.now() - 6_000).toISOString() })
      .where('device_code_hash', '=', hash)
      .execute()
    const stillTooSoon = await poll(handheld, device_code)
    expect(await oauthErrorCode(stillTooSoon)).toBe('slow_down')
    expect((await row()).poll_interval).toBe(15)
    await waitedInterval(device_code)
    expect(await oauthErrorCode(await poll(handheld, device_code))).toBe('authorization_pending')
    expect((await row()).poll_interval).toBe(15)
  })

  it('refused: access_denied; past its 10 minutes: expired_token; never tokens', async () => {
    const refused = await pendingRequest(handheld)
    const agent = await signedInAgent()
    await okBody(appareil(agent.accessToken).decide(refused.user_code, 'REFUSER'))
    const denied = await poll(handheld, refused.device_code)
    expect([denied.status, await oauthErrorCode(denied)]).toEqual([400, 'access_denied'])

    const late = await pendingRequest(handheld)
    await okBody(appareil(agent.accessToken).decide(late.user_code, 'APPROUVER'))
    await db()
      .updateTable('device_authorization')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('device_code_hash', '=', await sha256Hex(late.device_code))
      .execute()
    const expired = await poll(handheld, late.device_code)
    expect([expired.status, await oauthErrorCode(expired)]).toEqual([400, 'expired_token'])
    const sessions = await db()
      .selectFrom('refresh_token')
      .select('id')
      .where('application_id', '=', handheld.id)
      .where('utilisateur_id', '=', agent.id)
      .execute()
    expect(sessions).toEqual([])
  })

  it('another client presenting a device’s code moves nothing: the device is not slowed down', async () => {
    const { device_code } = await pendingRequest(handheld, '192.0.2.90')
    const other = await deviceClient('Scanner voisin', { public: true })
    for (let i = 0; i < 3; i++) expect(await oauthErrorCode(await poll(other, device_code))).toBe('invalid_grant')
    expect(await oauthErrorCode(await poll(handheld, device_code))).toBe('authorization_pending')
    const row = await db()
      .selectFrom('device_authorization')
      .select('poll_interval')
      .where('device_code_hash', '=', await sha256Hex(device_code))
      .executeTakeFirstOrThrow()
    expect(row.poll_interval).toBe(5)
  })

  it('an unknown device code, another client’s, or a user no longer granted since the approval: invalid_grant', async () => {
    const unknown = await poll(handheld, 'x'.repeat(43))
    expect([unknown.status, await oauthErrorCode(unknown)]).toEqual([400, 'invalid_grant'])
    const other = await deviceClient('Autre scanner', { public: true })
    const theirs = await pendingRequest(other)
    expect(await oauthErrorCode(await poll(handheld, theirs.device_code))).toBe('invalid_grant')

    const { device_code, user_code } = await pendingRequest(handheld)
    const agent = await signedInAgent()
    await okBody(appareil(agent.accessToken).decide(user_code, 'APPROUVER'))
    await db().deleteFrom('poste').where('utilisateur_id', '=', agent.id).execute()
    const ungranted = await poll(handheld, device_code)
    expect([ungranted.status, await oauthErrorCode(ungranted)]).toEqual([400, 'invalid_grant'])
  })
})

describe("the device's session", () => {
  it('is on its user’s sessions page, named as approved, outlives the phone’s sign-out, and ends from that page', async () => {
    const scanner = await deviceClient('Scanner de cour', { public: true })
    const rp = await deviceRp(scanner)
    const started = await client.initiateDeviceAuthorization(rp, { scope: 'openid' })
    const agent = await signedInAgent()
    await okBody(appareil(agent.accessToken).decide(started.user_code, 'APPROUVER', 'Terminal de quai 7'))
    const tokens = await client.pollDeviceAuthorizationGrant(rp, { ...started, interval: 0 })
    const sid = tokens.claims()?.sid as string
    // The phone signs out of the portal: the device keeps its session.
    const phone = await sessionFor(agent.id)
    expect((await call('/rest/bd/logout', { method: 'POST', token: agent.accessToken })).status).toBe(204)
    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token as string)
    const sessions = await okBody(api(phone.accessToken).rest.bd.session.liste.$get())
    const device = sessions.find((session) => session.id === sid)
    expect(device?.appareil).toEqual({
      nom: 'Terminal de quai 7',
      application: { id: scanner.id, libelle: 'Scanner de cour' },
      approuveDepuis: 'mobile',
    })
    expect(device?.courante).toBe(false)
    expect(sessions.find((session) => session.id === phone.sid)?.appareil).toBeNull()
    // Ended from the list: the device's refresh token is dead, the history names it.
    expect((await call(`/rest/bd/session/${sid}`, { method: 'DELETE', token: phone.accessToken })).status).toBe(204)
    await expect(client.refreshTokenGrant(rp, refreshed.refresh_token as string)).rejects.toThrow()
    const entry = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('utilisateur_id', '=', agent.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.nom_log).toBe('SESSION_FIN')
    expect(entry.commentaire).toMatch(/^Terminal de quai 7 \(Scanner de cour\) \(/)
    const left = await okBody(api(phone.accessToken).rest.bd.session.liste.$get())
    expect(left.map((session) => session.id)).toEqual([phone.sid])
  })

  it('ends with the user’s other sessions, and with every session an administrator ends', async () => {
    const scanner = await deviceClient('Scanner de nuit', { public: true })
    const agent = await signedInAgent()
    const deviceSession = async () => {
      const { device_code, user_code } = await pendingRequest(scanner, '192.0.2.70')
      await okBody(appareil(agent.accessToken, '192.0.2.71').decide(user_code, 'APPROUVER'))
      return tokenBody(await poll(scanner, device_code))
    }
    const first = await deviceSession()
    expect((await call('/rest/bd/session/autres', { method: 'DELETE', token: agent.accessToken })).status).toBe(204)
    const firstRefresh = await call('/oidc/token', {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: scanner.clientId,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expect([firstRefresh.status, await oauthErrorCode(firstRefresh)]).toEqual([400, 'invalid_grant'])
    const live = await okBody(api(agent.accessToken).rest.bd.session.liste.$get())
    expect(live.map((session) => session.id)).toEqual([agent.sid])
  })
})

describe('what stops a device', () => {
  it('its client switched off the grant: its codes are unknown, its polls refused, its session no longer refreshes', async () => {
    const device = await deviceClient('Terminal retiré', { public: true })
    const agent = await signedInAgent()
    const approved = await pendingRequest(device, '192.0.2.80')
    await okBody(appareil(agent.accessToken, '192.0.2.81').decide(approved.user_code, 'APPROUVER'))
    const tokens = await tokenBody(await poll(device, approved.device_code))
    const pending = await pendingRequest(device, '192.0.2.80')
    const waiting = await pendingRequest(device, '192.0.2.80')
    await okBody(appareil(agent.accessToken, '192.0.2.81').decide(waiting.user_code, 'APPROUVER'))
    await db().updateTable('oidc_client').set({ device_grant: 0 }).where('application_id', '=', device.id).execute()
    await expectError(
      await appareil(agent.accessToken, '192.0.2.81').lookup(pending.user_code),
      404,
      'OIDC_DEVICE_CODE_UNKNOWN',
    )
    const refused = await poll(device, waiting.device_code)
    expect([refused.status, await oauthErrorCode(refused)]).toEqual([400, 'unauthorized_client'])
    const refresh = await call('/oidc/token', {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: device.clientId,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expect([refresh.status, await oauthErrorCode(refresh)]).toEqual([400, 'invalid_grant'])
  })

  it('the portal session that approved it ended before the device came for its tokens: none', async () => {
    const device = await deviceClient('Terminal orphelin', { public: true })
    const agent = await signedInAgent()
    const { device_code, user_code } = await pendingRequest(device, '192.0.2.82')
    await okBody(appareil(agent.accessToken, '192.0.2.83').decide(user_code, 'APPROUVER'))
    expect((await call('/rest/bd/logout', { method: 'POST', token: agent.accessToken })).status).toBe(204)
    const refused = await poll(device, device_code)
    expect([refused.status, await oauthErrorCode(refused)]).toEqual([400, 'invalid_grant'])
    const sessions = await db()
      .selectFrom('refresh_token')
      .select('id')
      .where('application_id', '=', device.id)
      .execute()
    expect(sessions).toEqual([])
  })

  it('120 polls a minute per client and address, apart from the token budget; then 429', async () => {
    const device = await deviceClient('Terminal bavard', { public: true })
    const { device_code } = await pendingRequest(device, '192.0.2.84')
    await withFrozenClock(async () => {
      for (let i = 0; i < 120; i++) {
        const answer = await poll(device, device_code)
        expect(answer.status).toBe(400)
      }
      const over = await poll(device, device_code)
      expect([over.status, await oauthErrorCode(over)]).toEqual([429, 'invalid_request'])
    }, new Date('2026-12-05T10:30:05Z'))
  })
})
