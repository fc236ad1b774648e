import { signingKeyProblem } from './lib/oidc-keys'
import { FIRST_PEPPER_ID, PEPPER_ID, retiredPepperEntries } from './lib/password'
import { samlKeyProblems } from './lib/saml-keys'
import type { Env } from './lib/types'

/**
 * Development and tests: this machine is where relying parties run (loopback client addresses are
 * accepted, back-channel logouts go there); never in production.
 */
export const isLocalEnvironment = (env: Pick<Env, 'ENVIRONMENT'>) =>
  env.ENVIRONMENT === 'development' || env.ENVIRONMENT === 'test'

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
  'SERVICE_ACCOUNT_RATE_PER_MINUTE',
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
      'FOURNISSEUR_SECRET_KEY',
      'WEBHOOK_SECRET_KEY',
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
  problems.push(...samlKeyProblems(env))
  for (const key of WHOLE_NUMBER_SETTINGS) {
    const value = env[key]
    if (value !== undefined && !/^\d{1,9}$/.test(value.trim())) problems.push(`${key} must be a whole number`)
  }
  return problems
}
