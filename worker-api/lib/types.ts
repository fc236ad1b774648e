import type { Job } from '../contract/jobs'
import type { Language } from '../contract/language'
import type { DB } from '../db/client'
import type { RequestScope } from '../db/request-scope'
import type { AccessClaims } from './jwt'

/** Bindings and variables of the Worker (wrangler.toml [vars], .dev.vars, `wrangler secret`). */
export interface Env {
  DB: D1Database
  /** The jobs queue (wrangler.toml): each message one step of a long piece of work (contract/jobs.ts). */
  JOBS?: Queue<Job>
  /** The history's archive (wrangler.toml, issue 64): months beyond historiqueMoisEnLigne as Parquet files. */
  ARCHIVE?: R2Bucket
  ASSETS?: Fetcher
  ENVIRONMENT?: string
  /** HS256 key of the access tokens; at least 32 characters. */
  JWT_SECRET: string
  /** Signs the browser session cookie of the Remix side. */
  SESSION_SECRET: string
  /** HMAC key mixed into every new password hash. */
  PASSWORD_PEPPER: string
  /** The id stored with the hashes PASSWORD_PEPPER makes (default "1"); change it with the pepper. */
  PASSWORD_PEPPER_ID?: string
  /** Former peppers, "id:secret" pairs: hashes made with them still verify and are renewed at sign-in. */
  PASSWORD_PEPPERS_RETIRED?: string
  /** HMAC key of the self-hosted captcha challenges. */
  CAPTCHA_HMAC_KEY: string
  /** `altcha` (self-hosted, default) or `turnstile`. */
  CAPTCHA_PROVIDER?: string
  TURNSTILE_SECRET_KEY?: string
  TURNSTILE_SITE_KEY?: string
  /** Work factor of the proof-of-work challenge (tests lower it). */
  CAPTCHA_MAX_NUMBER?: string
  /** `log` (the mail stays in the outbox, readable at /dev/mails in development) or `resend`. */
  MAIL_PROVIDER?: string
  /** Sender of the mails, e.g. `Portail <portail@example.org>` (required with `resend`). */
  MAIL_FROM?: string
  RESEND_API_KEY?: string
  /** Forgotten-password requests allowed per client address and minute (default 5). */
  FORGOT_RATE_PER_MINUTE?: string
  /** Mail availability checks per client address and minute (default 30). */
  MAIL_CHECK_RATE_PER_MINUTE?: string
  /** Sign-in attempts allowed per client address and minute (default 30). */
  LOGIN_RATE_PER_MINUTE?: string
  /** No-JavaScript captcha answers accepted per client address and minute (default 5). */
  QUESTION_RATE_PER_MINUTE?: string
  /** Carrier self-registrations per client address and minute (default 5). */
  REGISTRATION_RATE_PER_MINUTE?: string
  /** History entries a signed-in user may post (POST logs/) a minute (default 60). */
  CLIENT_LOG_RATE_PER_MINUTE?: string
  /** The structure type of carrier companies: those a visitor registers with (spec §1 transporters). */
  CARRIER_TYPE_ID?: string
  /** The structure a carrier typed at registration is created under (of the carrier type's parent type). */
  CARRIER_PARENT_ID?: string
  /**
   * The OpenID Connect provider's ES256 key, a private JWK (README, "OpenID Connect"); without it the
   * provider is off. `…_NEXT`: the key a rotation brings, published in the JWKS before it signs.
   */
  OIDC_SIGNING_KEY?: string
  OIDC_SIGNING_KEY_NEXT?: string
  /**
   * The SAML identity provider's RSA key, PKCS#8 PEM, and its certificate, PEM (README, "SAML 2.0"); without them SAML
   * is off. `SAML_IDP_CERT_NEXT`: a second certificate the metadata publishes during a rotation.
   */
  SAML_IDP_KEY?: string
  SAML_IDP_CERT?: string
  SAML_IDP_CERT_NEXT?: string
  /** Seals the client secrets of partners' identity providers (README, "Identity providers"); ≥ 32 characters. */
  FOURNISSEUR_SECRET_KEY?: string
  /** Seals the secrets of webhook subscriptions (README, "Webhooks"); ≥ 32 characters. */
  WEBHOOK_SECRET_KEY?: string
  /** Token endpoint calls allowed per OpenID Connect client and minute (default 120). */
  OIDC_TOKEN_RATE_PER_MINUTE?: string
  /** Calls a service account may make a minute (default 600, `SERVICE_ACCOUNT_CALLS_PER_MINUTE`). */
  SERVICE_ACCOUNT_RATE_PER_MINUTE?: string
  /** `on`: responses carry a `Server-Timing` header (always on in development). */
  SERVER_TIMING?: string
}

/**
 * The environment one request runs with: the Worker's bindings and the state the Worker adds for that
 * request (db/request-scope.ts: its D1 session, meter and memo), absent only outside a request.
 */
export type RequestEnv = Env & { REQUEST_SCOPE?: RequestScope }

/**
 * Who is calling: the user of the access token (`id`), the application it was issued to (`app`, null
 * for the portal), its claims, the origin of the request and the key its checks are memoised under.
 */
export type Caller = { id: number; app: number | null; claims: Readonly<AccessClaims>; origin: string; key: string }

/** What the services know of the HTTP request itself. */
export type RequestInfo = { origin: string; userAgent: string | null; ip: string | null; language: Language }

/**
 * What every service works with, built once per request by the API's first middleware (app.ts):
 * the settings, the request's D1 session (`d1`, and Kysely on it, `db`), its scope (meter, memo,
 * bookmark), what the request says of itself, and the mail it queued, which the middleware delivers
 * once the response is sent.
 */
export type Ctx = {
  /** The Worker's settings and secrets (its `DB` is the request's session, as `d1`). */
  env: RequestEnv
  d1: D1Database
  db: DB
  scope: RequestScope
  request: RequestInfo
  /** The outbox's ids the request queued: delivered after the response (app.ts). */
  mail: number[]
}

/**
 * The Hono environment of the API's routes: the request's environment, its context (lib/context.ts)
 * and the caller the auth middleware found.
 */
export type AppEnv = {
  Bindings: RequestEnv
  Variables: { ctx: Ctx; caller: Caller }
}
