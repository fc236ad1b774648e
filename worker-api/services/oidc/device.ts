import { addSeconds } from '../../contract/dates'
import {
  DEVICE_CODE_TTL_SECONDS,
  DEVICE_PAGE,
  DEVICE_POLL_INTERVAL_SECONDS,
  formatUserCode,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
} from '../../contract/oidc/device'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { browserOf, deviceOf } from '../../lib/browser'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { clientCredentials, OAuthError, oauthLimited } from '../../lib/oauth'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'
import { tokenLimits } from '../core/client-auth-failures'
import { oidcClientAddressCounter, oidcClientCounter } from '../core/rate-limit'
import { grantedScopes } from './claims'
import { authenticate, authenticatedSql, clientRead } from './client-auth'

/**
 * The device authorization grant (RFC 8628; issue 66). A device asks for a pair of codes (`deviceAuthorization`), a
 * user signed in on the portal approves or refuses the user code on /appareil, and the device polls the token endpoint
 * with its device code until then.
 */

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

/** The client still allows the grant, switched on: what a request's row and its entry are written under. */
const grantAllowed = (db: DB, applicationId: number) =>
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
      overall: overall.statement(authenticated.sql, counted),
      client: clientRead(db, credentials.clientId),
    })
    limits.checkFailures(read.failures?.results[0])
    const client = await authenticate(ctx, read.client?.results[0], credentials, limits)
    fromAddress.check(read.fromAddress?.results[0])
    overall.check(read.overall?.results[0])
    if (client.device_grant !== 1) {
      throw new OAuthError('unauthorized_client', 'This client may not use the device authorization grant')
    }
    const scope = grantedScopes(form.scope ?? 'openid')
    if (!scope.split(' ').includes('openid')) throw new OAuthError('invalid_scope', 'scope must include openid')

    const deviceCode = randomToken()
    const userCode = newUserCode()
    const now = new Date()
    const userAgent = ctx.request.userAgent
    const browser = browserOf(userAgent)
    const device = deviceOf(userAgent)
    const issuer = ctx.request.origin
    const allowed = grantAllowed(db, client.application_id)
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
      ),
      log: insertWhen(
        db,
        'log',
        {
          ...logEntry(0, 'CONNEXION', 'APPAREIL_DEMANDE', userAgent, {
            commentaire: device ? `${client.libelle} (${device})` : client.libelle,
          }),
          utilisateur_id: null,
        },
        allowed,
      ),
    })
    // Switched off meanwhile: no code was issued.
    if ((written.request?.meta.changes ?? 0) === 0) {
      throw new OAuthError('unauthorized_client', 'This client may not use the device authorization grant')
    }
    const page = `${issuer}${DEVICE_PAGE}`
    return {
      device_code: deviceCode,
      user_code: formatUserCode(userCode),
      verification_uri: page,
      verification_uri_complete: `${page}?code=${formatUserCode(userCode)}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    }
  })
}
