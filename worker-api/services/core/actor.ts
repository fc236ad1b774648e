import { type Compilable, type Expression, type SqlBool, sql } from 'kysely'
import { todayIso } from '../../contract/dates'
import { batch, type DB, prepared, type RowOf, rawStatement } from '../../db/client'
import { sameDomain } from '../../lib/domain'
import { BusinessError, forbidden, unauthorized } from '../../lib/errors'
import { type AccessClaims, verifyAccessToken } from '../../lib/jwt'
import {
  administersPath,
  administersPathSql,
  secondFactorMissing,
  serviceAccountId,
  type Viewer,
  wholeTreeInScope,
} from '../../lib/scope'
import type { Caller, Ctx } from '../../lib/types'

/** The signed-in caller of a non-public endpoint; `app` when it is an application's session. */
export type Actor = {
  id: number
  login: string
  nom: string
  prenom: string
  admin: boolean
  /** An administrator of the whole tree (a current post on a root): the catalogue is theirs. */
  racine: boolean
  domain: string
  sid: string
  langue: 'fr' | 'en'
  app: number | null
  /**
   * An administrator whom the security settings require a second factor of and who has none yet:
   * refused every administration call (403 MFA_ENROLMENT_REQUIRED) until enrolled.
   */
  mfaEnrolmentRequired: boolean
}

/**
 * Who a query's scope is computed for (lib/scope.ts): a caller not yet checked (its request's origin,
 * which the check compares with the account's domain) or a checked actor.
 */
export function viewerOf(who: Pick<Caller, 'id' | 'origin'> | Pick<Actor, 'id' | 'domain'>): Viewer {
  return {
    id: who.id,
    domain: 'origin' in who ? who.origin : who.domain,
    today: todayIso(),
    service: serviceAccountId(who.id) !== null,
  }
}

/**
 * A service account whose administrator no longer administers its structure (demoted, post ended, deleted): it acts
 * for nobody until an administrator of the structure takes it over.
 */
export const serviceAccountSuspended = () =>
  new BusinessError(
    'SERVICE_ACCOUNT_SUSPENDED',
    403,
    'The administrator this account acts for no longer administers its structure',
  )

export const unauthorizedDomain = () =>
  new BusinessError('USER_UNAUTHORIZED_DOMAIN', 403, 'User not allowed on this domain')

/**
 * `Caller`: the bearer of a request's access token, its signature and expiry verified (no D1 yet).
 * Routes turn it into the `Actor` with `actorOf`, or with `actorWith` in the same D1 round trip as
 * their reads.
 */
export type { Caller }

export async function callerFromBearer(ctx: Ctx, authorization: string | undefined): Promise<Caller> {
  const token = /^Bearer ([A-Za-z0-9._-]+)$/.exec(authorization ?? '')?.[1]
  if (!token) throw unauthorized('UNAUTHORIZED', 'Missing bearer token')
  // A page's in-process calls carry the same token: it is checked once per request.
  const memo = ctx.scope.memo
  let verified = memo.get(`bearer ${token}`) as Promise<AccessClaims | null> | undefined
  if (!verified) {
    verified = verifyAccessToken(ctx.env.JWT_SECRET, token)
    memo.set(`bearer ${token}`, verified)
  }
  const claims = await verified
  const sub = Number(claims?.sub)
  if (!claims || !Number.isSafeInteger(sub) || sub <= 0) throw unauthorized('INVALID_TOKEN', 'Invalid or expired token')
  const { origin } = ctx.request
  // A service account's token (client credentials): the account acts under the negative of its id.
  const id = claims.cs === undefined ? sub : -sub
  return { id, app: claims.app ?? null, claims, origin, key: `actor ${origin} ${token}` }
}

/**
 * The one indexed query that confirms the caller is still active and their session family not
 * revoked (sign-out and disabling take effect at once), bringing what routes need of the user. An
 * admin's scope is not read here: queries filter by it in SQL (lib/scope.ts).
 */
function actorQuery(db: DB, { id, sid }: { id: number; sid: string }) {
  return db
    .selectFrom('utilisateur as u')
    .select(['u.id', 'u.login', 'u.nom', 'u.prenom', 'u.admin', 'u.domain', 'u.langue'])
    .where('u.id', '=', id)
    .where('u.actif', '=', 1)
    .where('u.supprime', '=', 0)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('refresh_token')
          .select('id')
          .where('family_id', '=', sid)
          // Down the family's index (`+`): the user's own index would read every token they ever held.
          .where(sql<number>`+refresh_token.utilisateur_id`, '=', id)
          .where('revoked_at', 'is', null),
      ),
    )
}

/**
 * `actorQuery` with whether the caller administers the whole tree (`racine`: an administrator with a
 * current post on a root, lib/scope.ts): the catalogue's managers, known with the caller's check.
 */
const actorStatement = prepared((db, values: { id: number; sid: string; today: string }) =>
  actorQuery(db, values)
    // The whole tree's scope reads the viewer's id and day only (its domain is compared in toActor).
    .select(
      sql<number>`${wholeTreeInScope(db, { id: values.id, today: values.today, domain: '', service: false })}`.as(
        'racine',
      ),
    )
    .select(sql<number>`${secondFactorMissing(sql.ref('u.id'))}`.as('mfa_manquant')),
)

/**
 * A service account's check, in one statement (an account reads the administration calls of its scope, `admin`; a
 * read-only one writes nothing, which its token's `admin` claim tells the routes' gate, `serviceAccountMayCall`): the account still live, the call counted (its minute,
 * for the rate limit; its day, for the lists) and its last use noted, in its bookkeeping row; the row
 * answers with what the caller's check needs of the account.
 */
const serviceActorStatement = (values: {
  accountId: number
  now: string
  minute: string
  day: string
  today: string
}) =>
  rawStatement<ActorRow & { appels_minute: number }>(
    `INSERT INTO compte_service_usage (compte_service_id, minute, appels_minute, jour, appels_jour, derniere_utilisation)
       SELECT id, ?2, 1, ?3, 1, ?4 FROM compte_service WHERE id = ?1 AND actif = 1 AND supprime = 0
       ON CONFLICT (compte_service_id) DO UPDATE SET
         appels_minute = CASE WHEN minute = excluded.minute THEN appels_minute + 1 ELSE 1 END,
         minute = excluded.minute,
         appels_jour = CASE WHEN jour = excluded.jour THEN appels_jour + 1 ELSE 1 END,
         jour = excluded.jour,
         derniere_utilisation = excluded.derniere_utilisation
       RETURNING 0 - compte_service_id AS id, appels_minute,
         (SELECT client_id FROM compte_service cs WHERE cs.id = compte_service_id) AS login,
         (SELECT nom FROM compte_service cs WHERE cs.id = compte_service_id) AS nom,
         '' AS prenom,
         1 AS admin,
         (SELECT domain FROM compte_service cs WHERE cs.id = compte_service_id) AS domain,
         'fr' AS langue,
         (SELECT s.parent_id IS NULL FROM compte_service cs
           JOIN structure s ON s.id = cs.structure_id WHERE cs.id = compte_service_id) AS racine,
         0 AS mfa_manquant,
         (SELECT ${administersPathSql('cs.cree_par', 's.path', '?5')} FROM compte_service cs
           JOIN structure s ON s.id = cs.structure_id WHERE cs.id = compte_service_id) AS responsable_admin`,
    [values.accountId, values.minute, values.day, values.now, values.today],
  )

/**
 * The calls a service account may make in a minute (README, "For integrators"), past which it gets 429;
 * `SERVICE_ACCOUNT_RATE_PER_MINUTE` sets another.
 */
export const SERVICE_ACCOUNT_CALLS_PER_MINUTE = 600

/** The caller's check, every request's first statement: compiled once (db/client.ts `prepared`). */
function actorRead(ctx: Ctx, caller: Caller) {
  const account = serviceAccountId(caller.id)
  if (account !== null) {
    const now = new Date().toISOString()
    return serviceActorStatement({
      accountId: account,
      now,
      minute: now.slice(0, 16),
      day: now.slice(0, 10),
      today: viewerOf(caller).today,
    })
  }
  return actorStatement(ctx.db, { id: caller.id, sid: caller.claims.sid, today: viewerOf(caller).today })
}

type ActorRow = RowOf<ReturnType<typeof actorStatement>> & { appels_minute?: number; responsable_admin?: number }

/**
 * Whether the caller is an administrator with a live session: the condition of a write that a read
 * makes in the batch that checks the caller, so that a user or a revoked session writes nothing.
 * (Their domain is compared afterwards, as for every call: in SQL its loopback alternatives would
 * cost a statement near D1's 100 bound values a dozen more.)
 */
export const liveAdmin = (ctx: Ctx, caller: Caller): Expression<SqlBool> => liveAdminOf(ctx.db, callerValues(caller))

/**
 * A caller's id and session as the values of a statement compiled once (db/client.ts `prepared`); a
 * service account has no session, and its kind keys the statement's text.
 */
export type CallerValues =
  | { callerId: number; callerKind: 'user'; sid: string }
  | { callerId: number; callerKind: 'service'; today: string }
export const callerValues = (caller: Caller): CallerValues =>
  serviceAccountId(caller.id) === null
    ? { callerId: caller.id, callerKind: 'user', sid: caller.claims.sid }
    : { callerId: caller.id, callerKind: 'service', today: viewerOf(caller).today }

/**
 * `liveAdmin` of a caller's values, for a statement compiled once; a service account: a live administrator one whose
 * administrator still administers its structure.
 */
export const liveAdminOf = (db: DB, values: CallerValues): Expression<SqlBool> =>
  values.callerKind === 'service'
    ? sql<SqlBool>`exists (select 1 from compte_service live_account
        join structure live_root on live_root.id = live_account.structure_id
        where live_account.id = 0 - ${values.callerId} and live_account.admin = 1 and live_account.actif = 1
          and live_account.supprime = 0
          and ${administersPath('live_account.cree_par', 'live_root.path', values.today)})`
    : sql<SqlBool>`exists ${actorQuery(db, { id: values.callerId, sid: values.sid })
        .where('u.admin', '=', 1)
        .where((eb) => eb.not(secondFactorMissing(sql.ref('u.id'))))}`

/**
 * Whether a user's session is still live and their account still bound to `domain`, the one their token names: the
 * condition of a write sent in the very batch that checks them (`actorWith`), before their check is read. The token's
 * domain is compared with the request's origin before the batch (`sessionOnDomain`), the account's with the token's
 * here, so an ended session, a deactivated account or one moved to another domain writes nothing.
 */
export const liveUserOf = (db: DB, values: { userId: number; sid: string; domain: string }): Expression<SqlBool> =>
  sql<SqlBool>`exists ${actorQuery(db, { id: values.userId, sid: values.sid }).where('u.domain', '=', values.domain)}`

/**
 * A user's session as the values of `liveUserOf`, refused at once when its token names an account of another domain
 * than the request's, or is no user's session (a service account's, an application's).
 */
export function sessionOnDomain(caller: Caller): { userId: number; sid: string; domain: string } {
  if (serviceAccountId(caller.id) !== null || caller.app !== null) throw forbidden('A portal session only')
  if (!sameDomain(caller.claims.domain, caller.origin)) throw unauthorizedDomain()
  return { userId: caller.id, sid: caller.claims.sid, domain: caller.claims.domain }
}

/** The actor of a row of `actorQuery`; no row means the session ended. The user's own domain only (DESIGN §7). */
function toActor(row: ActorRow | undefined, caller: Caller, callsPerMinute: number): Actor {
  if (!row) throw unauthorized('INVALID_TOKEN', 'Session ended')
  if (!sameDomain(row.domain, caller.origin)) throw unauthorizedDomain()
  if (row.responsable_admin === 0) throw serviceAccountSuspended()
  if (row.appels_minute !== undefined && row.appels_minute > callsPerMinute) {
    const wait = 60 - new Date().getUTCSeconds()
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, `Too many requests; retry in ${wait} s`, [wait])
  }
  return {
    id: row.id,
    login: row.login,
    nom: row.nom,
    prenom: row.prenom,
    admin: row.admin === 1,
    racine: row.racine === 1,
    domain: row.domain,
    sid: caller.claims.sid,
    langue: row.langue,
    app: caller.app,
    mfaEnrolmentRequired: row.mfa_manquant === 1,
  }
}

/**
 * The check of a caller within a request (kept in the request scope's memo): settled once, by the
 * first call that runs it, alone or in a batch with reads.
 */
type Check = {
  actor: Promise<Actor>
  settle(row: ActorRow | undefined): void
  fail(error: unknown): void
  started: boolean
  /** The batch that will carry the check, while it waits for the other calls of the page to join it. */
  gathering?: Gathering
}

type Gathering = { reads: Compilable<unknown>[]; results: Promise<D1Result[]> }

function checkOf(ctx: Ctx, caller: Caller): { check: Check; fresh: boolean } {
  const memo = ctx.scope.memo
  const known = memo.get(caller.key) as Check | undefined
  if (known) return { check: known, fresh: false }
  let settle: (row: ActorRow | undefined) => void = () => {}
  let fail: (error: unknown) => void = () => {}
  const actor = new Promise<Actor>((resolve, reject) => {
    settle = (row) => {
      try {
        resolve(
          toActor(row, caller, Number(ctx.env.SERVICE_ACCOUNT_RATE_PER_MINUTE ?? SERVICE_ACCOUNT_CALLS_PER_MINUTE)),
        )
      } catch (error) {
        reject(error)
      }
    }
    fail = reject
  })
  // A rejection nobody awaits yet must not surface as unhandled; awaiting callers still get it.
  actor.catch(() => {})
  const check: Check = { actor, settle, fail, started: false }
  memo.set(caller.key, check)
  return { check, fresh: true }
}

/** Whether the request checked this caller in D1 and found the session live (see app.ts). */
export function callerChecked(ctx: Ctx, caller: Caller): boolean {
  return (ctx.scope.memo.get(caller.key) as Check | undefined)?.started === true
}

/**
 * The caller checked in D1, once per request whatever number of in-process calls the page makes. A
 * check on its own first lets the event loop turn once, so that a read starting alongside (the page's,
 * next to its layout's) carries it in its own round trip.
 */
export async function actorOf(ctx: Ctx, caller: Caller): Promise<Actor> {
  const { check, fresh } = checkOf(ctx, caller)
  if (!fresh || check.started) return check.actor
  if (ctx.scope.shared) await new Promise((resolve) => setTimeout(resolve, 0))
  if (!check.started) {
    check.started = true
    ctx.db.executeQuery(actorRead(ctx, caller).compile()).then((result) => check.settle(result.rows[0]), check.fail)
  }
  return check.actor
}

/** Reads by name; a `null` read is left out (its rows are `undefined`). */
export type Reads = Record<string, Compilable<unknown> | null>

type RowsOf<Q> = Q extends Compilable<infer O> ? O[] : undefined

/** What `actorWith` answers: the actor, and each read's rows under the read's name. */
export type ActorAnd<R extends Reads> = {
  actor: Actor
  /** The database's size in bytes after the batch (D1's `size_after`; 0 when D1 does not say). */
  databaseBytes: number
} & { [K in keyof R]: RowsOf<R[K]> }

/** D1's answers to the reads, under their names and typed as the reads say (D1 returns untyped rows). */
function answered<R extends Reads>(actor: Actor, names: string[], reads: R, results: D1Result[]): ActorAnd<R> {
  const answer: Record<string, unknown> = { actor, databaseBytes: results.at(-1)?.meta.size_after ?? 0 }
  let next = 0
  for (const name of names) answer[name] = reads[name] === null ? undefined : results[next++]?.results
  return answer as ActorAnd<R>
}

/**
 * The caller checked in D1 with `reads`, in one round trip: within a page the batch waits one turn of the event loop,
 * so the reads of the page's other calls join it. The reads' rows come back only once the caller may be answered at
 * all.
 */
export async function actorWith<R extends Reads = Record<never, never>>(
  ctx: Ctx,
  caller: Caller,
  reads: R = {} as R,
): Promise<ActorAnd<R>> {
  const names = Object.keys(reads)
  const list = names.flatMap((name) => {
    const read = reads[name]
    return read ? [read] : []
  })
  const { check } = checkOf(ctx, caller)
  const gathering = check.gathering
  if (gathering) {
    const from = gathering.reads.length + 1
    gathering.reads.push(...list)
    const results = await gathering.results
    const actor = await check.actor
    return answered(actor, names, reads, results.slice(from, from + list.length))
  }
  if (check.started) {
    const actor = await check.actor
    const results = list.length === 0 ? [] : await batch(ctx.d1, list)
    return answered(actor, names, reads, results)
  }
  check.started = true
  let results: D1Result[]
  try {
    results = await (ctx.scope.shared
      ? gather(ctx, caller, check, list)
      : batch(ctx.d1, [actorRead(ctx, caller), ...list]))
  } catch (error) {
    check.fail(error)
    throw error
  }
  check.settle(results[0]?.results[0] as ActorRow | undefined)
  const actor = await check.actor
  return answered(actor, names, reads, results.slice(1, 1 + list.length))
}

/** The check's batch, sent once the page's other calls have had a turn of the event loop to join it. */
function gather(ctx: Ctx, caller: Caller, check: Check, reads: Compilable<unknown>[]): Promise<D1Result[]> {
  const gathering: Gathering = { reads: [...reads], results: Promise.resolve([]) }
  gathering.results = new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
    check.gathering = undefined
    return batch(ctx.d1, [actorRead(ctx, caller), ...gathering.reads])
  })
  // Each call that joined awaits it; a failure reaches them, never an unhandled rejection.
  gathering.results.catch(() => {})
  check.gathering = gathering
  return gathering.results
}

/** Admin endpoints answer 403 to anyone else, before anything about the data (DESIGN §4). */
export function requireAdmin(actor: Actor) {
  if (!actor.admin) throw forbidden('Administrators only')
  if (actor.mfaEnrolmentRequired) throw mfaEnrolmentRequired()
}

export const mfaEnrolmentRequired = () =>
  new BusinessError('MFA_ENROLMENT_REQUIRED', 403, 'Administrators must enrol a second factor first')

/**
 * The catalogue (applications, and which functions grant them) and the function templates are the
 * root administrators' to manage: administrators with a current post on a root of the tree (`racine`,
 * read with the caller's check in the batch of the call's reads).
 */
export function requireRootAdmin(actor: Actor) {
  requireAdmin(actor)
  if (!actor.racine) throw forbidden('Root administrators only')
}

/**
 * The entry point of every administration endpoint: the caller checked with the endpoint's `reads` in
 * one round trip (`actorWith`), then 403 unless they are an administrator. What an administrator may
 * see of the rows is the reads' own business, in SQL (lib/scope.ts).
 */
export async function adminWith<R extends Reads = Record<never, never>>(ctx: Ctx, caller: Caller, reads?: R) {
  const answer = await actorWith(ctx, caller, reads)
  requireAdmin(answer.actor)
  return answer
}

/** `adminWith` for what only an administrator of the whole tree manages (`requireRootAdmin`). */
export async function rootAdminWith<R extends Reads = Record<never, never>>(ctx: Ctx, caller: Caller, reads?: R) {
  const answer = await actorWith(ctx, caller, reads)
  requireRootAdmin(answer.actor)
  return answer
}

/** `adminWith` without reads of its own: an endpoint whose reads need the checked administrator. */
export async function adminOf(ctx: Ctx, caller: Caller): Promise<Actor> {
  const actor = await actorOf(ctx, caller)
  requireAdmin(actor)
  return actor
}
