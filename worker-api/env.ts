import { signingKeyProblem } from './lib/oidc-keys'
import { FIRST_PEPPER_ID, PEPPER_ID, retiredPepperEntries } from './lib/password'

/**
 * Development and tests: this machine is where relying parties run (loopback client addresses are
 * accepted, back-channel logouts go there); never in production.
 */
export const isLocalEnvironment = (env: Pick<Env, 'ENVIRONMENT'>) =>
  env.ENVIRONMENT === 'development' || env.ENVIRONMENT === 'test'

/** Bindings and variables of the Worker (wrangler.toml [vars], .dev.vars, `wrangler secret`). */
export interface Env {
  DB: D1Database
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
  /** Token endpoint calls allowed per OpenID Connect client and minute (default 120). */
  OIDC_TOKEN_RATE_PER_MINUTE?: string
  /** `on`: responses carry a `Server-Timing` header (always on in development). */
  SERVER_TIMING?: string
}

const REQUIRED_SECRETS = ['JWT_SECRET', 'SESSION_SECRET', 'PASSWORD_PEPPER', 'CAPTCHA_HMAC_KEY'] as const
const MIN_SECRET_LENGTH = 32

/**
 * The values of `.dev.vars.example` are published with the code: they all start with this marker
 * (a unit test keeps it so), and a Worker outside development refuses to run with any of them.
 */
export const DEVELOPMENT_ONLY_MARKER = 'dev-only-'

/** Names the missing or too-short secrets, so a misconfigured deploy fails with a clear message. */
export function missingSecrets(env: Partial<Env>): string[] {
  const missing: string[] = REQUIRED_SECRETS.filter((key) => (env[key]?.length ?? 0) < MIN_SECRET_LENGTH)
  if (env.CAPTCHA_PROVIDER === 'turnstile') {
    for (const key of ['TURNSTILE_SITE_KEY', 'TURNSTILE_SECRET_KEY'] as const) if (!env[key]) missing.push(key)
  }
  return missing
}

/** Settings read as counts: a value that is not one (`30/min`, `thirty`) would limit nothing. */
const WHOLE_NUMBER_SETTINGS = [
  'FORGOT_RATE_PER_MINUTE',
  'MAIL_CHECK_RATE_PER_MINUTE',
  'LOGIN_RATE_PER_MINUTE',
  'QUESTION_RATE_PER_MINUTE',
  'REGISTRATION_RATE_PER_MINUTE',
  'CLIENT_LOG_RATE_PER_MINUTE',
  'CAPTCHA_MAX_NUMBER',
  'OIDC_TOKEN_RATE_PER_MINUTE',
] as const

/**
 * Everything that keeps the Worker from serving, each naming its setting: missing or short secrets,
 * the published development values anywhere but in development, a pepper keyring it cannot read, and a
 * rate or work factor that is no whole number.
 */
export function configurationProblems(env: Partial<Env>): string[] {
  const problems = missingSecrets(env).map((key) => `${key} is missing or shorter than ${MIN_SECRET_LENGTH} characters`)
  if (env.ENVIRONMENT !== 'development') {
    for (const key of [
      ...REQUIRED_SECRETS,
      'PASSWORD_PEPPERS_RETIRED',
      'OIDC_SIGNING_KEY',
      'OIDC_SIGNING_KEY_NEXT',
    ] as const) {
      if (env[key]?.includes(DEVELOPMENT_ONLY_MARKER)) {
        problems.push(`${key} holds a published development-only value (see .dev.vars.example)`)
      }
    }
  }
  if (env.PASSWORD_PEPPER_ID !== undefined && !PEPPER_ID.test(env.PASSWORD_PEPPER_ID)) {
    problems.push('PASSWORD_PEPPER_ID must be 1 to 16 letters, digits, "-" or "_"')
  }
  const retired = retiredPepperEntries(env.PASSWORD_PEPPERS_RETIRED)
  if (retired.some(([id, secret]) => !PEPPER_ID.test(id) || secret.length < MIN_SECRET_LENGTH)) {
    problems.push(`PASSWORD_PEPPERS_RETIRED must be "id:secret" pairs, secrets of ${MIN_SECRET_LENGTH}+ characters`)
  }
  if (retired.some(([id]) => id === (env.PASSWORD_PEPPER_ID ?? FIRST_PEPPER_ID))) {
    problems.push('PASSWORD_PEPPER_ID names a retired pepper')
  }
  for (const key of ['OIDC_SIGNING_KEY', 'OIDC_SIGNING_KEY_NEXT'] as const) {
    const problem = signingKeyProblem(env[key], key)
    if (problem) problems.push(problem)
  }
  if (env.OIDC_SIGNING_KEY_NEXT && !env.OIDC_SIGNING_KEY)
    problems.push('OIDC_SIGNING_KEY_NEXT is set without OIDC_SIGNING_KEY')
  for (const key of WHOLE_NUMBER_SETTINGS) {
    const value = env[key]
    if (value !== undefined && !/^\d{1,9}$/.test(value.trim())) problems.push(`${key} must be a whole number`)
  }
  return problems
}
