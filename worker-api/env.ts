/** Bindings and variables of the Worker (wrangler.toml [vars], .dev.vars, `wrangler secret`). */
export interface Env {
  DB: D1Database
  ASSETS?: Fetcher
  ENVIRONMENT?: string
  /** HS256 key of the access tokens; at least 32 characters. */
  JWT_SECRET: string
  /** Signs the browser session cookie of the Remix side. */
  SESSION_SECRET: string
  /** HMAC key mixed into every password hash. */
  PASSWORD_PEPPER: string
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
  /** Sign-in attempts allowed per client address and minute (default 30). */
  LOGIN_RATE_PER_MINUTE?: string
  /** No-JavaScript captcha answers accepted per client address and minute (default 5). */
  QUESTION_RATE_PER_MINUTE?: string
}

const REQUIRED_SECRETS = ['JWT_SECRET', 'SESSION_SECRET', 'PASSWORD_PEPPER', 'CAPTCHA_HMAC_KEY'] as const

/** Names the missing or too-short secrets, so a misconfigured deploy fails with a clear message. */
export function missingSecrets(env: Partial<Env>): string[] {
  const missing: string[] = REQUIRED_SECRETS.filter((key) => (env[key]?.length ?? 0) < 32)
  if (env.CAPTCHA_PROVIDER === 'turnstile') {
    for (const key of ['TURNSTILE_SITE_KEY', 'TURNSTILE_SECRET_KEY'] as const) if (!env[key]) missing.push(key)
  }
  return missing
}

export type AppEnv = {
  Bindings: Env
  Variables: { actor: import('./services/actor').Actor }
}
