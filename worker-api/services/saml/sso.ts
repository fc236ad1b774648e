import { Buffer } from 'node:buffer'
import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { addSeconds, todayIso } from '../../contract/dates'
import type { SamlAnswer, SamlAttributeSource, SamlPost } from '../../contract/saml/saml'
import { type DB, insertWhen, namedBatch, prepared } from '../../db/client'
import type { Database, SignInMethod } from '../../db/schema'
import { browserOf } from '../../lib/browser'
import { randomToken } from '../../lib/crypto'
import { BusinessError, forbidden } from '../../lib/errors'
import { logTypeForApplication, logTypeForApplicationSql } from '../../lib/log-types'
import { uniqueViolation } from '../../lib/query'
import { SamlInputError } from '../../lib/saml/xml'
import { samlEnabled, samlSigner } from '../../lib/saml-keys'
import type { Ctx } from '../../lib/types'
import { grantedColumn, grantNow } from '../catalogue/grants'
import { type Actor, actorWith, type Caller, liveUserOf, sessionOnDomain } from '../core/actor'
import { logEntry } from '../core/audit'
import { currentPostsQuery, type PostRow } from '../oidc/claims'
import {
  checkAuthnRequest,
  type KnownServiceProvider,
  REQUEST_CLOCK_SKEW_SECONDS,
  REQUEST_MAX_AGE_SECONDS,
  receiveAuthnRequest,
  type SsoMessage,
} from './authn-request'
import { NAME_ID_FORMATS, samlEndpoints } from './metadata'
import { type SamlAttribute, STATUS, signedResponse, signedStatusResponse } from './response'

/**
 * Single sign-on to SAML applications (issue 62): a service provider's request is checked and kept by the single
 * sign-on service, which sends the browser to the portal's page; the page, once its user is signed in, asks for the
 * response and posts it. A launch from the launcher posts a response nobody asked for.
 */

/** How long a checked request waits for its user to sign in, and for as long its ID is kept against a replay. */
export const REQUEST_WAIT_SECONDS = REQUEST_MAX_AGE_SECONDS + REQUEST_CLOCK_SKEW_SECONDS

/** A SAML application of the catalogue, switched on, with what its responses need. */
const providerColumns = [
  'sp.application_id',
  'a.libelle',
  'a.url',
  'sp.entity_id',
  'sp.acs',
  'sp.certificats',
  'sp.requetes_signees',
  'sp.format_name_id',
  'sp.signer_reponse',
  'sp.signer_assertion',
  'sp.attributs',
] as const

const providers = (db: DB) =>
  db
    .selectFrom('saml_sp as sp')
    .innerJoin('application as a', 'a.id', 'sp.application_id')
    .select(providerColumns)
    .where('a.actif', '=', 1)
    .where('a.protocole', '=', 'SAML')

type ProviderRow = Awaited<ReturnType<ReturnType<typeof providers>['executeTakeFirstOrThrow']>>

const known = (row: ProviderRow): KnownServiceProvider => ({
  entityId: row.entity_id,
  assertionConsumerServices: JSON.parse(row.acs) as { url: string; index: number | null }[],
  certificates: JSON.parse(row.certificats) as string[],
  authnRequestsSigned: row.requetes_signees === 1,
})

/** A signed message as the HTTP-POST binding sends it: base64 in the form posted to `url`. */
const postOf = (url: string, xml: string, relayState: string | null): SamlPost => ({
  url,
  SAMLResponse: Buffer.from(xml, 'utf8').toString('base64'),
  RelayState: relayState,
})

/** SAML is off without its key: the service answers as for an unknown request. */
function enabled(ctx: Ctx) {
  if (!samlEnabled(ctx.env)) throw new SamlInputError('OFF', 'SAML is not configured')
}

/**
 * The single sign-on service (GET or POST /saml/sso): the request read, its service provider found by the issuer it
 * names (one read), checked, then kept under a new random name for the portal's page, its ID once per provider (a
 * request presented again is refused). Every refusal is a `SamlInputError` naming its reason.
 */
export async function receiveRequest(ctx: Ctx, message: SsoMessage): Promise<{ demande: string; passive: boolean }> {
  enabled(ctx)
  const received = receiveAuthnRequest(message)
  const row = received.issuer
    ? await providers(ctx.db).where('sp.entity_id', '=', received.issuer).executeTakeFirst()
    : undefined
  const now = new Date()
  const request = checkAuthnRequest(received, row ? known(row) : null, {
    destination: samlEndpoints(ctx.request.origin).sso,
    now,
  })
  const id = randomToken()
  try {
    await ctx.db
      .insertInto('saml_demande')
      .values({
        id,
        application_id: (row as ProviderRow).application_id,
        request_id: request.id,
        acs_url: request.acsUrl,
        relay_state: request.relayState,
        force_authn: request.forceAuthn ? 1 : 0,
        passive: request.isPassive ? 1 : 0,
        format_name_id: request.nameIdFormat,
        created_at: now.toISOString(),
        expires_at: addSeconds(REQUEST_WAIT_SECONDS, now).toISOString(),
      })
      .execute()
  } catch (error) {
    if (uniqueViolation(error)) throw new SamlInputError('REPLAYED', 'This request was presented already')
    throw error
  }
  return { demande: id, passive: request.isPassive }
}

/**
 * POST rest/public/bd/saml/passif: a waiting request that asked not to be shown a sign-in (`IsPassive`), for a visitor
 * not signed in: answered once, by a signed response without assertion, status NoPassive (SAML Core §3.4.1). A request
 * that did not ask so is 404, as an unknown one: the page then sends the visitor to sign in.
 */
export async function answerPassive(ctx: Ctx, demande: string): Promise<SamlPost> {
  if (!samlEnabled(ctx.env)) throw requestUnknown()
  const db = ctx.db
  const now = new Date()
  const answered = await db
    .updateTable('saml_demande')
    .set({ repondue_at: now.toISOString(), reponse: 'passive' })
    .where('id', '=', demande)
    .where('passive', '=', 1)
    .where('repondue_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .returning(['acs_url', 'request_id', 'relay_state'])
    .executeTakeFirst()
  if (!answered) throw requestUnknown()
  const xml = signedStatusResponse(
    {
      issuer: samlEndpoints(ctx.request.origin).entityId,
      destination: answered.acs_url,
      inResponseTo: answered.request_id,
      now,
    },
    samlSigner(ctx.env),
    STATUS.noPassive,
  )
  return postOf(answered.acs_url, xml, answered.relay_state)
}

/** The application a sign-in's writes are for, as a subquery of their statements (none: they write nothing). */
type Target<V> = (
  db: DB,
  values: V,
) => SelectQueryBuilder<Database, 'saml_sp' | 'saml_demande', { application_id: number }>

/** A sign-in's user and instant, which each of its writes names. */
type SignInValues = { userId: number; now: string }

/**
 * What a sign-in to an application writes, in the batch that checks its user: the user's persistent name identifier
 * at the application, drawn the first time; the session's sign-in (single logout names it: the name identifier, and
 * the session index it keeps from an earlier sign-in); the launch's entry in the history. Each takes place only for the
 * application `target` finds at that point of the batch: the request this very answer marked, or the application a
 * launch may still post to.
 */
function signInWrites<V extends Record<string, unknown>>(target: Target<V>) {
  const identifier = prepared((db, values: V & SignInValues & { persistent: string }) =>
    db
      .insertInto('saml_identifiant')
      .columns(['application_id', 'utilisateur_id', 'name_id', 'created_at'])
      .expression(
        db
          .selectFrom('saml_sp as sp')
          .select((eb) => [
            'sp.application_id',
            eb.val(values.userId).as('utilisateur_id'),
            eb.val(values.persistent).as('name_id'),
            eb.val(values.now).as('created_at'),
          ])
          .where('sp.format_name_id', '=', 'persistent')
          .where('sp.application_id', 'in', target(db, values)),
      )
      .onConflict((conflict) => conflict.doNothing()),
  )
  const session = prepared((db, values: V & SignInValues & { sid: string; transient: string; sessionIndex: string }) =>
    db
      .insertInto('saml_session')
      .columns([
        'family_id',
        'application_id',
        'utilisateur_id',
        'name_id',
        'format_name_id',
        'session_index',
        'created_at',
      ])
      .expression(
        db
          .selectFrom('saml_sp as sp')
          .select((eb) => [
            eb.val(values.sid).as('family_id'),
            'sp.application_id',
            eb.val(values.userId).as('utilisateur_id'),
            sql<string>`case sp.format_name_id
                when 'email' then (select mail from utilisateur where id = ${values.userId})
                when 'persistent' then (select i.name_id from saml_identifiant i
                  where i.application_id = sp.application_id and i.utilisateur_id = ${values.userId})
                else ${values.transient} end`.as('name_id'),
            'sp.format_name_id',
            eb.val(values.sessionIndex).as('session_index'),
            eb.val(values.now).as('created_at'),
          ])
          .where('sp.application_id', 'in', target(db, values)),
      )
      // Signed in again: the session index given before stands, the name identifier is the new one.
      .onConflict((conflict) =>
        conflict.columns(['family_id', 'application_id']).doUpdateSet((eb) => ({
          name_id: eb.ref('excluded.name_id'),
          format_name_id: eb.ref('excluded.format_name_id'),
        })),
      )
      .returning(['name_id', 'session_index']),
  )
  const log = prepared((db, values: V & SignInValues & { browser: string | null; browserVersion: string | null }) =>
    db
      .insertInto('log')
      .columns(['date', 'utilisateur_id', 'type_log', 'nom_log', 'commentaire', 'nom_navigateur', 'version_navigateur'])
      .expression(
        db
          .selectFrom('application as a')
          .select((eb) => [
            eb.val(values.now).as('date'),
            eb.val(values.userId).as('utilisateur_id'),
            logTypeForApplicationSql(sql.ref('a.libelle')).as('type_log'),
            'a.libelle as nom_log',
            sql<null>`null`.as('commentaire'),
            eb.val(values.browser).as('nom_navigateur'),
            eb.val(values.browserVersion).as('version_navigateur'),
          ])
          .where('a.id', 'in', target(db, values)),
      ),
  )
  return { identifier, session, log }
}

/** The application of the request this answer marked (its `mark`), once marked. */
const markedRequest: Target<{ demande: string; mark: string }> = (db, values) =>
  db
    .selectFrom('saml_demande')
    .select('application_id')
    .where('id', '=', values.demande)
    .where('reponse', '=', values.mark)

/** The application of a launch, while its user may launch it: their session live, a current post granting it. */
const launchedApplication: Target<{
  applicationId: number
  userId: number
  sid: string
  domain: string
  today: string
}> = (db, values) =>
  db
    .selectFrom('saml_sp')
    .select('saml_sp.application_id')
    .where('saml_sp.application_id', '=', values.applicationId)
    .where(sql<SqlBool>`json_array_length(saml_sp.acs) > 0`)
    .where(({ exists }) => exists(grantNow(db, values.userId, values.applicationId, values.today)))
    .where(liveUserOf(db, { userId: values.userId, sid: values.sid, domain: values.domain }))

const answerWrites = signInWrites(markedRequest)
const launchWrites = signInWrites(launchedApplication)

/** The portal session's first token: when and how its user signed in. */
const firstToken = (db: DB, values: { userId: number; sid: string }) =>
  db
    .selectFrom('refresh_token as t')
    .where('t.family_id', '=', values.sid)
    .where('t.utilisateur_id', '=', values.userId)
    .orderBy('t.id')
    .limit(1)

/**
 * A request marked answered by this answer (`mark`) while it waits, its user's session live, its application still a
 * SAML application switched on and granted by a current post, and, if it asked for a new sign-in (ForceAuthn), the
 * session signed in after it was made.
 */
const markAnswer = prepared(
  (
    db,
    values: { demande: string; mark: string; now: string; userId: number; sid: string; domain: string; today: string },
  ) =>
    db
      .updateTable('saml_demande')
      .set({ repondue_at: values.now, reponse: values.mark })
      .where('id', '=', values.demande)
      .where('repondue_at', 'is', null)
      .where('expires_at', '>', values.now)
      .where(liveUserOf(db, values))
      // Still a SAML application of the catalogue (it may have changed protocol since), granted by a current post.
      .where(({ exists }) =>
        exists(providers(db).where('sp.application_id', '=', sql.ref<number>('saml_demande.application_id'))),
      )
      .where(({ exists }) =>
        exists(grantNow(db, values.userId, sql.ref<number>('saml_demande.application_id'), values.today)),
      )
      .where(
        sql<SqlBool>`not (force_authn = 1 and coalesce(${firstToken(db, values).select('t.created_at')}, '') < created_at)`,
      ),
)

/** What a response says of its user, read after the writes: who they are and how the session signed in. */
const subjectColumns = (db: DB, values: { userId: number; sid: string }) =>
  [
    'u.mail',
    'u.prenom',
    'u.nom',
    'u.login',
    sql<string | null>`${firstToken(db, values).select('t.created_at')}`.as('signed_in_at'),
    sql<SignInMethod | null>`${firstToken(db, values).select('t.methode')}`.as('methode'),
  ] as const

/** A request with its application and its user: whether this answer marked it, else why not. */
const requestRead = prepared((db, values: { demande: string; userId: number; sid: string; today: string }) =>
  providers(db)
    .innerJoin('saml_demande as d', 'd.application_id', 'sp.application_id')
    .innerJoin('utilisateur as u', (join) => join.on('u.id', '=', values.userId))
    .select(['d.acs_url', 'd.request_id', 'd.relay_state', 'd.force_authn', 'd.created_at', 'd.expires_at'])
    .select(['d.repondue_at', 'd.reponse'])
    .select(subjectColumns(db, values))
    .select(grantedColumn(db, values.userId, sql.ref<number>('d.application_id'), values.today))
    .where('d.id', '=', values.demande),
)

/** A launched application with its user. */
const launchRead = prepared((db, values: { applicationId: number; userId: number; sid: string }) =>
  providers(db)
    .innerJoin('utilisateur as u', (join) => join.on('u.id', '=', values.userId))
    .select(subjectColumns(db, values))
    .where('sp.application_id', '=', values.applicationId),
)

/** The user's current posts (the `postes` attribute). */
const postsRead = prepared((db, values: { userId: number; today: string }) =>
  currentPostsQuery(db, values.userId, values.today),
)

type SubjectRow = ProviderRow & {
  mail: string
  prenom: string
  nom: string
  login: string
  signed_in_at: string | null
  methode: SignInMethod | null
}

/** The value of each attribute the application is sent. */
function attributeValues(source: SamlAttributeSource, actor: Actor, subject: SubjectRow, posts: PostRow[]): string[] {
  switch (source) {
    case 'mail':
      return [subject.mail]
    case 'prenom':
      return [subject.prenom]
    case 'nom':
      return [subject.nom]
    case 'login':
      return [subject.login]
    case 'postes':
      return posts.map((post) => `${post.structure_nom}/${post.fonction_libelle}`)
    case 'admin':
      return [String(actor.admin)]
  }
}

/** The values of a sign-in's writes: its user, the instant, the identifiers it may need, the entry's browser. */
function signInValues(ctx: Ctx, session: { userId: number; sid: string }, now: Date) {
  const browser = browserOf(ctx.request.userAgent)
  return {
    userId: session.userId,
    sid: session.sid,
    now: now.toISOString(),
    persistent: `p${randomToken(30)}`,
    transient: `t${randomToken(20)}`,
    sessionIndex: `_${randomToken(20)}`,
    browser: browser.name,
    browserVersion: browser.version,
  }
}

/** The signed response about the actor, posted to `to.acsUrl`, its subject as the sign-in wrote it. */
function responseFor(
  ctx: Ctx,
  actor: Actor,
  subject: SubjectRow,
  posts: PostRow[],
  written: { name_id: string; session_index: string },
  to: { acsUrl: string; inResponseTo: string | null; relayState: string | null },
  now: Date,
): SamlPost {
  const wanted = JSON.parse(subject.attributs) as { source: SamlAttributeSource; nom: string }[]
  const attributes: SamlAttribute[] = wanted.map((a) => ({
    name: a.nom,
    values: attributeValues(a.source, actor, subject, posts),
  }))
  const xml = signedResponse(
    {
      issuer: samlEndpoints(ctx.request.origin).entityId,
      audience: subject.entity_id,
      destination: to.acsUrl,
      inResponseTo: to.inResponseTo,
      nameId: { format: NAME_ID_FORMATS[subject.format_name_id], value: written.name_id },
      sessionIndex: written.session_index,
      authnInstant: new Date(subject.signed_in_at ?? now),
      authnContext:
        subject.methode === 'SECOND_FACTEUR' || subject.methode === 'CLE_ACCES' ? 'multiFactor' : 'password',
      attributes,
      now,
    },
    samlSigner(ctx.env),
    { assertion: subject.signer_assertion === 1, response: subject.signer_reponse === 1 },
  )
  return postOf(to.acsUrl, xml, to.relayState)
}

export const requestUnknown = () =>
  new BusinessError('SAML_REQUEST_UNKNOWN', 404, 'Unknown, expired or answered SAML request')

/**
 * POST rest/bd/saml/reponse: the portal's page, for its signed-in user, answers a waiting request, in one round trip:
 * the caller's check; the request marked answered, only while it waits, the session is live, a current post grants the
 * application and, if the request asked for a new sign-in (ForceAuthn), the session signed in after it; the sign-in's
 * writes, only for the request this answer marked; then what the response says. A request not marked says why: a user
 * the application is not granted to is refused (403 SAML_NOT_GRANTED) and the attempt goes in the history, a request
 * asking for a new sign-in is answered `login`, any other is unknown.
 */
export async function answerRequest(ctx: Ctx, caller: Caller, demande: string): Promise<SamlAnswer> {
  if (!samlEnabled(ctx.env)) throw requestUnknown()
  const db = ctx.db
  const session = sessionOnDomain(caller)
  const now = new Date()
  const today = todayIso()
  const { persistent, transient, sessionIndex, ...values } = signInValues(ctx, session, now)
  const { userId, sid } = values
  // This answer's mark: what follows in the batch takes place only if this very answer marked the request.
  const mark = randomToken(16)
  const {
    actor,
    request: [request],
    posts,
    session: [written],
  } = await actorWith(ctx, caller, {
    mark: markAnswer(db, { demande, mark, now: values.now, today, ...session }),
    identifier: answerWrites.identifier(db, { demande, mark, userId, now: values.now, persistent }),
    session: answerWrites.session(db, { demande, mark, userId, sid, now: values.now, transient, sessionIndex }),
    log: answerWrites.log(db, {
      demande,
      mark,
      userId,
      now: values.now,
      browser: values.browser,
      browserVersion: values.browserVersion,
    }),
    request: requestRead(db, { demande, userId, sid, today }),
    posts: postsRead(db, { userId, today }),
  })
  if (!request) throw requestUnknown()
  const { libelle } = request
  if (request.reponse === mark && written) {
    const to = { acsUrl: request.acs_url, inResponseTo: request.request_id, relayState: request.relay_state }
    return { action: 'post', libelle, post: responseFor(ctx, actor, request, posts, written, to, now) }
  }
  // Answered already (the page sent twice, another page), or expired.
  if (request.repondue_at !== null || request.expires_at <= values.now) throw requestUnknown()
  if (request.force_authn === 1 && (request.signed_in_at ?? '') < request.created_at)
    return { action: 'login', libelle }
  if (request.granted !== 1) {
    // The attempt is in the history, once per request.
    const answered = db
      .updateTable('saml_demande')
      .set({ repondue_at: values.now, reponse: mark })
      .where('id', '=', demande)
      .where('repondue_at', 'is', null)
      .where('expires_at', '>', values.now)
      .where(liveUserOf(db, session))
    const mine = db.selectFrom('saml_demande').select('id').where('id', '=', demande).where('reponse', '=', mark)
    await namedBatch(ctx.d1, {
      answered,
      log: insertWhen(
        db,
        'log',
        logEntry(actor.id, logTypeForApplication(libelle), libelle, ctx.request.userAgent, {
          commentaire: 'SAML : refusé, aucun poste actuel ne donne accès à cette application',
        }),
        mine,
      ),
    })
    throw new BusinessError('SAML_NOT_GRANTED', 403, 'No current post grants this application', [libelle])
  }
  throw requestUnknown()
}

/**
 * A launch from the launcher (IdP-initiated): a response nobody asked for (no InResponseTo), posted to the
 * application's first assertion consumer service, its RelayState the application's address. Called by the catalogue's
 * launch once it has checked the actor may launch the application: the sign-in's writes, while the grant holds and the
 * session is live, then what the response says, in one batch.
 */
export async function launchResponse(ctx: Ctx, caller: Caller, applicationId: number): Promise<SamlPost> {
  if (!samlEnabled(ctx.env)) throw new BusinessError('NOT_FOUND', 404, 'SAML is not configured')
  const db = ctx.db
  const session = sessionOnDomain(caller)
  const now = new Date()
  const today = todayIso()
  const { persistent, transient, sessionIndex, ...values } = signInValues(ctx, session, now)
  const { userId, sid } = values
  const launched = { applicationId, today, ...session }
  const {
    actor,
    application: [application],
    posts,
    session: [written],
  } = await actorWith(ctx, caller, {
    identifier: launchWrites.identifier(db, { ...launched, now: values.now, persistent }),
    session: launchWrites.session(db, { ...launched, now: values.now, transient, sessionIndex }),
    log: launchWrites.log(db, {
      ...launched,
      now: values.now,
      browser: values.browser,
      browserVersion: values.browserVersion,
    }),
    application: launchRead(db, { applicationId, userId, sid }),
    posts: postsRead(db, { userId, today }),
  })
  const acs = application ? known(application).assertionConsumerServices[0] : undefined
  if (!application || !acs) throw new BusinessError('NOT_FOUND', 404, 'Unknown application')
  // The grant ended since the launcher's check.
  if (!written) throw forbidden('This application is not granted to your current posts')
  const target = new URL(application.url, ctx.request.origin).toString()
  return responseFor(
    ctx,
    actor,
    application,
    posts,
    written,
    { acsUrl: acs.url, inResponseTo: null, relayState: target },
    now,
  )
}
