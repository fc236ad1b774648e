import { type SqlBool, sql } from 'kysely'
import * as oauth from 'oauth4webapi'
import { todayIso } from '../../contract/dates'
import {
  FEDERATION_STATE_SECONDS,
  type FederationFinish,
  type FederationStart,
  type ProvidersFor,
} from '../../contract/federation/sign-in'
import { afterOneChange, insertWhen, namedBatch } from '../../db/client'
import type { UtilisateurRow } from '../../db/schema'
import { sha256Hex } from '../../lib/crypto'
import { sameDomain } from '../../lib/domain'
import { BusinessError } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { unauthorizedDomain } from '../core/actor'
import { logEntry } from '../core/audit'
import { afterOneRow, registrationEvent } from '../core/events'
import { clientCounter } from '../core/rate-limit'
import { postesFrom, toUser } from '../core/users'
import { pendingUserInsert, registrationCompleted } from '../organisation/registration'
import { methodsOf, openSession, type SignedIn, secondStep, signInUserSelect } from '../sign-in/password-sign-in'
import type { ProviderMetadata } from './discovery'
import {
  callbackUri,
  exchange,
  type ProviderRow,
  providerColumns,
  signInFailed,
  type UpstreamIdentity,
} from './exchange'

/**
 * A sign-in through a partner's OpenID Connect provider (issue 63): the code flow with PKCE, `state` and `nonce`, the
 * ID token checked by oauth4webapi (issuer, audience, expiry, nonce) and its signature against the provider's JWKS.
 * A portal user is found by the provider and the token's `sub` only; a first sign-in does what the provider says:
 * attach to the user who proved that address here, queue a registration, or refuse.
 */

const rateLimit = (ctx: Ctx) => Number(ctx.env.LOGIN_RATE_PER_MINUTE ?? 30)

/** The domain of an address, lowercase; null when it has none. */
const domainOf = (mail: string | undefined) => {
  const at = mail?.lastIndexOf('@') ?? -1
  return mail && at > 0
    ? mail
        .slice(at + 1)
        .trim()
        .toLowerCase()
    : null
}

/**
 * GET rest/public/bd/fournisseur: the providers the sign-in page lists, and the one answering for an address. Only a
 * lookup by address is counted per client (the list is the same for everyone, on the most visited page).
 */
export async function providersFor(ctx: Ctx, mail: string | undefined): Promise<ProvidersFor> {
  const db = ctx.db
  const domain = domainOf(mail)
  const rate = domain ? clientCounter('federation-lookup', ctx.request.ip, rateLimit(ctx) * 4) : null
  const read = await namedBatch(ctx.d1, {
    rate: rate?.statement() ?? null,
    listed: db
      .selectFrom('fournisseur')
      .select(['id', 'nom'])
      .where('actif', '=', 1)
      .where('affiche', '=', 1)
      .orderBy(sql`nom collate nocase`)
      .limit(20),
    owner: domain
      ? db
          .selectFrom('fournisseur as f')
          .innerJoin('fournisseur_domaine as d', 'd.fournisseur_id', 'f.id')
          .select(['f.id', 'f.nom'])
          .where('d.domaine', '=', domain)
          .where('f.actif', '=', 1)
      : null,
  })
  rate?.check(read.rate?.results[0])
  return { affiches: read.listed?.results ?? [], pourMail: read.owner?.results[0] ?? null }
}

/** A provider row as a sign-in reads it. */
/**
 * POST rest/public/bd/fournisseur/{id}/debut: a sign-in at an active provider, its state (kept hashed, used once),
 * bound to the browser's cookie value and to this provider, with its PKCE verifier and nonce; the authorization
 * request to send the browser to. Counted per client like a password sign-in.
 */
export async function startFederatedSignIn(ctx: Ctx, id: number, input: FederationStart): Promise<{ url: string }> {
  const db = ctx.db
  const state = oauth.generateRandomState()
  const nonce = oauth.generateRandomNonce()
  const verifier = oauth.generateRandomCodeVerifier()
  const now = new Date()
  const rate = clientCounter('federation', ctx.request.ip, rateLimit(ctx))
  const active = db.selectFrom('fournisseur as f').select('f.id').where('f.id', '=', id).where('f.actif', '=', 1)
  const read = await namedBatch(ctx.d1, {
    rate: rate.statement(),
    provider: db.selectFrom('fournisseur as f').select(providerColumns).where('f.id', '=', id).where('f.actif', '=', 1),
    stored: insertWhen(
      db,
      'fournisseur_etat',
      {
        etat_hash: await sha256Hex(state),
        fournisseur_id: id,
        navigateur_hash: await sha256Hex(input.navigateur),
        verifier,
        nonce,
        redirection: input.redirection ?? null,
        domaine: ctx.request.origin,
        expires_at: new Date(now.getTime() + FEDERATION_STATE_SECONDS * 1000).toISOString(),
      },
      active.where(sql<SqlBool>`${sql.raw(rate.within)}`),
    ),
  })
  rate.check(read.rate?.results[0])
  const provider = read.provider?.results[0] as ProviderRow | undefined
  if (!provider || (read.stored?.meta.changes ?? 0) === 0) {
    throw new BusinessError('NOT_FOUND', 404, 'Unknown or inactive identity provider')
  }
  const metadata = JSON.parse(provider.metadata) as ProviderMetadata
  if (typeof metadata.authorization_endpoint !== 'string')
    throw signInFailed('the provider has no authorization endpoint')
  const url = new URL(metadata.authorization_endpoint)
  const params: Record<string, string> = {
    client_id: provider.client_id,
    redirect_uri: callbackUri(ctx.request.origin),
    response_type: 'code',
    scope: provider.scopes,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }
  if (input.mail) params.login_hint = input.mail
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
  return { url: url.href }
}

export const registrationPending = () =>
  new BusinessError('IDP_REGISTRATION_PENDING', 403, 'The registration waits for an administrator')
const firstSignInRefused = () =>
  new BusinessError('IDP_FIRST_SIGN_IN_REFUSED', 403, 'This provider does not open accounts here')
const noAccount = () =>
  new BusinessError('IDP_NO_ACCOUNT', 403, 'No account here has proved this address: nothing to attach to')
const linkConflict = () =>
  new BusinessError('IDP_LINK_CONFLICT', 409, 'This account is linked to another identity at this provider')

type UserRow = UtilisateurRow & { postes: string | null; has_totp: number; has_passkey: number; has_codes: number }

/**
 * POST rest/public/bd/fournisseur/retour: the provider's answer. The state is spent first (once, by the browser that
 * started it, on this origin, before it expires), then the code is exchanged and the ID token checked, then the user
 * linked to (provider, sub) signs in — or the provider's first sign-in rule applies.
 */
export async function finishFederatedSignIn(
  ctx: Ctx,
  input: FederationFinish,
): Promise<SignedIn & { redirection: string | null }> {
  const db = ctx.db
  const now = new Date()
  const nowIso = now.toISOString()
  const stateHash = await sha256Hex(input.etat)
  const browserHash = await sha256Hex(input.navigateur)
  const rate = clientCounter('federation', ctx.request.ip, rateLimit(ctx))
  const spent = await namedBatch(ctx.d1, {
    rate: rate.statement(),
    provider: db
      .selectFrom('fournisseur as f')
      .select(providerColumns)
      .where(
        'f.id',
        '=',
        db
          .selectFrom('fournisseur_etat')
          .select('fournisseur_id')
          .where('etat_hash', '=', stateHash)
          .where('navigateur_hash', '=', browserHash),
      ),
    pending: db
      .deleteFrom('fournisseur_etat')
      .where('etat_hash', '=', stateHash)
      .where('navigateur_hash', '=', browserHash)
      .where('domaine', '=', ctx.request.origin)
      .where('expires_at', '>', nowIso)
      .where(sql<SqlBool>`${sql.raw(rate.within)}`)
      .returning(['verifier', 'nonce', 'redirection']),
  })
  rate.check(spent.rate?.results[0])
  const pending = spent.pending?.results[0]
  const provider = spent.provider?.results[0] as ProviderRow | undefined
  // Replayed, from another browser or origin, expired, or never started here.
  if (!pending || !provider) throw signInFailed('unknown, used or expired state')
  if (!provider.actif) throw signInFailed('the provider is switched off')
  if (input.erreur !== undefined) throw signInFailed(`the provider answered ${input.erreur}`)

  const cache: oauth.JWKSCacheInput = provider.jwks ? (JSON.parse(provider.jwks) as oauth.ExportedJWKSCache) : {}
  const uat = 'uat' in cache ? cache.uat : undefined
  const identity = await exchange(ctx, provider, pending, input, cache)
  const keysChanged = 'uat' in cache && cache.uat !== uat ? JSON.stringify(cache) : null

  const today = todayIso()
  const mail = identity.email
  const mailDomain = domainOf(mail ?? undefined)
  const read = await namedBatch(ctx.d1, {
    linked: signInUserSelect(db, today).where(
      'id',
      '=',
      db
        .selectFrom('lien_fournisseur')
        .select('utilisateur_id')
        .where('fournisseur_id', '=', provider.id)
        .where('sub', '=', identity.sub),
    ),
    // Only a verified address of one of the provider's own domains may find a user to attach to or collide with.
    holder:
      mail && mailDomain
        ? signInUserSelect(db, today)
            .select(
              sql<string | null>`(select l.sub from lien_fournisseur l where l.fournisseur_id = ${provider.id}
                and l.utilisateur_id = utilisateur.id)`.as('linked_sub'),
            )
            .select(
              sql<number>`exists (select 1 from fournisseur_domaine d where d.fournisseur_id = ${provider.id}
                and d.domaine = ${mailDomain})`.as('own_domain'),
            )
            .where(sql<SqlBool>`mail = ${mail} collate nocase`)
        : null,
    keys: keysChanged ? db.updateTable('fournisseur').set({ jwks: keysChanged }).where('id', '=', provider.id) : null,
  })
  const linked = read.linked?.results[0] as UserRow | undefined
  const redirection = pending.redirection
  if (linked) return { ...(await signInLinked(ctx, provider, identity, linked, today)), redirection }

  const holder = read.holder?.results[0] as (UserRow & { linked_sub: string | null; own_domain: number }) | undefined
  if (provider.premiere_connexion === 'REFUSER') throw firstSignInRefused()
  if (provider.premiere_connexion === 'RATTACHER') {
    // Attached only on the provider's word that the address is verified, for an address of one of its domains, to a
    // user who proved that very address here — and never in place of another identity at this provider.
    const proved =
      holder &&
      identity.emailVerified &&
      holder.own_domain === 1 &&
      holder.mail_prouve !== null &&
      holder.mail_prouve.toLowerCase() === holder.mail.toLowerCase()
    if (!proved) throw noAccount()
    if (holder.linked_sub !== null) throw linkConflict()
    return { ...(await signInLinked(ctx, provider, identity, holder, today, 'attach')), redirection }
  }
  // INSCRIRE: a registration in the provider's company structure, waiting for an administrator.
  if (holder) throw holder.linked_sub !== null ? linkConflict() : mailTakenHere()
  await queueRegistration(ctx, provider, identity)
  throw registrationPending()
}

const mailTakenHere = () =>
  new BusinessError('IDP_LINK_CONFLICT', 409, 'An account here already uses this address: sign in with it to link it')

/**
 * The sign-in of a user linked to the identity (or attached to it now, `attach`): refused while the registration waits
 * for an administrator, for an account deactivated or deleted, or on another domain; a user with a second factor here
 * is asked for it unless the provider is trusted for its own and says it was used.
 */
async function signInLinked(
  ctx: Ctx,
  provider: ProviderRow,
  identity: UpstreamIdentity,
  row: UserRow,
  today: string,
  attach?: 'attach',
): Promise<SignedIn> {
  const db = ctx.db
  if (row.supprime) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  if (row.registration_state !== 'COMPLETE' && !row.actif) throw registrationPending()
  if (!row.actif) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  if (!sameDomain(row.domain, ctx.request.origin)) throw unauthorizedDomain()
  const now = new Date()
  const nowIso = now.toISOString()
  const secondFactor = (row.has_totp || row.has_passkey) && !(provider.confiance_mfa && identity.mfa)
  // The link's last sign-in is the session's: after the portal's second step, written with it (federatedSession).
  const signedInAt = secondFactor ? null : nowIso
  const link = attach
    ? insertWhen(
        db,
        'lien_fournisseur',
        {
          fournisseur_id: provider.id,
          sub: identity.sub,
          utilisateur_id: row.id,
          mail: identity.email,
          created_at: nowIso,
          derniere_connexion: signedInAt,
        },
        // Still the address proved here, still no identity of this provider: two sign-ins at once attach one.
        db
          .selectFrom('utilisateur as u')
          .select('u.id')
          .where('u.id', '=', row.id)
          .where(sql<SqlBool>`u.mail = ${row.mail} collate nocase and u.mail_prouve = u.mail collate nocase`)
          .where(
            sql<SqlBool>`not exists (select 1 from lien_fournisseur l where l.fournisseur_id = ${provider.id} and l.utilisateur_id = u.id)`,
          ),
      )
    : signedInAt
      ? db
          .updateTable('lien_fournisseur')
          .set({ derniere_connexion: signedInAt })
          .where('fournisseur_id', '=', provider.id)
          .where('sub', '=', identity.sub)
          .where('utilisateur_id', '=', row.id)
      : null
  const writes = {
    link,
    linkLog: attach
      ? insertWhen(
          db,
          'log',
          logEntry(row.id, 'ADMINISTRATION', 'FOURNISSEUR_LIEN', ctx.request.userAgent, {
            commentaire: `${provider.nom} : ${identity.email ?? identity.sub}`,
          }),
          afterOneChange(db),
        )
      : null,
    // An authorised registration completes with its first sign-in: its password link is no longer needed.
    completed:
      row.registration_state !== 'COMPLETE'
        ? db
            .updateTable('utilisateur')
            .set({ registration_state: 'COMPLETE', updated_at: nowIso })
            .where('id', '=', row.id)
            .where('registration_state', '!=', 'COMPLETE')
        : null,
    // A carrier's (an invitee was told as created already), told to integrators as the password link's completion is.
    completedEvents: row.registration_state === 'PENDING' ? registrationCompleted(db, row.id, now) : null,
    language:
      row.langue === ctx.request.language
        ? null
        : db.updateTable('utilisateur').set({ langue: ctx.request.language }).where('id', '=', row.id),
  }
  if (secondFactor) {
    // The portal's own second step, as after a password (its session then opens as any second step's).
    const pendingWrites = Object.values(writes)
      .flat()
      .filter((write) => write !== null)
    throw await secondStep(ctx, row.id, row.login.toLowerCase(), methodsOf(row), pendingWrites, {
      fournisseurId: provider.id,
      idToken: identity.idToken,
    })
  }
  const method = provider.confiance_mfa && identity.mfa ? 'SECOND_FACTEUR' : 'MOT_DE_PASSE'
  const session = await openSession(ctx, row, row.login.toLowerCase(), now, method, `via ${provider.nom}`)
  const opened = session.statements(sql<SqlBool>`1 = 1`)
  const written = await namedBatch(ctx.d1, {
    ...writes,
    ...opened,
    federated: insertWhen(
      db,
      'session_fournisseur',
      {
        family_id: session.familyId,
        fournisseur_id: provider.id,
        id_token: identity.idToken,
        created_at: nowIso,
      },
      db.selectFrom('refresh_token').select('id').where('token_hash', '=', session.tokenHash),
    ),
  })
  if (attach && (written.link?.meta.changes ?? 0) === 0) throw linkConflict()
  return { user: toUser(row, postesFrom(row.postes, today), false), jwt: await session.tokens() }
}

/**
 * A first sign-in the provider queues: a pending, inactive user in the provider's company structure, linked to the
 * identity, with the registration's entry in the history — what a carrier's own registration writes, without a
 * captcha (the provider vouched for a person) and without a password.
 */
async function queueRegistration(ctx: Ctx, provider: ProviderRow, identity: UpstreamIdentity) {
  const db = ctx.db
  const mail = identity.email
  if (!mail) throw signInFailed('the provider gave no address')
  if (provider.structure_id === null) throw firstSignInRefused()
  const at = new Date().toISOString()
  const holding = db.selectFrom('utilisateur').where(sql<SqlBool>`mail = ${mail} collate nocase`)
  const holder = holding.select('utilisateur.id')
  try {
    const written = await namedBatch(ctx.d1, {
      // It waits in the provider's company structure.
      user: pendingUserInsert(
        ctx,
        { mail, nom: identity.nom, prenom: identity.prenom },
        { id: provider.structure_id },
        { id: provider.structure_id, nom: null },
        at,
      ),
      told: registrationEvent(db, 'inscription.creee', 'systeme', sql<number>`(${holder})`, afterOneRow, new Date(at)),
      link: db
        .insertInto('lien_fournisseur')
        .columns(['fournisseur_id', 'sub', 'utilisateur_id', 'mail', 'created_at'])
        .expression(
          holding.select([
            sql.val(provider.id).as('fournisseur_id'),
            sql.val(identity.sub).as('sub'),
            'utilisateur.id as utilisateur_id',
            sql.val(mail).as('mail'),
            sql.val(at).as('created_at'),
          ]),
        ),
      log: insertWhen(
        db,
        'log',
        {
          ...logEntry(0, 'ADMINISTRATION', 'INSCRIPTION', ctx.request.userAgent, {
            commentaire: `${mail} : ${provider.nom} (fournisseur d’identité)`,
          }),
          utilisateur_id: sql<number>`(${holder})`,
        },
        holder,
      ),
    })
    if (!written.user?.meta.changes) throw firstSignInRefused()
  } catch (error) {
    if (String(error).includes('UNIQUE constraint failed')) throw linkConflict()
    throw error
  }
}
