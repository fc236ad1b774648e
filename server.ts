import { createRequestHandler, type ServerBuild } from '@remix-run/cloudflare'
// The server build exists after `remix vite:build` (typecheck may run before it).
// biome-ignore lint/suspicious/noTsIgnore: the build is absent on a fresh clone, present after a build
// @ts-ignore
import * as build from './build/server'
import { createApp } from './worker-api/app'
import { API_BASE } from './worker-api/contract/base'
import { IMPORT_MAX_BYTES } from './worker-api/contract/bulk/bulk'
import type { Job } from './worker-api/contract/jobs'
import { logoutRequestSchema } from './worker-api/contract/oidc/oidc'
import { serverTiming } from './worker-api/db/meter'
import {
  bookmarkFromCookie,
  bookmarkSetCookie,
  isWrite,
  openRequestScope,
  type RequestScope,
  timingEnabled,
} from './worker-api/db/request-scope'
import { configurationProblems } from './worker-api/env'
import { backgroundContext } from './worker-api/lib/context'
import {
  isSameOriginWrite,
  securityHeaders,
  withBoundedBody,
  withOwnOrigin,
  withStreamedBound,
} from './worker-api/lib/security-headers'
import type { Env } from './worker-api/lib/types'
import { drainable } from './worker-api/lib/upload-drain'
import { failImport, IMPORT_ATTEMPTS, resumeStalled, runLot } from './worker-api/services/bulk/run'
import { enqueue } from './worker-api/services/core/jobs'
import { deliverOutbox } from './worker-api/services/core/outbox'
import { requestDeadlines } from './worker-api/services/governance/request-notices'
import { reviewDeadlines } from './worker-api/services/governance/review-deadlines'
import { runReviewStep } from './worker-api/services/governance/review-runs'
import { archiveDue, archiveStep } from './worker-api/services/history/archive'
import { failSearch, purgeSearches, SEARCH_ATTEMPTS, searchStep } from './worker-api/services/history/archive-search'
import { tellPostDays } from './worker-api/services/machines/post-days'
import { deliverWebhooks, startDeliveries } from './worker-api/services/machines/webhook-delivery'
import { purgeExpired } from './worker-api/services/maintenance'
import { deliverLogouts } from './worker-api/services/oidc/backchannel'

const DISCOVERY_PATH = '/.well-known/openid-configuration'
/** The page a file to import is posted to, and what its form carries beside the file. */
const IMPORT_PAGE = '/pages/admin/import'
const UPLOAD_FORM_BYTES = 64 * 1024
const RP_LOGOUT_PATH = '/oidc/logout'

/** The hourly trigger of wrangler.toml; the other one runs every minute. */
const PRUNE_CRON = '17 * * * *'

const api = createApp()
const handleRemix = createRequestHandler(build as unknown as ServerBuild)

/** The configuration's problems, worked out once per `env` (one object serves an isolate's requests). */
const checked = new WeakMap<Env, string[]>()
function problemsOf(env: Env): string[] {
  let problems = checked.get(env)
  if (!problems) {
    problems = configurationProblems(env)
    checked.set(env, problems)
  }
  return problems
}

/**
 * RP-initiated logout posted by a relying party's page (RP-Initiated Logout 1.0 §2 allows POST): the
 * browser carries no session cookie on a cross-site post (SameSite=Lax), so it is sent back by GET to
 * the same page, with the same parameters and the same checks; nothing else of the post is kept (it
 * never confirms anything).
 */
async function rpLogoutByGet(request: Request): Promise<Response> {
  const bounded = await withBoundedBody(request)
  if (!bounded) return new Response('Request too large', { status: 413 })
  const type = bounded.headers.get('Content-Type') ?? ''
  const posted = type.startsWith('application/x-www-form-urlencoded')
    ? new URLSearchParams(await bounded.text())
    : new URLSearchParams()
  const query = new URLSearchParams()
  for (const name of Object.keys(logoutRequestSchema.shape)) {
    const value = posted.get(name)
    if (value !== null) query.set(name, value)
  }
  return new Response(null, {
    status: 303,
    headers: { Location: `${RP_LOGOUT_PATH}?${query}`, 'Cache-Control': 'no-store' },
  })
}

function nonce() {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
}

/** A request of the Worker: /portail-backend/* is the REST API, everything else is the Remix UI. */
async function serve(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const problems = problemsOf(env)
  if (problems.length > 0) {
    // Named in the logs only: the public answer says nothing about the configuration.
    console.error(`Refusing to serve until the configuration is fixed: ${problems.join('; ')}`)
    return new Response('Service unavailable: server misconfigured', { status: 503 })
  }
  const url = new URL(request.url)
  if (url.pathname === API_BASE || url.pathname.startsWith(`${API_BASE}/`)) {
    return api.fetch(request, env, ctx)
  }
  // OpenID Connect Discovery is at the issuer's (the origin's) well-known address (DESIGN §4b).
  if (url.pathname === DISCOVERY_PATH) {
    return api.fetch(new Request(`${url.origin}${API_BASE}${DISCOVERY_PATH}${url.search}`, request), env, ctx)
  }
  if (!isSameOriginWrite(request, url)) {
    if (url.pathname === RP_LOGOUT_PATH && request.method === 'POST') return await rpLogoutByGet(request)
    return new Response('Cross-origin request refused', { status: 403 })
  }
  // The import page's upload is a file (its own bound, as the API's), posted to the page without JavaScript and to
  // its data address with it (Remix's single fetch); every other form a few kilobytes.
  const upload = request.method === 'POST' && (url.pathname === IMPORT_PAGE || url.pathname === `${IMPORT_PAGE}.data`)
  const bounded = upload
    ? withStreamedBound(request, IMPORT_MAX_BYTES + UPLOAD_FORM_BYTES)
    : await withBoundedBody(request)
  if (!bounded) return new Response('Request too large', { status: 413 })
  const started = performance.now()
  const cspNonce = nonce()
  const https = url.protocol === 'https:'
  // SAML's pages write on GET (a response's request marked answered, a logout sequence's step): at the primary.
  const write = isWrite(request.method) || url.pathname.startsWith('/saml/')
  // One D1 session and meter for the page: its loaders and all their in-process API calls share them.
  const scoped = openRequestScope(env, {
    bookmark: bookmarkFromCookie(request.headers.get('Cookie'), https),
    write,
    shared: true,
  })
  const scope = scoped.REQUEST_SCOPE as RequestScope
  // The one API instance also serves the UI's in-process calls (DESIGN §1).
  const formTargets = new Set<string>()
  const response = await handleRemix(withOwnOrigin(bounded, url), {
    cloudflare: { env: scoped, ctx },
    cspNonce,
    api,
    meter: scope.meter,
    formTargets,
  })
  const secured = securityHeaders(response, {
    nonce: cspNonce,
    https,
    path: url.pathname,
    turnstile: env.CAPTCHA_PROVIDER === 'turnstile',
    formTargets,
  })
  // After a write, the browser's later reads must see it, wherever they are served from.
  const bookmark = scope.bookmark()
  if (write && bookmark) secured.headers.append('Set-Cookie', bookmarkSetCookie(bookmark, https))
  if (timingEnabled(env)) {
    secured.headers.set('Server-Timing', serverTiming(scope.meter, performance.now() - started))
  }
  // A form that changed someone told integrators: their deliveries start now.
  if (write && scope.meter.emitsEvents)
    ctx.waitUntil(
      startDeliveries(backgroundContext(env)).catch((error) => console.error('Webhook deliveries not started', error)),
    )
  // A form may have ended OpenID Connect sessions (a sign-out): their clients are told now.
  if (write && scope.meter.revokesTokens)
    ctx.waitUntil(
      deliverLogouts(backgroundContext(env)).catch((error) => console.error('Logout delivery failed', error)),
    )
  return secured
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (env.ENVIRONMENT !== 'development' || !request.body) return serve(request, env, ctx)
    // wrangler dev breaks the connection of an upload answered before its end (lib/upload-drain.ts).
    const { request: drained, drain } = drainable(request)
    try {
      return await serve(drained, env, ctx)
    } finally {
      await drain()
    }
  },
  /**
   * wrangler.toml [triggers]: every minute, mail that failed is retried once due (DESIGN §5); once an
   * hour (a trigger of its own, firing beside the minute's), expired tokens, captchas, counters and old mail are
   * pruned, access requests expire or escalate, and the oldest month of history beyond the months kept is queued
   * for its archive.
   */
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    const problems = problemsOf(env)
    if (problems.length > 0) {
      console.error(`Scheduled work skipped until the configuration is fixed: ${problems.join('; ')}`)
      return
    }
    // Both triggers fire at :17: the minute's work runs on the minute's alone, so mail keeps its pace of 25 a minute.
    if (controller.cron !== PRUNE_CRON) {
      ctx.waitUntil(
        deliverOutbox(backgroundContext(env)).then(({ sent, failed }) => {
          if (sent + failed > 0) console.log(`Outbox: ${sent} sent, ${failed} failed`)
        }),
      )
      ctx.waitUntil(
        deliverLogouts(backgroundContext(env)).then(({ sent, failed }) => {
          if (sent + failed > 0) console.log(`Back-channel logouts: ${sent} sent, ${failed} failed`)
        }),
      )
      // A new day's posts that start and end are told, then whatever is due to webhooks goes.
      ctx.waitUntil(
        tellPostDays(backgroundContext(env))
          .then((days) => {
            if (days.length > 0) console.log(`Posts' starts and ends told for ${days.join(', ')}`)
          })
          .catch((error) => console.error("Posts' starts and ends not told", error))
          .then(() => startDeliveries(backgroundContext(env)))
          .catch((error) => console.error('Webhook deliveries not started', error)),
      )
      ctx.waitUntil(
        reviewDeadlines(backgroundContext(env)).then(({ due, resumed, reminded }) => {
          if (due + resumed + reminded > 0)
            console.log(`Access reviews: ${due} due, ${resumed} resumed, ${reminded} administrators reminded`)
        }),
      )
      ctx.waitUntil(
        resumeStalled(backgroundContext(env)).then((resumed) => {
          if (resumed > 0) console.log(`Imports resumed: ${resumed}`)
        }),
      )
      return
    }
    // Each part's failure said in the logs (and the run marked failed): one part failing does not stop the others.
    const hourly = (name: string, work: Promise<unknown>) =>
      ctx.waitUntil(
        work.catch((error: unknown) => {
          console.error(`Hourly ${name} failed`, error)
          throw error
        }),
      )
    hourly(
      'pruning',
      purgeExpired(backgroundContext(env)).then((deleted) => console.log('Pruned expired rows', deleted)),
    )
    hourly(
      'history archive',
      archiveDue(backgroundContext(env)).then((mois) => {
        if (mois) console.log(`History archive: ${mois} queued`)
      }),
    )
    hourly(
      'history searches',
      purgeSearches(backgroundContext(env)).then(({ entries, searches }) => {
        if (entries + searches > 0) console.log(`History searches removed: ${searches} (${entries} entries)`)
      }),
    )
    hourly(
      'access requests',
      requestDeadlines(backgroundContext(env)).then(({ expired, escalated }) => {
        if (expired + escalated > 0) console.log(`Access requests: ${expired} expired, ${escalated} escalated`)
      }),
    )
  },
  /**
   * wrangler.toml [[queues.consumers]]: each message of the jobs queue runs one step of its kind (contract/jobs.ts).
   * An import's lot (services/bulk/run.ts) sends the next; one that fails is delivered again, planned afresh, and
   * after IMPORT_ATTEMPTS the import stops, saying why. A campaign's step is retried until it passes.
   */
  async queue(batch: MessageBatch<Job>, env: Env, _ctx: ExecutionContext) {
    const problems = problemsOf(env)
    if (problems.length > 0) {
      console.error(`Imports wait until the configuration is fixed: ${problems.join('; ')}`)
      batch.retryAll({ delaySeconds: 60 })
      return
    }
    for (const message of batch.messages) {
      const job = message.body
      switch (job.kind) {
        case 'review-step':
          // A step of an access review campaign: retried until it passes (a step is idempotent, the cron sends a
          // stalled campaign's next step again).
          try {
            await runReviewStep(backgroundContext(env), job)
            message.ack()
          } catch (error) {
            console.error(`Review #${job.revueId}, ${job.etape} (attempt ${message.attempts})`, error)
            message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) })
          }
          break
        case 'archive-step':
          // A step of a month's archive: retried until it passes (each step writes once however often it runs).
          try {
            const step = await archiveStep(backgroundContext(env), job)
            // One line per file written and per lot removed: what the month's archive did, in the Worker's logs.
            if (step.step === 'written')
              console.log(
                `History archive ${job.mois}: ${step.fichier}, ${step.lignes} entries${step.listed ? '' : ' (not listed: written before)'}`,
              )
            else if (step.step === 'removed')
              console.log(`History archive ${job.mois}: ${step.lignes} entries removed from D1`)
            message.ack()
          } catch (error) {
            console.error(`History archive ${job.mois} (attempt ${message.attempts})`, error)
            message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) })
          }
          break
        case 'history-search':
          // A step of a search of the archived months: retried a few times, then the search says it failed.
          try {
            await searchStep(backgroundContext(env), job)
            message.ack()
          } catch (error) {
            console.error(`History search ${job.rechercheId} (attempt ${message.attempts})`, error)
            if (message.attempts >= SEARCH_ATTEMPTS) {
              await failSearch(backgroundContext(env), job.rechercheId, 'the archive could not be read')
              message.ack()
            } else message.retry({ delaySeconds: 2 ** message.attempts })
          }
          break
        case 'import-lot':
          try {
            await runLot(backgroundContext(env), job)
            message.ack()
          } catch (error) {
            console.error(`Import #${job.importId}, lot ${job.lot} (attempt ${message.attempts})`, error)
            if (message.attempts >= IMPORT_ATTEMPTS) {
              await failImport(backgroundContext(env), job.importId, 'LOT_EN_ECHEC')
              message.ack()
            } else message.retry({ delaySeconds: 2 ** message.attempts })
          }
          break
        case 'webhook-delivery':
          // What is due goes; a full batch sends the next message at once (the rest waits for its time, and the cron).
          try {
            const { sent, failed, more } = await deliverWebhooks(backgroundContext(env))
            if (sent + failed > 0) console.log(`Webhooks: ${sent} delivered, ${failed} failed`)
            if (more) await enqueue(backgroundContext(env), { kind: 'webhook-delivery' })
            message.ack()
          } catch (error) {
            console.error(`Webhook deliveries (attempt ${message.attempts})`, error)
            message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) })
          }
          break
        default:
          // A message of no kind this Worker knows (sent by another version): said, and left, never retried forever.
          console.error('A job of an unknown kind was dropped', job satisfies never)
          message.ack()
      }
    }
  },
} satisfies ExportedHandler<Env, Job>
