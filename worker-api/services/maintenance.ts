import { sql } from 'kysely'
import { addSeconds } from '../contract/dates'
import { EVENT_KEPT_DAYS } from '../contract/machines/events'
import { namedBatch } from '../db/client'
import type { Ctx } from '../lib/types'
import { FAILURE_RUN_QUIET_SECONDS } from './core/client-auth-failures'
import { REUSE_GRACE_SECONDS } from './sign-in/auth'

const HOUR = 3600
const DAY = 24 * HOUR
/** The days an ended import and its errors are kept (README, "Moving an organisation in"). */
export const IMPORT_KEPT_DAYS = 30

/**
 * Deletes what can no longer matter (hourly cron): spent captchas, expired tokens and challenges, old counters,
 * month-old mail and imports. Refresh token families go past their absolute lifetime (reuse detection needs nothing older), the
 * user list's totals the day before yesterday in UTC, whatever the organisation's time zone.
 */
export async function purgeExpired(ctx: Ctx, now = new Date()) {
  const db = ctx.db
  const at = (seconds: number) => addSeconds(-seconds, now).toISOString()
  const results = await namedBatch(ctx.d1, {
    captchas: db.deleteFrom('captcha_used').where('expires_at', '<', now.toISOString()),
    assertions: db.deleteFrom('client_assertion_jti').where('expires_at', '<', now.toISOString()),
    refreshTokens: db.deleteFrom('refresh_token').where('family_expires_at', '<', at(DAY)),
    // Past its grace window a rotated token only ever revokes: the pair it keeps for retries goes.
    successors: db
      .updateTable('refresh_token')
      .set({ successor: null })
      .where('successor', 'is not', null)
      .where('rotated_at', '<', addSeconds(-REUSE_GRACE_SECONDS, now).toISOString()),
    loginAttempts: db
      .deleteFrom('login_attempt')
      .where('last_failure_at', '<', at(12 * HOUR))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())])),
    rateLimits: db.deleteFrom('rate_limit').where('window_start', '<', at(HOUR)),
    // A run of failed client authentications ends after an hour without one (its history entry stays).
    failureRuns: db.deleteFrom('client_auth_failure_run').where('last_failure_at', '<', at(FAILURE_RUN_QUIET_SECONDS)),
    mailTokens: db.deleteFrom('mail_token').where('expires_at', '<', at(30 * DAY)),
    // An authorization code lives 60 s; kept a day, a replay of it is still recognised (and revokes).
    oidcCodes: db.deleteFrom('oidc_code').where('expires_at', '<', at(DAY)),
    // A device's request lives 10 minutes; kept a day, a device polling late is told it expired, not that it is unknown.
    deviceRequests: db.deleteFrom('device_authorization').where('expires_at', '<', at(DAY)),
    // A sign-in's second step and WebAuthn's ceremonies live 5 minutes.
    mfaChallenges: db.deleteFrom('mfa_challenge').where('expires_at', '<', now.toISOString()),
    // An enrolment never confirmed is forgotten after a day (a confirmed TOTP keeps its row).
    pendingTotp: db
      .updateTable('mfa_totp')
      .set({ pending_secret: null, pending_created_at: null })
      .where('pending_created_at', '<', at(DAY)),
    logouts: db.deleteFrom('logout_delivery').where('created_at', '<', at(30 * DAY)),
    // A sign-in at a partner's provider comes back within 10 minutes or never.
    federationStates: db.deleteFrom('fournisseur_etat').where('expires_at', '<', now.toISOString()),
    // A session opened through a provider, once past any portal session's absolute lifetime.
    federatedSessions: db.deleteFrom('session_fournisseur').where('created_at', '<', at(2 * DAY)),
    // A SAML request is presented within minutes; its ID, kept while it could be, refuses a replay.
    samlRequests: db.deleteFrom('saml_demande').where('expires_at', '<', now.toISOString()),
    // A portal session's sign-ins to SAML applications, once the session is gone (past its absolute lifetime).
    samlSessions: db
      .deleteFrom('saml_session')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('refresh_token').select('id').whereRef('refresh_token.family_id', '=', 'saml_session.family_id'),
          ),
        ),
      ),
    // Single logouts a month old: told, refused or not reachable, they have been recorded long enough.
    samlLogouts: db.deleteFrom('saml_deconnexion').where('created_at', '<', at(30 * DAY)),
    // Mail a month old, delivered or given up on, has told what it had to tell.
    mails: db.deleteFrom('outbox').where('created_at', '<', at(30 * DAY)),
    listTotals: db.deleteFrom('utilisateur_liste_total').where('jour', '<', at(DAY).slice(0, 10)),
    // An import ended a month ago, with its errors (ON DELETE CASCADE): its history entry stays.
    imports: db.deleteFrom('import').where('finished_at', '<', at(IMPORT_KEPT_DAYS * DAY)),
    // A preview kept for "Importer" and left a day; a file whose upload stopped midway (its request cut before it
    // could discard what it had stored), a day after it began.
    // Events past the days kept, read in the order they came (their ids), and their deliveries (ON DELETE CASCADE).
    events: db.deleteFrom('evenement').where(
      'id',
      '<',
      sql<number>`coalesce(
        (select id from evenement where date >= ${at(EVENT_KEPT_DAYS * DAY)} order by id limit 1),
        (select max(id) + 1 from evenement))`,
    ),
    // The days whose posts' starts and ends were told: the last one is what the next run reads, kept however old (a
    // cron stopped for long resumes from it).
    postDays: db
      .deleteFrom('evenement_jour')
      .where('jour', '<', at(EVENT_KEPT_DAYS * DAY).slice(0, 10))
      .where('jour', '<', sql<string>`(select max(latest.jour) from evenement_jour latest)`),
    previews: db.deleteFrom('import').where('etat', 'in', ['APERCU', 'RECEPTION']).where('created_at', '<', at(DAY)),
  })
  return Object.fromEntries(Object.entries(results).map(([name, result]) => [name, result?.meta.changes])) as Record<
    keyof typeof results,
    number | undefined
  >
}
