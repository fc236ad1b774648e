import { languageFromAcceptLanguage } from '../contract/language'
import { getDb } from '../db/client'
import { createMeter } from '../db/meter'
import { isLocalEnvironment, productionLimited } from '../db/production-limits'
import type { RequestScope } from '../db/request-scope'
import { requestOrigin } from './domain'
import type { Ctx, Env, RequestEnv, RequestInfo } from './types'

/** The context of a request whose environment carries its scope (db/request-scope.ts). */
export function contextOf(env: RequestEnv & { REQUEST_SCOPE: RequestScope }, request: Request): Ctx {
  return {
    env,
    d1: env.DB,
    db: getDb(env.DB),
    scope: env.REQUEST_SCOPE,
    request: requestInfo(request),
    mail: [],
  }
}

/**
 * Work outside any request (the schedule, the deliveries a request leaves behind, scripts, tests): the
 * database binding itself, no session to follow, and a memo of its own.
 */
export function backgroundContext(env: Env): Ctx {
  const scope: RequestScope = { meter: createMeter(), bookmark: () => null, memo: new Map(), shared: false }
  // Locally, what production's D1 would refuse fails here too (db/production-limits.ts).
  const d1 = isLocalEnvironment(env) ? productionLimited(env.DB) : env.DB
  return {
    env: { ...env, DB: d1, REQUEST_SCOPE: scope },
    d1,
    db: getDb(d1),
    scope,
    request: { origin: '', userAgent: null, ip: null, language: 'fr' },
    mail: [],
  }
}

/** What a request says of itself. */
function requestInfo(request: Request): RequestInfo {
  return {
    origin: requestOrigin(request),
    userAgent: request.headers.get('User-Agent'),
    ip: request.headers.get('CF-Connecting-IP'),
    language: languageFromAcceptLanguage(request.headers.get('Accept-Language')),
  }
}
