import { type Compilable, sql } from 'kysely'
import type { AccessList, ApplicationSummary, Launch } from '../../contract/catalogue/access'
import { addSeconds, todayIso, toWireDate } from '../../contract/dates'
import type { SamlPost } from '../../contract/saml/saml'
import { batch } from '../../db/client'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { forbidden, notFound } from '../../lib/errors'
import { logTypeForApplication } from '../../lib/log-types'
import type { Ctx } from '../../lib/types'
import { actorWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { userAs, userRead } from '../core/users'

export const LAUNCH_CODE_TTL_SECONDS = 60

/**
 * Applications granted to the functions of the user's current posts (DESIGN §4: derived access); an
 * application switched off in the catalogue is in no launcher.
 */
export function launchableApplications(ctx: Pick<Ctx, 'db'>, userId: number, today = todayIso()) {
  return ctx.db
    .selectFrom('poste as p')
    .innerJoin('fonction_application as fa', 'fa.fonction_id', 'p.fonction_id')
    .innerJoin('application as a', 'a.id', 'fa.application_id')
    .select(['a.id', 'a.libelle', 'a.icone'])
    .distinct()
    .where('a.actif', '=', 1)
    .where('p.utilisateur_id', '=', userId)
    .where('p.date_debut', '<=', today)
    .where('p.date_fin', '>=', today)
    .orderBy('a.libelle')
}

/**
 * In one statement, the applications of the user's current posts (`courant`, by name) and those a
 * future post will open and no current one does, each with the first day one will (DESIGN §4: access
 * starts on the post's start date, with no job to run), soonest first. A post not ended is current
 * or future: an application is current when one of its posts has begun.
 */
export function currentAndFutureApplicationsQuery(ctx: Pick<Ctx, 'db'>, userId: number, today: string) {
  const courant = sql<number>`max(p.date_debut <= ${today})`
  return ctx.db
    .selectFrom('poste as p')
    .innerJoin('fonction_application as fa', 'fa.fonction_id', 'p.fonction_id')
    .innerJoin('application as a', 'a.id', 'fa.application_id')
    .select(['a.id', 'a.libelle', 'a.icone'])
    .select(courant.as('courant'))
    .select(sql<string>`min(p.date_debut)`.as('date_debut'))
    .where('a.actif', '=', 1)
    .where('p.utilisateur_id', '=', userId)
    .where('p.date_fin', '>=', today)
    .groupBy(['a.id', 'a.libelle', 'a.icone'])
    .orderBy(sql`${courant} desc`)
    .orderBy(sql`case when ${courant} = 1 then '' else min(p.date_debut) end`)
    .orderBy('a.libelle')
}

/**
 * The access list of a user, for themself or an admin who may see them: the caller's check, the
 * applications (and for an admin, the user, to check the scope) in one round trip; with `futurs`,
 * also what future posts will open, in the same round trip.
 */
export async function accessOf(ctx: Ctx, caller: Caller, userId: number, futurs = false): Promise<AccessList> {
  const viewer = viewerOf(caller)
  const users = userId === caller.id ? null : userRead(ctx.db, userId, viewer)
  /** The applications read, once the caller is checked and, for another user, may see them. */
  const checked = async <Q extends Compilable<unknown>>(applications: Q) => {
    const { actor, rows, users: target } = await actorWith(ctx, caller, { rows: applications, users })
    if (userId !== actor.id) userAs(actor, userId, target?.[0], viewer.today)
    return rows
  }
  if (!futurs) {
    const rows = await checked(launchableApplications(ctx, userId, viewer.today))
    return { accesApplication: rows.map((application: ApplicationSummary) => ({ application })) }
  }
  return currentAndFuture(await checked(currentAndFutureApplicationsQuery(ctx, userId, viewer.today)))
}

/** The access list of the rows of `currentAndFutureApplicationsQuery`: those launchable today, then the future ones. */
export function currentAndFuture(
  rows: { id: number; libelle: string; icone: string; courant: number; date_debut: string }[],
): Pick<Required<AccessList>, 'accesApplication' | 'accesFuturs'> {
  return {
    accesApplication: rows
      .filter((row) => row.courant === 1)
      .map(({ id, libelle, icone }) => ({ application: { id, libelle, icone } })),
    accesFuturs: rows
      .filter((row) => row.courant !== 1)
      .map(({ id, libelle, icone, date_debut }) => ({
        application: { id, libelle, icone },
        dateDebut: toWireDate(date_debut),
      })),
  }
}

/** How a SAML application is launched: the response its first assertion consumer service is posted. */
export type SamlLaunch = (ctx: Ctx, caller: Caller, applicationId: number) => Promise<SamlPost>

/**
 * Issues a single-use launch code for an application the actor may launch now, and the URL that
 * carries it (DESIGN §4). Root-relative application URLs resolve against the portal's origin.
 */
export async function launch(ctx: Ctx, caller: Caller, applicationId: number, saml?: SamlLaunch): Promise<Launch> {
  const db = ctx.db
  // The caller's check, the application and what the caller may launch: one round trip.
  const {
    actor,
    application: [application],
    applications,
  } = await actorWith(ctx, caller, {
    // Switched off in the catalogue, it answers as an unknown one.
    application: db
      .selectFrom('application as a')
      .leftJoin('oidc_client as c', 'c.application_id', 'a.id')
      .select(['a.id', 'a.libelle', 'a.url', 'a.protocole', 'c.initiate_login_uri'])
      .where('a.id', '=', applicationId)
      .where('a.actif', '=', 1),
    applications: launchableApplications(ctx, caller.id),
  })
  if (!application) throw notFound('Unknown application')
  if (!applications.some((a) => a.id === applicationId))
    throw forbidden('This application is not granted to your current posts')
  const entry = logEntry(
    actor.id,
    logTypeForApplication(application.libelle),
    application.libelle,
    ctx.request.userAgent,
  )
  // A SAML application is sent a signed response nobody asked for (services/saml, which writes its own entry).
  if (application.protocole === 'SAML' && saml) {
    const post = await saml(ctx, caller, application.id)
    return { url: post.url, refreshToken: '', saml: post }
  }
  if (application.protocole !== 'CODE') {
    // Third-party-initiated login (OIDC Core §4): the application starts its own code flow with this
    // issuer and finds the portal session there. A SAML application's address asks the portal's single
    // sign-on service itself. Audited as a launch.
    await db.insertInto('log').values(entry).execute()
    const target = new URL(application.url, ctx.request.origin).toString()
    if (application.protocole === 'SAML' || !application.initiate_login_uri) return { url: target, refreshToken: '' }
    const url = new URL(application.initiate_login_uri)
    url.searchParams.set('iss', ctx.request.origin)
    url.searchParams.set('target_link_uri', target)
    return { url: url.toString(), refreshToken: '' }
  }

  const code = randomToken()
  const now = new Date()
  const expiresAt = addSeconds(LAUNCH_CODE_TTL_SECONDS, now).toISOString()
  // The code and its log entry are written together or not at all.
  await batch(ctx.d1, [
    db.insertInto('refresh_token').values({
      token_hash: await sha256Hex(code),
      utilisateur_id: actor.id,
      family_id: crypto.randomUUID(),
      kind: 'LAUNCH',
      application_id: application.id,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      family_expires_at: expiresAt,
      rotated_at: null,
      revoked_at: null,
      parent_family_id: actor.sid,
    }),
    db.insertInto('log').values(entry),
  ])
  const url = new URL(application.url, ctx.request.origin)
  url.searchParams.set('code', code)
  return { url: url.toString(), refreshToken: code }
}
