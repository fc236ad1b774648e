import { type Expression, type SqlBool, sql } from 'kysely'
import { addSeconds, todayIso } from '../../contract/dates'
import {
  DEVICE_CODE_TTL_SECONDS,
  DEVICE_PAGE,
  DEVICE_POLL_INTERVAL_SECONDS,
  type DeviceDecided,
  type DeviceRequest,
  formatUserCode,
  normaliseUserCode,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
} from '../../contract/oidc/device'
import { afterOneChange, type DB, insertWhen, namedBatch } from '../../db/client'
import { browserOf, deviceOf, platformOf } from '../../lib/browser'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { sameDomain } from '../../lib/domain'
import { BusinessError } from '../../lib/errors'
import { logTypeForApplication } from '../../lib/log-types'
import { clientCredentials, OAuthError, oauthLimited } from '../../lib/oauth'
import type { Caller, Ctx } from '../../lib/types'
import { grantedColumn, grantNow } from '../catalogue/grants'
import { actorWith } from '../core/actor'
import { logEntry } from '../core/audit'
import { type TokenLimits, tokenLimits } from '../core/client-auth-failures'
import { clientCounter, oidcClientAddressCounter, oidcClientCounter, userCounter } from '../core/rate-limit'
import { accessTokenFor, newRefreshToken, REFRESH_ABSOLUTE_SECONDS } from '../sign-in/auth'
import { currentPostsQuery, grantedScopes, profileQuery } from './claims'
import { authenticate, authenticatedSql, clientRead, unknownGrant } from './client-auth'
import { answer, type Credentials, type TokenAnswer } from './token-answer'

/**
 * The device authorization grant (RFC 8628; issue 66). A device asks for a pair of codes (`deviceAuthorization`), a
 * user signed in on the portal approves or refuses the user code on /appareil, and the device polls the token endpoint
 * with its device code until then.
 */

/** Polls of the token endpoint a minute for one client from one address (a dozen devices waiting at once). */
export const DEVICE_POLLS_PER_ADDRESS_MINUTE = 120

/** Codes a client asks for a minute from one address, and from all of them. */
export const DEVICE_CODES_PER_ADDRESS_MINUTE = 10
export const DEVICE_CODES_PER_CLIENT_MINUTE = 60

export type DeviceAuthorizationForm = Partial<Record<'client_id' | 'client_secret' | 'scope', string>>

export type DeviceAuthorizationAnswer = {
  device_code: string
  user_code: string
  verification_uri: string
  verification_uri_complete: string
  expires_in: number
  interval: number
}

/** A user code: 8 letters of the alphabet, each drawn without bias (rejection sampling of random bytes). */
export function newUserCode(): string {
  const letters: string[] = []
  const limit = 256 - (256 % USER_CODE_ALPHABET.length)
  while (letters.length < USER_CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(USER_CODE_LENGTH * 2))) {
      if (byte < limit && letters.length < USER_CODE_LENGTH)
        letters.push(USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length] as string)
    }
  }
  return letters.join('')
}

const grantNotAllowed = () =>
  new OAuthError('unauthorized_client', 'This client may not use the device authorization grant')

/** The client still allows the grant, switched on: what a request's row and its entry are written under. */
const grantAllowed = (db: DB, applicationId: number | Expression<number>) =>
  db
    .selectFrom('oidc_client as c')
    .innerJoin('application as a', 'a.id', 'c.application_id')
    .select('c.application_id')
    .where('c.application_id', '=', applicationId)
    .where('c.device_grant', '=', 1)
    .where('a.actif', '=', 1)

/**
 * POST /oidc/device_authorization (RFC 8628 §3.1–3.2): the client authenticated as at the token endpoint (a public
 * client by its id), counted per address and overall, its codes issued with their history entry. Two round trips:
 * the reads and counts, then the row and its entry, written only while the client still allows the grant.
 */
export async function deviceAuthorization(
  ctx: Ctx,
  form: DeviceAuthorizationForm,
  authorization: string | undefined,
): Promise<DeviceAuthorizationAnswer> {
  return oauthLimited(async () => {
    const credentials = clientCredentials(authorization, form)
    const limits = tokenLimits(ctx, credentials.clientId)
    const authenticated = await authenticatedSql(credentials, null)
    const counted = { columns: '', values: authenticated.values }
    const fromAddress = oidcClientAddressCounter(
      'oidc-device',
      credentials.clientId,
      ctx.request.ip,
      DEVICE_CODES_PER_ADDRESS_MINUTE,
    )
    const overall = oidcClientCounter('oidc-device', credentials.clientId, DEVICE_CODES_PER_CLIENT_MINUTE)
    const db = ctx.db
    const read = await namedBatch(ctx.d1, {
      failures: limits.failuresSoFar,
      fromAddress: fromAddress.statement(authenticated.sql, counted),
      // A request the address's own limit refuses does not spend the client's.
      overall: overall.statement(`${authenticated.sql} AND ${fromAddress.within}`, counted),
      client: clientRead(db, credentials.clientId),
    })
    limits.checkFailures(read.failures?.results[0])
    const client = await authenticate(ctx, read.client?.results[0], credentials, limits)
    fromAddress.check(read.fromAddress?.results[0])
    overall.check(read.overall?.results[0])
    if (client.device_grant !== 1) throw grantNotAllowed()
    const scope = grantedScopes(form.scope ?? 'openid')
    if (!scope.split(' ').includes('openid')) throw new OAuthError('invalid_scope', 'scope must include openid')

    const now = new Date()
    const userAgent = ctx.request.userAgent
    const browser = browserOf(userAgent)
    const device = deviceOf(userAgent)
    const issuer = ctx.request.origin
    const allowed = grantAllowed(db, client.application_id)
    // A user code already taken (one in 2.6 × 10^10 for each kept, a day at most) is drawn again.
    for (let draw = 0; draw < 3; draw++) {
      const deviceCode = randomToken()
      const userCode = newUserCode()
      const written = await namedBatch(ctx.d1, {
        request: insertWhen(
          db,
          'device_authorization',
          {
            device_code_hash: await sha256Hex(deviceCode),
            user_code_hash: await sha256Hex(userCode),
            application_id: client.application_id,
            scope,
            issuer,
            nom_navigateur: browser.name,
            version_navigateur: browser.version,
            type_appareil: device,
            created_at: now.toISOString(),
            expires_at: addSeconds(DEVICE_CODE_TTL_SECONDS, now).toISOString(),
            poll_interval: DEVICE_POLL_INTERVAL_SECONDS,
          },
          allowed,
        ).onConflict((oc) => oc.doNothing()),
        log: insertWhen(
          db,
          'log',
          {
            ...logEntry(0, 'CONNEXION', 'APPAREIL_DEMANDE', userAgent, {
              commentaire: device ? `${client.libelle} (${device})` : client.libelle,
            }),
            utilisateur_id: null,
          },
          afterOneChange(db),
        ),
        stillAllowed: allowed,
      })
      if ((written.request?.meta.changes ?? 0) === 1) return answered(issuer, deviceCode, userCode)
      // Switched off meanwhile: no code was issued.
      if ((written.stillAllowed?.results.length ?? 0) === 0) break
    }
    throw grantNotAllowed()
  })
}

/** The codes of a device's request as RFC 8628 §3.2 answers them. */
function answered(issuer: string, deviceCode: string, userCode: string): DeviceAuthorizationAnswer {
  const page = `${issuer}${DEVICE_PAGE}`
  return {
    device_code: deviceCode,
    user_code: formatUserCode(userCode),
    verification_uri: page,
    verification_uri_complete: `${page}?code=${formatUserCode(userCode)}`,
    expires_in: DEVICE_CODE_TTL_SECONDS,
    interval: DEVICE_POLL_INTERVAL_SECONDS,
  }
}

/** Wrong codes a minute on /appareil from one address, and by one user wherever they are. */
export const DEVICE_CODE_TRIES_PER_ADDRESS_MINUTE = 10
export const DEVICE_CODE_TRIES_PER_USER_MINUTE = 5

const unknownCode = () =>
  new BusinessError('OIDC_DEVICE_CODE_UNKNOWN', 404, 'No pending request of a device has this code')
const notGranted = () =>
  new BusinessError('OIDC_DEVICE_NOT_GRANTED', 403, 'No current post of yours grants the application that asks')

/**
 * The reads of a user code typed on /appareil (one round trip with the caller's check): the pending request it names
 * on this portal, whether a current post of the caller grants its application, and the tries so far. A code that
 * names no pending request the caller may decide on is a wrong one: it counts for the address and the user, so that
 * neither guessing nor a code read over a shoulder gets far. While either is past its limit, every code is refused,
 * a right one too (its answer would tell it right).
 */
async function typedCode(ctx: Ctx, caller: Caller, typed: string) {
  const db = ctx.db
  const now = new Date().toISOString()
  const today = todayIso()
  const normalised = normaliseUserCode(typed)
  const hash = await sha256Hex(normalised ?? '')
  const pending = db
    .selectFrom('device_authorization as d')
    .where('d.user_code_hash', '=', hash)
    .where('d.etat', '=', 'EN_ATTENTE')
    .where('d.expires_at', '>', now)
    .where('d.issuer', '=', ctx.request.origin)
    // A client whose grant was switched off since: its codes no longer work.
    .where(({ exists }) => exists(grantAllowed(db, sql.ref<number>('d.application_id'))))
  const granted = () => grantNow(db, caller.id, sql.ref<number>('d.application_id'), today)
  const wrong = sql<SqlBool>`not exists ${pending.select('d.id').where(({ exists }) => exists(granted()))}`
  const address = clientCounter('oidc-device-code', ctx.request.ip, DEVICE_CODE_TRIES_PER_ADDRESS_MINUTE)
  const user = userCounter('oidc-device-code', caller.id, DEVICE_CODE_TRIES_PER_USER_MINUTE)
  const {
    actor,
    request: [request],
    addressSoFar: [addressSoFar],
    userSoFar: [userSoFar],
    addressCounted: [addressCounted],
    userCounted: [userCounted],
  } = await actorWith(ctx, caller, {
    request: pending
      .innerJoin('application as a', 'a.id', 'd.application_id')
      .select([
        'd.id',
        'd.application_id',
        'a.libelle',
        'd.type_appareil',
        'd.nom_navigateur',
        'd.created_at',
        'd.expires_at',
      ])
      .select(grantedColumn(db, caller.id, sql.ref<number>('d.application_id'), today)),
    addressSoFar: address.current(),
    userSoFar: user.current(),
    addressCounted: address.statementWhen(db, wrong),
    userCounted: user.statementWhen(db, wrong),
  })
  address.check({ count: addressCounted?.count ?? addressSoFar?.count ?? 0 })
  user.check({ count: userCounted?.count ?? userSoFar?.count ?? 0 })
  if (!request || normalised === null) throw unknownCode()
  if (request.granted !== 1) throw notGranted()
  return { actor, request, code: formatUserCode(normalised), now, today }
}

/** GET rest/bd/oidc/appareil: the pending request a user code names, for the caller to decide on (one round trip). */
export async function deviceLookup(ctx: Ctx, caller: Caller, typed: string): Promise<DeviceRequest> {
  const { request, code } = await typedCode(ctx, caller, typed)
  return {
    code,
    application: { id: request.application_id, libelle: request.libelle },
    appareil: request.type_appareil,
    navigateur: request.nom_navigateur,
    demandeLe: request.created_at,
    expireLe: request.expires_at,
  }
}

/**
 * POST rest/bd/oidc/appareil: the caller approves or refuses a device's request, named as they name it. Two round
 * trips: the reads of `typedCode`, then the decision with its history entry. The decision is written only while the
 * request is pending and unexpired and a current post of the caller grants its application, so a code works once
 * even for two users deciding at the same moment.
 */
export async function deviceDecision(
  ctx: Ctx,
  caller: Caller,
  input: { code: string; decision: 'APPROUVER' | 'REFUSER'; nom: string | null },
): Promise<DeviceDecided> {
  const db = ctx.db
  const { actor, request, now, today } = await typedCode(ctx, caller, input.code)
  const approved = input.decision === 'APPROUVER'
  const userAgent = ctx.request.userAgent
  const { decided } = await namedBatch(ctx.d1, {
    decided: db
      .updateTable('device_authorization')
      .set({
        etat: approved ? 'APPROUVEE' : 'REFUSEE',
        utilisateur_id: actor.id,
        decided_at: now,
        approving_family_id: actor.sid,
        // When the user signed in to the portal: the ID tokens' auth_time.
        auth_time: sql<string>`coalesce((select min(created_at) from refresh_token
          where family_id = ${actor.sid} and utilisateur_id = ${actor.id}), ${now})`,
        approuve_depuis: platformOf(userAgent),
        nom: input.nom,
      })
      .where('id', '=', request.id)
      .where('etat', '=', 'EN_ATTENTE')
      .where('expires_at', '>', now)
      .where(({ exists }) => exists(grantAllowed(db, sql.ref<number>('device_authorization.application_id'))))
      .where(({ exists }) =>
        exists(grantNow(db, actor.id, sql.ref<number>('device_authorization.application_id'), today)),
      ),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'CONNEXION', approved ? 'APPAREIL_APPROBATION' : 'APPAREIL_REFUS', userAgent, {
        commentaire: [request.libelle, input.nom, request.type_appareil].filter(Boolean).join(' · '),
      }),
      afterOneChange(db),
    ),
  })
  // Decided by someone else, expired, or no longer granted in between: the code no longer works.
  if ((decided?.meta.changes ?? 0) === 0) throw unknownCode()
  return {
    decision: input.decision,
    application: { id: request.application_id, libelle: request.libelle },
    nom: input.nom,
  }
}

/** How long a device's session lives from its approval, at most: a shift (its idle life is a portal session's). */
export const DEVICE_SESSION_SECONDS = REFRESH_ABSOLUTE_SECONDS

/**
 * The token endpoint's device code grant (RFC 8628 §3.4–3.5). Its first round trip reads the client, the user and
 * their claims, and records the poll: a poll sooner than the interval adds 5 seconds to it and is answered
 * `slow_down`. Then, by the request's state: `expired_token`, `access_denied`, `authorization_pending`, or, once
 * approved, the tokens: the device's own session (no parent: it outlives the browser that approved it), opened only
 * by the poll that moves the request to issued, while a current post still grants the application, the client still
 * allows the grant and the approving portal session is still open, with its launch entry. Polls spend a budget of
 * their own (`DEVICE_POLLS_PER_ADDRESS_MINUTE`), not the client's token budget. Refresh tokens then rotate at the
 * token endpoint as any client's (refused once the client no longer allows the grant).
 */
export async function deviceCodeGrant(
  ctx: Ctx,
  form: { device_code?: string | undefined },
  credentials: Credentials,
  limits: TokenLimits,
): Promise<TokenAnswer> {
  if (!form.device_code) throw new OAuthError('invalid_request', 'device_code is required')
  const db = ctx.db
  const today = todayIso()
  const now = new Date()
  const at = now.toISOString()
  const hash = await sha256Hex(form.device_code)
  const user = sql<number>`(select utilisateur_id from device_authorization where device_code_hash = ${hash})`
  const authenticated = await authenticatedSql(credentials, {
    table: 'device_authorization',
    column: 'device_code_hash',
    hash,
  })
  const polls = oidcClientAddressCounter(
    'oidc-device-poll',
    credentials.clientId,
    ctx.request.ip,
    DEVICE_POLLS_PER_ADDRESS_MINUTE,
  )
  // A poll of a pending request sooner than its interval allows (every SET reads the row as it was).
  const tooSoon = sql<SqlBool>`last_polled_at is not null and etat = 'EN_ATTENTE'
    and strftime('%Y-%m-%dT%H:%M:%fZ', last_polled_at, '+' || poll_interval || ' seconds') > ${at}`
  const read = await namedBatch(ctx.d1, {
    failures: limits.failuresSoFar,
    // Polls spend a budget of their own, not the client's token budget: waiting devices never hold back refreshes.
    polls: polls.statement(authenticated.sql, { columns: '', values: authenticated.values }),
    client: clientRead(db, credentials.clientId),
    polled: db
      .updateTable('device_authorization')
      .set({
        trop_tot: sql<number>`${tooSoon}`,
        poll_interval: sql<number>`poll_interval + case when ${tooSoon} then ${DEVICE_POLL_INTERVAL_SECONDS} else 0 end`,
        last_polled_at: at,
      })
      .where('device_code_hash', '=', hash)
      // Only the client's own poll counts (another client's id moves nothing).
      .where(
        'application_id',
        '=',
        db.selectFrom('oidc_client').select('application_id').where('client_id', '=', credentials.clientId),
      )
      .returning(['id', 'application_id', 'etat', 'trop_tot', 'expires_at']),
    request: db
      .selectFrom('device_authorization as d')
      .leftJoin('utilisateur as u', 'u.id', 'd.utilisateur_id')
      .select([
        'd.utilisateur_id',
        'd.scope',
        'd.issuer',
        'd.decided_at',
        'd.auth_time',
        'd.nom',
        'd.approuve_depuis',
        'd.nom_navigateur',
        'd.version_navigateur',
        'd.type_appareil',
        'u.actif',
        'u.supprime',
        'u.domain',
        'u.admin',
      ])
      .select(grantedColumn(db, sql.ref<number>('d.utilisateur_id'), sql.ref<number>('d.application_id'), today))
      .where('d.device_code_hash', '=', hash),
    profile: profileQuery(db, user),
    posts: currentPostsQuery(db, user, today),
  })
  limits.checkFailures(read.failures?.results[0])
  const client = await authenticate(ctx, read.client?.results[0], credentials, limits)
  polls.check(read.polls?.results[0])
  if (client.device_grant !== 1) throw grantNotAllowed()
  const polled = read.polled?.results[0]
  const request = read.request?.results[0]
  if (!polled || !request || polled.application_id !== client.application_id) {
    await unknownGrant(limits, client)
    throw new OAuthError('invalid_grant', 'Unknown device code')
  }
  if (polled.etat === 'EMISE') throw new OAuthError('invalid_grant', 'Device code already used')
  if (polled.etat === 'REFUSEE') throw new OAuthError('access_denied', 'The user refused this device')
  if (polled.expires_at <= at) throw new OAuthError('expired_token', 'The device code expired: start again')
  if (polled.etat === 'EN_ATTENTE') {
    if (polled.trop_tot === 1) {
      throw new OAuthError('slow_down', `Polling too fast: wait ${DEVICE_POLL_INTERVAL_SECONDS} seconds more`)
    }
    throw new OAuthError('authorization_pending', 'The user has not decided yet')
  }
  const userId = request.utilisateur_id
  if (userId === null || !request.decided_at || !request.auth_time || request.domain === null) {
    throw new OAuthError('invalid_grant', 'Unknown device code')
  }
  if (!request.actif || request.supprime) throw new OAuthError('invalid_grant', 'User disabled')
  if (request.granted !== 1) throw new OAuthError('invalid_grant', 'No current post grants this application')
  if (!sameDomain(request.domain, ctx.request.origin)) throw new OAuthError('invalid_grant', "Not the user's domain")

  const familyId = crypto.randomUUID()
  const session = await newRefreshToken(
    userId,
    familyId,
    addSeconds(DEVICE_SESSION_SECONDS, new Date(request.decided_at)).toISOString(),
    now,
    {
      id: client.application_id,
      parentFamilyId: null,
      scope: request.scope,
      authTime: request.auth_time,
      issuer: request.issuer,
      appareil: request.nom ?? request.type_appareil ?? client.libelle,
    },
  )
  const { opened } = await namedBatch(ctx.d1, {
    issued: db
      .updateTable('device_authorization')
      .set({ etat: 'EMISE', family_id: familyId })
      .where('id', '=', polled.id)
      .where('etat', '=', 'APPROUVEE')
      .where('expires_at', '>', at)
      .where(({ exists }) => exists(grantNow(db, userId, client.application_id, today)))
      .where(({ exists }) => exists(grantAllowed(db, client.application_id)))
      // The portal session that approved it still open (ended meanwhile: a sign-out, a password change, an
      // administrator), its user still active.
      .where(({ exists }) =>
        exists(
          db
            .selectFrom('refresh_token as approving')
            .innerJoin('utilisateur as u', 'u.id', 'approving.utilisateur_id')
            .select('approving.id')
            .where('approving.family_id', '=', sql.ref<string>('device_authorization.approving_family_id'))
            .where('approving.utilisateur_id', '=', userId)
            .where('approving.revoked_at', 'is', null)
            .where('u.actif', '=', 1)
            .where('u.supprime', '=', 0),
        ),
      ),
    opened: insertWhen(
      db,
      'refresh_token',
      {
        ...session.row,
        nom_navigateur: request.nom_navigateur,
        version_navigateur: request.version_navigateur,
        appareil_approuve_depuis: request.approuve_depuis,
      },
      afterOneChange(db),
    ),
    log: insertWhen(
      db,
      'log',
      logEntry(userId, logTypeForApplication(client.libelle), client.libelle, ctx.request.userAgent, {
        commentaire: request.nom ?? request.type_appareil,
      }),
      afterOneChange(db),
    ),
  })
  if ((opened?.meta.changes ?? 0) === 0) {
    throw new OAuthError('invalid_grant', 'Device code already used, or the session that approved it ended')
  }
  const accessToken = await accessTokenFor(
    ctx,
    { id: userId, admin: request.admin ?? 0, domain: request.domain },
    familyId,
    client.application_id,
    request.scope,
  )
  return answer(ctx, {
    clientId: credentials.clientId,
    issuer: request.issuer,
    accessToken,
    refreshToken: session.token,
    scope: request.scope,
    sid: familyId,
    authTime: request.auth_time,
    nonce: null,
    profile: read.profile?.results[0],
    posts: read.posts?.results ?? [],
  })
}
