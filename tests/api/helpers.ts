import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import type { AppLoadContext } from '@remix-run/cloudflare'
import { solveChallenge } from 'altcha-lib'
import { vi } from 'vitest'
import { getSession } from '../../app/lib/session.server'
import { createApp } from '../../worker-api/app'
import type { Launch } from '../../worker-api/contract/catalogue/access'
import { todayIso } from '../../worker-api/contract/dates'
import type { User } from '../../worker-api/contract/organisation/user'
import type { Tokens } from '../../worker-api/contract/sign-in/auth'
import type { RecoveryCodes } from '../../worker-api/contract/sign-in/mfa'
import { getDb } from '../../worker-api/db/client'
import { randomToken, sha256Hex } from '../../worker-api/lib/crypto'
import { signAccessToken } from '../../worker-api/lib/jwt'
import { hashPassword, pepperKeyring } from '../../worker-api/lib/password'
import { grantedPairs, ofUser } from '../../worker-api/services/catalogue/access-told'
import { api, errorBody, okBody } from './client'
import { serviceAccessToken } from './oauth-answers'

export const app = createApp()
export const ORIGIN = 'http://localhost:8787'
export const db = () => getDb(env.DB)

/**
 * Calls the API in-process as an HTTP client would (real routing, middleware and D1), then waits for
 * the work it left running after the response (mail delivery), as the Workers runtime would.
 */
export async function call(
  path: string,
  init: RequestInit & { token?: string; env?: Partial<typeof env>; origin?: string } = {},
) {
  const { token, env: overrides, origin = ORIGIN, ...rest } = init
  const headers = new Headers(rest.headers)
  if (token) headers.set('Authorization', `Bearer ${token}`)
  if (rest.body && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json')
  const ctx = createExecutionContext()
  const response = await app.request(
    `${origin}/portail-backend${path}`,
    { ...rest, headers },
    { ...env, ...overrides },
    ctx,
  )
  await waitOnExecutionContext(ctx)
  return response
}

export const post = (path: string, body: unknown, init: Parameters<typeof call>[1] = {}) =>
  call(path, { ...init, method: 'POST', body: JSON.stringify(body) })

/** Fetches a challenge and solves it the way the browser widget does. */
export async function solvedCaptcha(): Promise<string> {
  const challenge = await okBody(api().rest.public.bd.captcha.challenge.$get())
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber)
    .promise
  if (!solution) throw new Error('challenge not solvable')
  const { algorithm, salt, signature } = challenge
  return btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number: solution.number, salt, signature }))
}

let sequence = 0
const next = () => ++sequence

/** Structure types root → direction → agence, and a structure tree below root id 1. */
export async function createOrganisation() {
  const d = db()
  await d
    .insertInto('type_structure')
    .values([
      { id: 1, libelle: 'Racine', parent_type_id: null },
      { id: 2, libelle: 'Direction', parent_type_id: 1 },
      { id: 3, libelle: 'Agence', parent_type_id: 2 },
    ])
    .execute()
  await d
    .insertInto('structure')
    .values([
      { id: 1, nom: 'Groupe', type_id: 1, parent_id: null, path: '/1/' },
      { id: 2, nom: 'Direction Nord', type_id: 2, parent_id: 1, path: '/1/2/' },
      { id: 3, nom: 'Direction Sud', type_id: 2, parent_id: 1, path: '/1/3/' },
      { id: 4, nom: 'Agence Lille', type_id: 3, parent_id: 2, path: '/1/2/4/' },
    ])
    .execute()
  await d
    .insertInto('fonction')
    .values([
      { id: 1, libelle: 'Directeur', structure_id: 1 },
      { id: 2, libelle: 'Agent de quai', structure_id: 4 },
      { id: 3, libelle: 'Responsable', structure_id: 3 },
    ])
    .execute()
  await d
    .insertInto('application')
    .values([
      { id: 1, libelle: 'Yard dangereux', icone: 'warning', url: 'https://yard.example.test/' },
      { id: 2, libelle: 'Pesage', icone: 'scale', url: '/demo-app/pesage?lang=fr' },
      { id: 3, libelle: 'Module Rendez vous', icone: 'calendar', url: 'https://rdv.example.test/' },
      { id: 4, libelle: 'Facturation', icone: 'receipt', url: 'https://billing.example.test/' },
    ])
    .execute()
  await d
    .insertInto('fonction_application')
    .values([
      { fonction_id: 2, application_id: 1 },
      { fonction_id: 2, application_id: 2 },
      { fonction_id: 1, application_id: 4 },
      { fonction_id: 3, application_id: 3 },
    ])
    .execute()
}

/** A date `offsetDays` from today on the organisation's calendar (Europe/Paris), as the API counts. */
export const isoDate = (offsetDays: number) => todayIso(new Date(Date.now() + offsetDays * 86_400_000))

type UserOptions = {
  password?: string | null
  admin?: boolean
  actif?: boolean
  supprime?: boolean
  domain?: string
  registration?: 'COMPLETE' | 'INVITED' | 'PENDING'
  /** The company of a pending registration. */
  registrationStructure?: number
  postes?: { structureId: number; fonctionId: number; from: string; to: string }[]
}

/** POST rest/bd/poste's body: a post of `userId` from `from` to `to` days from today (Agent de quai, Agence Lille). */
export const posteBody = (userId: number, from: number, to: number, fonction = 2, structure = 4) => ({
  structure: { id: structure },
  fonction: { id: fonction },
  utilisateur: { id: userId },
  dateDebut: wireDate(isoDate(from)),
  dateFin: wireDate(isoDate(to)),
})

/** The newest event's id now (issue 65): what a test's pull of the events starts after. */
export const lastEventId = async () =>
  (
    await db()
      .selectFrom('evenement')
      .select(({ fn }) => fn.max('id').as('id'))
      .executeTakeFirstOrThrow()
  ).id ?? 0

/** Inserts a user (and their posts); returns the id, login and password. */
export async function createUser(options: UserOptions = {}) {
  const n = next()
  const login = `user${n}`
  const password = options.password === undefined ? 'Secret12' : options.password
  const { id } = await db()
    .insertInto('utilisateur')
    .values({
      login,
      nom: `Nom${n}`,
      prenom: `Prenom${n}`,
      mail: `${login}@example.test`,
      password_hash: password ? await hashPassword(password, pepperKeyring(env).current) : null,
      actif: options.actif === false ? 0 : 1,
      supprime: options.supprime ? 1 : 0,
      admin: options.admin ? 1 : 0,
      domain: options.domain ?? ORIGIN,
      registration_state: options.registration ?? 'COMPLETE',
      registration_structure_id: options.registrationStructure ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  for (const p of options.postes ?? []) {
    await db()
      .insertInto('poste')
      .values({
        utilisateur_id: id,
        structure_id: p.structureId,
        fonction_id: p.fonctionId,
        date_debut: p.from,
        date_fin: p.to,
      })
      .execute()
  }
  // Written as the demo data is, straight into the database: what the posts grant today counts as told already.
  if (options.registration !== 'PENDING' && (options.postes ?? []).length > 0) {
    await db()
      .insertInto('acces_dit')
      .columns(['utilisateur_id', 'application_id', 'chemins'])
      .expression(grantedPairs(db(), todayIso(), ofUser(id)))
      .onConflict((conflict) => conflict.doNothing())
      .execute()
  }
  return { id, login, password: password ?? '' }
}

export type { Launch, RecoveryCodes, Tokens }
/** A sign-in's answer, as the login routes compose it from the contract's user and tokens. */
export type LoginBody = { user: User; jwt: Tokens }

export async function login(identifiant: string, motDePasse: string, init: RequestInit = {}) {
  return post('/rest/public/bd/login', { identifiant, motDePasse, captcha: await solvedCaptcha() }, init)
}

export async function signIn(identifiant: string, motDePasse: string): Promise<LoginBody> {
  return okBody(api().rest.public.bd.login.$post({ json: { identifiant, motDePasse, captcha: await solvedCaptcha() } }))
}

// ---------------------------------------------------------------------------------------------
// Helpers added for the endpoint test files (login, captcha, refresh, tokens, users, access, logs).

/** Asserts the status and the businessCode of a DESIGN §2 error body, and returns the body (client.ts). */
export const expectError = errorBody

/** Posts an arbitrary login body (with a fresh solved captcha unless the body sets one). */
export async function loginWith(
  body: Record<string, unknown>,
  init: RequestInit = {},
  overrides?: Partial<typeof env>,
) {
  const withCaptcha = 'captcha' in body ? body : { captcha: await solvedCaptcha(), ...body }
  return post('/rest/public/bd/login', withCaptcha, { ...init, env: overrides })
}

/** A solved captcha payload re-encoded after `change` edits its decoded JSON. */
export function editCaptcha(payload: string, change: (data: Record<string, unknown>) => void): string {
  const data = JSON.parse(atob(payload)) as Record<string, unknown>
  change(data)
  return btoa(JSON.stringify(data))
}

/** A signed-in user: the created user, their tokens and the login body's user. */
/** A caller of the API: a user made with `options` and the access token of a session of theirs (no sign-in). */
export type Caller = { id: number; login: string; token: string }
export async function callerOf(options: Parameters<typeof createUser>[0] = {}): Promise<Caller> {
  const user = await createUser(options)
  return { id: user.id, login: user.login, token: (await sessionFor(user.id)).accessToken }
}

export async function signedInUser(options: Parameters<typeof createUser>[0] = {}) {
  const user = await createUser(options)
  const body = await signIn(user.login, user.password)
  return { ...user, jwt: body.jwt, body }
}

/** A post covering today, starting and ending `days` days around it. */
export const currentPost = (structureId: number, fonctionId: number, days = 30) => ({
  structureId,
  fonctionId,
  from: isoDate(-days),
  to: isoDate(days),
})

/** 'YYYY-MM-DD' → 'dd/MM/yyyy', the wire format of post dates. */
export const wireDate = (iso: string) => iso.split('-').reverse().join('/')

export const getUserAs = (token: string, id: number | string) => call(`/rest/bd/utilisateur/${id}`, { token })

export const refreshWith = (refreshToken: string) => post('/rest/public/bd/login/refreshToken', { refreshToken })

/**
 * Runs `work` with the clock stopped (JavaScript's Date, which the API reads; D1's own column defaults
 * keep real time): a per-minute window cannot end in the middle of a burst, and lifetimes can be
 * stepped over with `advance`.
 */
export async function withFrozenClock<T>(
  work: (clock: { advance: (seconds: number) => void }) => Promise<T>,
  at = new Date(),
): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(at)
  try {
    return await work({ advance: (seconds) => vi.setSystemTime(Date.now() + seconds * 1000) })
  } finally {
    vi.useRealTimers()
  }
}

/**
 * A session for a user without signing in (no captcha, no password hashing): a refresh-token family
 * as sign-in writes it and an access token for it, checked by the API exactly like a signed-in one.
 * With `application`, the session an application opened with a launch code (scoped, DESIGN §4).
 */
export async function sessionFor(userId: number, { application }: { application?: number } = {}) {
  const user = await db()
    .selectFrom('utilisateur')
    .select(['admin', 'domain'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  const sid = crypto.randomUUID()
  const refreshToken = randomToken()
  const now = new Date()
  await db()
    .insertInto('refresh_token')
    .values({
      token_hash: await sha256Hex(refreshToken),
      utilisateur_id: userId,
      family_id: sid,
      kind: 'SESSION',
      application_id: application ?? null,
      parent_family_id: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 30 * 60_000).toISOString(),
      family_expires_at: new Date(now.getTime() + 10 * 3_600_000).toISOString(),
      rotated_at: null,
      revoked_at: null,
    })
    .execute()
  const claims = { sub: String(userId), admin: user.admin === 1, domain: user.domain, sid }
  const accessToken = await signAccessToken(
    env.JWT_SECRET,
    application === undefined ? claims : { ...claims, app: application },
  )
  return { accessToken, refreshToken, sid }
}

/** What the UI's loaders and actions receive as `context`, calling this API in-process. */
export const uiContext = {
  cloudflare: { env, ctx: { waitUntil() {}, passThroughOnException() {} } },
  api: app,
} as unknown as AppLoadContext

/**
 * An OpenID Connect client written straight to D1 (the catalogue's own calls are tested apart):
 * an application with the protocol, its client (`secret`: null for a public one) and a grant to the
 * function given.
 */
export async function createOidcClient(options: {
  libelle: string
  clientId: string
  secret: string | null
  redirectUri: string
  fonctionId: number
  deviceGrant?: boolean
}) {
  const { id } = await db()
    .insertInto('application')
    .values({ libelle: options.libelle, icone: 'truck', url: new URL(options.redirectUri).origin, protocole: 'OIDC' })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db()
    .insertInto('oidc_client')
    .values({
      application_id: id,
      client_id: options.clientId,
      secret_hash: options.secret === null ? null : await sha256Hex(options.secret),
      redirect_uris: JSON.stringify([options.redirectUri]),
      device_grant: options.deviceGrant ? 1 : 0,
    })
    .execute()
  await db()
    .insertInto('fonction_application')
    .values({ fonction_id: options.fonctionId, application_id: id })
    .execute()
  return id
}

/** The browser cookie of a signed-in user, as the login form leaves it. */
export async function browserCookieOf(user: { id: number; login: string; accessToken: string; refreshToken: string }) {
  const session = await getSession(new Request(`${ORIGIN}/pages/user/acces`), uiContext)
  session.session.set('accessToken', user.accessToken)
  session.session.set('refreshToken', user.refreshToken)
  session.session.set('user', { id: user.id, login: user.login, nom: 'N', prenom: 'P', admin: false })
  return (await session.commit()).split(';')[0] as string
}

/**
 * The test database, where `change` runs just before the request's second batch (a decision's write,
 * after its read): another request acting in between, at a chosen moment. `atBatch: 1` for a request
 * that reads with a single statement and writes with its first batch.
 */
export function changedBeforeWrite(change: () => Promise<unknown>, { atBatch = 2 } = {}): D1Database {
  let roundTrips = 0
  const interleaved = (session: D1DatabaseSession) => ({
    prepare: (query: string) => session.prepare(query),
    getBookmark: () => session.getBookmark(),
    batch: async (statements: D1PreparedStatement[]) => {
      if (++roundTrips === atBatch) await change()
      return session.batch(statements)
    },
  })
  return {
    ...env.DB,
    prepare: (query: string) => env.DB.prepare(query),
    batch: (statements: D1PreparedStatement[]) => env.DB.batch(statements),
    withSession: (constraint: D1SessionBookmark | D1SessionConstraint) => interleaved(env.DB.withSession(constraint)),
  } as D1Database
}

let serviceAccounts = 0

/**
 * A service account as an administrator would have made it (`structure`, `scopes` as stored: space-separated,
 * administrator unless `admin: 0`), with its client id and secret. It acts for the user `creePar`, else for a root
 * administrator made for it (a current post on structure 1, function 1 of `createOrganisation`): an account acts only
 * while the administrator it belongs to administers its structure.
 */
export async function insertServiceAccount({
  structure,
  scopes,
  admin = 1,
  nom,
  creePar,
}: {
  structure: number
  scopes: string
  admin?: 0 | 1
  nom?: string
  creePar?: number | null
}) {
  const n = ++serviceAccounts
  const clientId = `cs-test-${n}-${Math.random().toString(36).slice(2, 8)}`
  const secret = `secret-du-compte-de-service-${n}-0123456789abcdef`
  const { id } = await db()
    .insertInto('compte_service')
    .values({
      nom: nom ?? `Compte de test ${n}`,
      description: null,
      structure_id: structure,
      admin,
      scopes,
      client_id: clientId,
      secret_hash: await sha256Hex(secret),
      ancien_secret_hash: null,
      ancien_secret_expire: null,
      jwks: null,
      domain: ORIGIN,
      cree_par:
        creePar === undefined
          ? (await createUser({ admin: true, password: null, postes: [currentPost(1, 1, 3650)] })).id
          : creePar,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id, clientId, secret }
}

/** An access token of the account by the client credentials grant (`client_secret_post`). */
export async function serviceAccountToken(account: { clientId: string; secret: string }) {
  const response = await call('/oidc/token', {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: account.clientId,
      client_secret: account.secret,
    }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })
  return serviceAccessToken(response)
}
