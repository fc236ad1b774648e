import { Buffer } from 'node:buffer'
import { type Expression, sql } from 'kysely'
import { addSeconds, todayIso } from '../../contract/dates'
import type { SamlAnswer, SamlAttributeSource, SamlPost } from '../../contract/saml/saml'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import type { SignInMethod } from '../../db/schema'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { BusinessError } from '../../lib/errors'
import { logTypeForApplication } from '../../lib/log-types'
import { uniqueViolation } from '../../lib/query'
import { SamlInputError } from '../../lib/saml/xml'
import { samlEnabled, samlSigner } from '../../lib/saml-keys'
import type { Ctx } from '../../lib/types'
import { grantNow } from '../catalogue/grants'
import { type Actor, actorWith, type Caller } from '../core/actor'
import { logEntry } from '../core/audit'
import { currentPostsQuery, type PostRow, type ProfileRow, profileQuery } from '../oidc/claims'
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
  'sp.sel',
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

/** What a response says of its user: who they are and how they signed in, read with the caller's check. */
function subjectReads(db: DB, caller: Caller, application: Expression<number> | number, today: string) {
  return {
    profile: profileQuery(db, caller.id),
    posts: currentPostsQuery(db, caller.id, today),
    // The portal session's first token: when and how its user signed in.
    signIn: db
      .selectFrom('refresh_token')
      .select(['created_at', 'methode'])
      .where('family_id', '=', caller.claims.sid)
      .where('utilisateur_id', '=', caller.id)
      .orderBy('id')
      .limit(1),
    known: db
      .selectFrom('saml_session')
      .select('session_index')
      .where('family_id', '=', caller.claims.sid)
      .where('application_id', '=', application),
  }
}

type SubjectRows = {
  profile: ProfileRow[]
  posts: PostRow[]
  signIn: { created_at: string; methode: SignInMethod | null }[]
  known: { session_index: string }[]
}

/** The value of each attribute the application is sent. */
function attributeValues(source: SamlAttributeSource, actor: Actor, rows: SubjectRows): string[] {
  const profile = rows.profile[0] as ProfileRow
  switch (source) {
    case 'mail':
      return [profile.mail]
    case 'prenom':
      return [profile.prenom]
    case 'nom':
      return [profile.nom]
    case 'login':
      return [profile.login]
    case 'postes':
      return rows.posts.map((post) => `${post.structure_nom}/${post.fonction_libelle}`)
    case 'admin':
      return [String(actor.admin)]
  }
}

/**
 * A signed response about the actor for the application, posted to `acsUrl`, and the writes that go with it: the
 * session's sign-in to the application (single logout names it) and the launch's entry in the history, each only while
 * `guard` holds in the batch.
 */
async function responseFor(
  ctx: Ctx,
  actor: Actor,
  provider: ProviderRow,
  rows: SubjectRows,
  to: { acsUrl: string; inResponseTo: string | null; relayState: string | null },
  guard: Expression<unknown>,
) {
  const db = ctx.db
  const now = new Date()
  const format = provider.format_name_id
  const profile = rows.profile[0] as ProfileRow
  const nameId =
    format === 'email'
      ? profile.mail
      : format === 'persistent'
        ? `p${(await sha256Hex(`${provider.sel}:${actor.id}`)).slice(0, 40)}`
        : `t${randomToken(20)}`
  const sessionIndex = rows.known[0]?.session_index ?? `_${randomToken(20)}`
  const signIn = rows.signIn[0]
  const wanted = JSON.parse(provider.attributs) as { source: SamlAttributeSource; nom: string }[]
  const attributes: SamlAttribute[] = wanted.map((a) => ({
    name: a.nom,
    values: attributeValues(a.source, actor, rows),
  }))
  const xml = signedResponse(
    {
      issuer: samlEndpoints(ctx.request.origin).entityId,
      audience: provider.entity_id,
      destination: to.acsUrl,
      inResponseTo: to.inResponseTo,
      nameId: { format: NAME_ID_FORMATS[format], value: nameId },
      sessionIndex,
      authnInstant: new Date(signIn?.created_at ?? now),
      authnContext:
        signIn?.methode === 'SECOND_FACTEUR' || signIn?.methode === 'CLE_ACCES' ? 'multiFactor' : 'password',
      attributes,
      now,
    },
    samlSigner(ctx.env),
    { assertion: provider.signer_assertion === 1, response: provider.signer_reponse === 1 },
  )
  const post = postOf(to.acsUrl, xml, to.relayState)
  const writes = {
    session: insertWhen(
      db,
      'saml_session',
      {
        family_id: actor.sid,
        application_id: provider.application_id,
        utilisateur_id: actor.id,
        name_id: nameId,
        format_name_id: format,
        session_index: sessionIndex,
        created_at: now.toISOString(),
      },
      guard,
    ).onConflict((conflict) =>
      conflict.columns(['family_id', 'application_id']).doUpdateSet((eb) => ({
        name_id: eb.ref('excluded.name_id'),
        format_name_id: eb.ref('excluded.format_name_id'),
      })),
    ),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, logTypeForApplication(provider.libelle), provider.libelle, ctx.request.userAgent),
      guard,
    ),
  }
  return { post, writes }
}

export const requestUnknown = () =>
  new BusinessError('SAML_REQUEST_UNKNOWN', 404, 'Unknown, expired or answered SAML request')

/**
 * POST rest/bd/saml/reponse: the portal's page, for its signed-in user, answers a waiting request. The caller's check,
 * the request with its application, the grant, and what the response says of the user: one round trip. A user the
 * application is not granted to is refused (403 SAML_NOT_GRANTED) and the attempt goes in the history; a request that
 * asked for a new sign-in (ForceAuthn) made after the session's is answered `login`. The request is answered once:
 * marking it, the session's sign-in and the launch's entry are one batch, written only while the grant holds.
 */
export async function answerRequest(ctx: Ctx, caller: Caller, demande: string): Promise<SamlAnswer> {
  if (!samlEnabled(ctx.env)) throw requestUnknown()
  const db = ctx.db
  const today = todayIso()
  const now = new Date()
  const application = sql<number>`(select application_id from saml_demande where id = ${demande})`
  const { actor, request, ...rows } = await actorWith(ctx, caller, {
    request: providers(db)
      .innerJoin('saml_demande as d', 'd.application_id', 'sp.application_id')
      .select(['d.acs_url', 'd.request_id', 'd.relay_state', 'd.force_authn', 'd.created_at'])
      .where('d.id', '=', demande)
      .where('d.expires_at', '>', now.toISOString())
      .where('d.repondue_at', 'is', null),
    granted: db.selectNoFrom((eb) => eb.exists(grantNow(db, caller.id, application, today)).as('granted')),
    ...subjectReads(db, caller, application, today),
  })
  const waiting = request[0]
  if (!waiting) throw requestUnknown()
  const { libelle } = waiting
  const signedInAt = rows.signIn[0]?.created_at ?? ''
  if (waiting.force_authn === 1 && signedInAt < waiting.created_at) return { action: 'login', libelle }

  // This answer's mark: what follows in the batch takes place only if this very answer marked the request.
  const mark = randomToken(16)
  const answered = db
    .updateTable('saml_demande')
    .set({ repondue_at: now.toISOString(), reponse: mark })
    .where('id', '=', demande)
    .where('repondue_at', 'is', null)
  const mine = db.selectFrom('saml_demande').select('id').where('id', '=', demande).where('reponse', '=', mark)

  if (!rows.granted[0]?.granted) {
    // The attempt is in the history, once per request.
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
  const grant = grantNow(db, actor.id, waiting.application_id, today)
  const { post, writes } = await responseFor(
    ctx,
    actor,
    waiting,
    rows,
    { acsUrl: waiting.acs_url, inResponseTo: waiting.request_id, relayState: waiting.relay_state },
    mine,
  )
  const written = await namedBatch(ctx.d1, { answered: answered.where(({ exists }) => exists(grant)), ...writes })
  // Answered meanwhile (the page sent twice), or the grant ended between the read and the write.
  if ((written.answered?.meta.changes ?? 0) !== 1) throw requestUnknown()
  return { action: 'post', libelle, post }
}

/**
 * A launch from the launcher (IdP-initiated): a response nobody asked for (no InResponseTo), posted to the
 * application's first assertion consumer service, its RelayState the application's address. Called by the catalogue's
 * launch once it has checked the actor may launch the application: the provider and the subject in one round trip,
 * then the session's sign-in and the launch's entry in one batch, while the grant holds.
 */
export async function launchResponse(ctx: Ctx, caller: Caller, applicationId: number): Promise<SamlPost> {
  if (!samlEnabled(ctx.env)) throw new BusinessError('NOT_FOUND', 404, 'SAML is not configured')
  const db = ctx.db
  const today = todayIso()
  const { actor, provider, ...rows } = await actorWith(ctx, caller, {
    provider: providers(db).where('sp.application_id', '=', applicationId),
    ...subjectReads(db, caller, applicationId, today),
  })
  const row = provider[0]
  const acs = row ? known(row).assertionConsumerServices[0] : undefined
  if (!row || !acs) throw new BusinessError('NOT_FOUND', 404, 'Unknown application')
  const target = new URL(row.url, ctx.request.origin).toString()
  const { post, writes } = await responseFor(
    ctx,
    actor,
    row,
    rows,
    { acsUrl: acs.url, inResponseTo: null, relayState: target },
    grantNow(db, actor.id, applicationId, today),
  )
  await namedBatch(ctx.d1, writes)
  return post
}
