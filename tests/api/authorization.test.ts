import { env } from 'cloudflare:test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCIM_PORTAL_USER } from '../../worker-api/contract/machines/scim'
import { sha256Hex } from '../../worker-api/lib/crypto'
import { registeredAuthenticator, signInAnswer } from './authenticator'
import { anyErrorBody } from './error-answers'
import {
  call,
  createOidcClient,
  createOrganisation,
  createUser,
  currentPost,
  db,
  insertServiceAccount,
  isoDate,
  ORIGIN,
  serviceAccountToken,
  sessionFor,
  solvedCaptcha,
  wireDate,
} from './helpers'
import { openApiDocument } from './openapi-document'

/**
 * The authorisation matrix (DESIGN §9): every operation of the OpenAPI document × every kind of
 * caller, with the status each must get. The operations come from the document, so an endpoint
 * added without its row here fails this test: none ships unchecked.
 *
 * The callers, all about one target user T (a post in Agence Lille, under Direction Nord):
 * - anonymous: no token;
 * - application: the session an application opened for T with a launch code (may only read T and
 *   sign out);
 * - user: another non-admin, with a post in the same structure;
 * - adminOut: an administrator of Direction Sud (T is outside their scope);
 * - adminIn: an administrator of Direction Nord (T is inside it);
 * - root: an administrator of the root structure (the whole tree, and the catalogue's manager); a row
 *   that says nothing of it expects what adminIn gets;
 * - service: an administrator service account of Direction Nord, with the scopes api, logs and scim (a client
 *   credentials token): what adminIn may, but nothing interactive — refused by default in `signedIn`
 *   rows, given adminIn's status in `admins` rows unless the row says otherwise;
 * - self: T;
 * - ended: T's session after it was signed out (revoked): refused like no session at all, by every
 *   route (each checks its caller in D1, alone or together with its reads).
 * Calls about "the caller" (launch, logs, password change, sign-out) are made by each about themself.
 */
const ROLES = ['anonymous', 'application', 'user', 'adminOut', 'adminIn', 'root', 'service', 'self', 'ended'] as const
type Role = (typeof ROLES)[number]
type Expected = Record<Role, number>

type World = {
  target: { id: number; login: string; password: string; mail: string }
  /** An import made by each caller (one's own import is the only one it may follow). */
  imports: Partial<Record<Role, number>>
  /** A search of the archive made by each caller (one's own is the only one it may read). */
  searches: Partial<Record<Role, string>>
  /** Users whose state the public token calls change, apart from the target's sessions. */
  renewer: { id: number }
  mover: { id: number }
}
/** `form`: a form-encoded body (the OAuth endpoints'), with the request's own headers. */
/** `text`: a file's text (text/csv). */
type Request = {
  path: string
  body?: unknown
  form?: Record<string, string>
  text?: string
  headers?: Record<string, string>
}

/** A row's request as `call` sends it: its body and the type of its body. */
function sent({ body, form, text, headers }: Request) {
  if (form) {
    return {
      body: new URLSearchParams(form).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    }
  }
  if (text !== undefined) return { body: text, headers: { 'Content-Type': 'text/csv', ...headers } }
  return { body: body === undefined ? undefined : JSON.stringify(body), headers }
}
type Row = {
  request: (world: World, role: Role) => Request | Promise<Request>
  expect: Expected
  /** The call ends the session it is made with: each cell gets a session of its own. */
  endsSession?: true
}

const everyone = (status: number): Expected => ({
  anonymous: status,
  application: status,
  user: status,
  adminOut: status,
  adminIn: status,
  root: status,
  service: status,
  self: status,
  ended: status,
})
/**
 * A non-public call: 401 without a live session, 403 for an application's session and for a service
 * account unless allowed.
 */
const signedIn = (
  statuses: Omit<Expected, 'anonymous' | 'application' | 'ended' | 'root' | 'service'> & {
    application?: number
    root?: number
    service?: number
  },
): Expected => ({
  anonymous: 401,
  application: 403,
  ended: 401,
  root: statuses.adminIn,
  service: 403,
  ...statuses,
})

let sequence = 0
/** A live mail token of `purpose` for a user, whose raw value the test knows. */
async function mailToken(userId: number, purpose: 'PASSWORD_RESET' | 'MAIL_CHANGE') {
  const token = `matrix-${purpose}-${++sequence}-${crypto.randomUUID()}`
  await db()
    .insertInto('mail_token')
    .values({
      token_hash: await sha256Hex(token),
      utilisateur_id: userId,
      purpose,
      new_mail: purpose === 'MAIL_CHANGE' ? `moved-${sequence}@example.test` : null,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      used_at: null,
    })
    .execute()
  return token
}

/** A passkey row of a user (not a usable one: the calls that take it by id only), its id. */
async function passkeyOf(userId: number) {
  const id = `matrix-key-${++sequence}`
  await db()
    .insertInto('passkey')
    .values({
      id,
      utilisateur_id: userId,
      nom: 'Clé',
      public_key: 'AAAA',
      transports: null,
      rp_id: 'localhost',
      created_at: new Date().toISOString(),
      last_used_at: null,
    })
    .execute()
  return id
}

/** The matrix: one row per operation of the OpenAPI document ("METHOD /path" as documented). */
const MATRIX: Record<string, Row> = {
  'GET /portail-backend/rest/public/health': {
    request: () => ({ path: '/rest/public/health' }),
    expect: everyone(200),
  },
  'GET /portail-backend/rest/public/bd/captcha/challenge': {
    request: () => ({ path: '/rest/public/bd/captcha/challenge' }),
    expect: everyone(200),
  },
  'GET /portail-backend/rest/public/bd/captcha/question': {
    request: () => ({ path: '/rest/public/bd/captcha/question' }),
    expect: everyone(200),
  },
  'GET /portail-backend/rest/public/bd/utilisateur/validate/captcha': {
    request: async () => ({
      path: `/rest/public/bd/utilisateur/validate/captcha?request=${encodeURIComponent(await solvedCaptcha())}`,
    }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/login': {
    request: async ({ target }) => ({
      path: '/rest/public/bd/login',
      body: { identifiant: target.login, motDePasse: target.password, captcha: await solvedCaptcha() },
    }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/login/refreshToken': {
    request: async ({ target }) => ({
      path: '/rest/public/bd/login/refreshToken',
      body: { refreshToken: (await sessionFor(target.id)).refreshToken },
    }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/login/mfa': {
    // A user past the password step, with a recovery code the test knows.
    request: async () => {
      const user = await freshUser()
      const challenge = `matrix-challenge-${++sequence}-${crypto.randomUUID()}`
      await db()
        .insertInto('mfa_totp')
        .values({
          utilisateur_id: user.id,
          secret: 'JBSWY3DPEHPK3PXP',
          confirmed_at: isoDate(0),
          pending_secret: null,
          pending_created_at: null,
        })
        .execute()
      await db()
        .insertInto('mfa_recovery_code')
        .values({ utilisateur_id: user.id, code_hash: await sha256Hex('abcdefghjkmnpqrs'), used_at: null })
        .execute()
      await db()
        .insertInto('mfa_challenge')
        .values({
          hash: await sha256Hex(challenge),
          purpose: 'LOGIN',
          utilisateur_id: user.id,
          identifier: user.login,
          webauthn: null,
          created_at: new Date().toISOString(),
          expires_at: new Date(Date.now() + 60_000).toISOString(),
        })
        .execute()
      return { path: '/rest/public/bd/login/mfa', body: { challenge, code: 'ABCD-EFGH-JKMN-PQRS' } }
    },
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/login/passkey/options': {
    request: () => ({ path: '/rest/public/bd/login/passkey/options', body: {} }),
    expect: everyone(200),
  },
  // Signing in through a partner's provider: public calls; the answer of a provider is judged on its state alone.
  'GET /portail-backend/rest/public/bd/fournisseur': {
    request: () => ({ path: '/rest/public/bd/fournisseur?mail=quelqu.un%40matrice.example.test' }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/fournisseur/{id}/debut': {
    request: async () => ({
      path: `/rest/public/bd/fournisseur/${await freshProvider()}/debut`,
      body: { navigateur: `navigateur-${crypto.randomUUID()}` },
    }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/fournisseur/retour': {
    request: () => ({
      path: '/rest/public/bd/fournisseur/retour',
      body: { navigateur: `navigateur-${crypto.randomUUID()}`, etat: 'etat-inconnu', code: 'code' },
    }),
    expect: everyone(400),
  },
  'POST /portail-backend/rest/public/bd/login/passkey': {
    // A user's passkey, registered by their authenticator, answering fresh options.
    request: async () => {
      const user = await freshUser()
      const authenticator = await registeredAuthenticator((await sessionFor(user.id)).accessToken)
      return { path: '/rest/public/bd/login/passkey', body: { reponse: await signInAnswer(authenticator) } }
    },
    expect: everyone(200),
  },
  'GET /portail-backend/rest/bd/mfa': {
    request: () => ({ path: '/rest/bd/mfa' }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
  'POST /portail-backend/rest/bd/mfa/totp': {
    // The callers' own (right) password.
    request: () => ({ path: '/rest/bd/mfa/totp', body: { motDePasse: 'Secret12' } }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
  'POST /portail-backend/rest/bd/mfa/totp/confirm': {
    // Not six digits: refused whatever is pending.
    request: () => ({ path: '/rest/bd/mfa/totp/confirm', body: { code: 'abcdefg' } }),
    expect: signedIn({ user: 400, adminOut: 400, adminIn: 400, self: 400 }),
  },
  'DELETE /portail-backend/rest/bd/mfa/totp': {
    // The callers' own (right) password: proven, but no app to turn off.
    request: () => ({ path: '/rest/bd/mfa/totp', body: { motDePasse: 'Secret12' } }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 404 }),
  },
  'POST /portail-backend/rest/bd/mfa/codes-secours': {
    request: () => ({ path: '/rest/bd/mfa/codes-secours', body: { motDePasse: 'Secret12' } }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 404 }),
  },
  // Passkeys: one's own. The answers below are not an authenticator's: refused whatever is pending.
  'POST /portail-backend/rest/bd/mfa/passkeys/options': {
    request: () => ({ path: '/rest/bd/mfa/passkeys/options', body: { motDePasse: 'Secret12' } }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
  'POST /portail-backend/rest/bd/mfa/passkeys': {
    request: () => ({
      path: '/rest/bd/mfa/passkeys',
      body: {
        nom: 'Clé',
        reponse: {
          id: 'AAAA',
          rawId: 'AAAA',
          response: { clientDataJSON: 'e30', attestationObject: 'oA' },
          clientExtensionResults: {},
          type: 'public-key',
        },
      },
    }),
    expect: signedIn({ user: 400, adminOut: 400, adminIn: 400, self: 400 }),
  },
  // Another user's passkey: none of the caller's (404), an administrator's included.
  'PATCH /portail-backend/rest/bd/mfa/passkeys/{id}': {
    request: async () => ({
      path: `/rest/bd/mfa/passkeys/${await passkeyOf((await freshUser()).id)}`,
      body: { nom: 'Clé' },
    }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 404 }),
  },
  'DELETE /portail-backend/rest/bd/mfa/passkeys/{id}': {
    // T removes their own, added for the call (the ended session's, refused, stays: after the row that
    // signs T in with a password).
    request: async ({ target }, role) => ({
      path: `/rest/bd/mfa/passkeys/${await passkeyOf(role === 'self' ? target.id : (await freshUser()).id)}`,
      body: { motDePasse: 'Secret12' },
    }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 204 }),
  },
  'GET /portail-backend/rest/bd/session': {
    request: () => ({ path: '/rest/bd/session' }),
    expect: signedIn({ application: 200, user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
  // One's own sessions: each caller lists and ends theirs. Another's session is none of theirs (404, as
  // for no session at all), an administrator's included.
  'GET /portail-backend/rest/bd/session/liste': {
    request: () => ({ path: '/rest/bd/session/liste' }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
  // Each caller's own links to partners' providers; removing one they do not have: 404.
  'GET /portail-backend/rest/bd/fournisseur/liens': {
    request: () => ({ path: '/rest/bd/fournisseur/liens' }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, root: 200, self: 200 }),
  },
  'DELETE /portail-backend/rest/bd/fournisseur/liens/{id}': {
    request: async () => ({ path: `/rest/bd/fournisseur/liens/${await freshProvider()}` }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, root: 404, self: 404 }),
  },
  // Each caller's own session: nulls for one not opened through a provider.
  'GET /portail-backend/rest/bd/session/fournisseur': {
    request: () => ({ path: '/rest/bd/session/fournisseur' }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, root: 200, self: 200 }),
  },
  'DELETE /portail-backend/rest/bd/session/{id}': {
    request: async ({ target }) => ({ path: `/rest/bd/session/${(await sessionFor(target.id)).sid}` }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 204 }),
  },
  'DELETE /portail-backend/rest/bd/session/autres': {
    request: () => ({ path: '/rest/bd/session/autres' }),
    expect: signedIn({ user: 204, adminOut: 204, adminIn: 204, self: 204 }),
  },
  'POST /portail-backend/rest/bd/logout': {
    request: () => ({ path: '/rest/bd/logout', body: {} }),
    expect: signedIn({ application: 204, user: 204, adminOut: 204, adminIn: 204, self: 204 }),
    endsSession: true,
  },
  'GET /portail-backend/rest/bd/acces/utilisateur/{userId}': {
    request: ({ target }) => ({ path: `/rest/bd/acces/utilisateur/${target.id}` }),
    expect: signedIn({ user: 403, adminOut: 403, adminIn: 200, service: 200, self: 200 }),
  },
  // Launching is for the caller's own current posts: the user shares T's function, the admins do not.
  'GET /portail-backend/rest/bd/acces/application': {
    request: () => ({ path: '/rest/bd/acces/application?idApplication=2' }),
    expect: signedIn({ user: 200, adminOut: 403, adminIn: 403, self: 200 }),
  },
  'POST /portail-backend/rest/bd/logs/': {
    request: () => ({ path: '/rest/bd/logs/', body: { nomLog: 'CONNEXION' } }),
    expect: signedIn({ user: 201, adminOut: 201, adminIn: 201, self: 201 }),
  },
  // A wrong old password: reaching the check (400) is the permission; nobody's password changes.
  'PUT /portail-backend/rest/bd/utilisateur/updatePassword': {
    request: () => ({
      path: '/rest/bd/utilisateur/updatePassword',
      body: { oldPassword: 'NotMine12', newPassword: 'Nouveau12' },
    }),
    expect: signedIn({ user: 400, adminOut: 400, adminIn: 400, self: 400 }),
  },
  'GET /portail-backend/rest/bd/utilisateur/{id}': {
    request: ({ target }) => ({ path: `/rest/bd/utilisateur/${target.id}` }),
    expect: signedIn({ application: 200, user: 403, adminOut: 403, adminIn: 200, service: 200, self: 200 }),
  },
  'PUT /portail-backend/rest/bd/utilisateur/{id}': {
    request: ({ target }) => ({
      path: `/rest/bd/utilisateur/${target.id}`,
      body: { nom: 'Cible', prenom: 'Thomas', mail: target.mail },
    }),
    expect: signedIn({ user: 403, adminOut: 403, adminIn: 200, service: 200, self: 200 }),
  },
  'POST /portail-backend/rest/public/bd/password/forgot/': {
    request: async ({ target }) => ({
      path: '/rest/public/bd/password/forgot/',
      body: { mail: target.mail, domain: ORIGIN, captcha: await solvedCaptcha() },
    }),
    expect: everyone(204),
  },
  'GET /portail-backend/rest/public/bd/password/token/{token}': {
    request: async ({ renewer }) => ({
      path: `/rest/public/bd/password/token/${await mailToken(renewer.id, 'PASSWORD_RESET')}`,
    }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/password/renew/': {
    request: async ({ renewer }) => ({
      path: '/rest/public/bd/password/renew/',
      body: { token: await mailToken(renewer.id, 'PASSWORD_RESET'), password: 'Nouveau12' },
    }),
    expect: everyone(204),
  },
  'GET /portail-backend/rest/public/bd/utilisateur/mail/token/{token}': {
    request: async ({ mover }) => ({
      path: `/rest/public/bd/utilisateur/mail/token/${await mailToken(mover.id, 'MAIL_CHANGE')}`,
    }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/utilisateur/mail/confirm/': {
    request: async ({ mover }) => ({
      path: '/rest/public/bd/utilisateur/mail/confirm/',
      body: { token: await mailToken(mover.id, 'MAIL_CHANGE') },
    }),
    expect: everyone(200),
  },
}

/** The organisation's operations (administrators only, each inside their scope: T's Agence Lille is adminIn's). */
const admins = (adminOut: number, adminIn: number, service = adminIn): Expected =>
  signedIn({ user: 403, adminOut, adminIn, service, self: 403 })

/** A structure below Direction Nord that nothing hangs from, for a call that deletes or edits it. */
async function freshStructure() {
  const n = ++sequence
  const { id } = await db()
    .insertInto('structure')
    .values({ id: 1000 + n, nom: `Agence matrice ${n}`, type_id: 3, parent_id: 2, path: `/1/2/${1000 + n}/` })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id, nom: `Agence matrice ${n}` }
}

/** A function of Agence Lille that no post holds, for a call that renames or deletes it. */
async function freshFonction() {
  const libelle = `Fonction matrice ${++sequence}`
  const { id } = await db()
    .insertInto('fonction')
    .values({ libelle, structure_id: 4 })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id, libelle }
}

/** A future post of T in Agence Lille that overlaps no other (each call its own dates). */
function freshDates() {
  const start = 400 + ++sequence * 3
  return { from: isoDate(start), to: isoDate(start + 1) }
}

Object.assign(MATRIX, {
  'GET /portail-backend/rest/bd/structure/user/me': {
    request: () => ({ path: '/rest/bd/structure/user/me?users=true' }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/structure/{id}': {
    request: () => ({ path: '/rest/bd/structure/4' }),
    expect: admins(403, 200),
  },
  'GET /portail-backend/rest/bd/structure/{id}/parents': {
    // Agence Lille: the admin outside its sub-tree is refused it, as the structure itself.
    request: () => ({ path: '/rest/bd/structure/4/parents' }),
    expect: admins(403, 200),
  },
  'GET /portail-backend/rest/bd/structure/nom/{nom}': {
    request: () => ({ path: '/rest/bd/structure/nom/Agence%20Lille' }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/structure/parent/{typeId}': {
    request: () => ({ path: '/rest/bd/structure/parent/3' }),
    expect: admins(200, 200),
  },
  'POST /portail-backend/rest/bd/structure': {
    request: () => ({
      path: '/rest/bd/structure',
      body: { nom: `Agence créée ${++sequence}`, type: { id: 3 }, parent: { id: 2 } },
    }),
    expect: admins(403, 201),
  },
  'PUT /portail-backend/rest/bd/structure': {
    request: async () => {
      const { id, nom } = await freshStructure()
      return { path: '/rest/bd/structure', body: { id, nom: `${nom} bis`, type: { id: 3 }, parent: { id: 2 } } }
    },
    expect: admins(403, 200),
  },
  'DELETE /portail-backend/rest/bd/structure/{id}': {
    request: async () => ({ path: `/rest/bd/structure/${(await freshStructure()).id}` }),
    expect: admins(403, 204),
  },
  'GET /portail-backend/rest/bd/typestructure/me': {
    request: () => ({ path: '/rest/bd/typestructure/me' }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/fonction/structure/{id}': {
    request: () => ({ path: '/rest/bd/fonction/structure/4' }),
    expect: admins(403, 200),
  },
  'POST /portail-backend/rest/bd/fonction': {
    request: () => ({
      path: '/rest/bd/fonction',
      body: { libelle: `Fonction matrice ${++sequence}`, structure: { id: 4 } },
    }),
    expect: admins(403, 201),
  },
  // A rename: every administrator of the scope (the grants, root administrators only: fonctions.test.ts).
  'PUT /portail-backend/rest/bd/fonction': {
    request: async () => {
      const { id, libelle } = await freshFonction()
      return { path: '/rest/bd/fonction', body: { id, libelle: `${libelle} bis` } }
    },
    expect: admins(403, 200),
  },
  'DELETE /portail-backend/rest/bd/fonction/{id}': {
    request: async () => ({ path: `/rest/bd/fonction/${(await freshFonction()).id}` }),
    expect: admins(403, 204),
  },
  'GET /portail-backend/rest/bd/utilisateur/structure/{idStructure}': {
    request: () => ({ path: '/rest/bd/utilisateur/structure/4?page=1' }),
    expect: admins(403, 200),
  },
  'POST /portail-backend/rest/bd/poste': {
    request: ({ target }) => {
      const { from, to } = freshDates()
      return {
        path: '/rest/bd/poste',
        body: {
          structure: { id: 4 },
          fonction: { id: 2 },
          utilisateur: { id: target.id },
          dateDebut: from.split('-').reverse().join('/'),
          dateFin: to.split('-').reverse().join('/'),
        },
      }
    },
    expect: admins(403, 201),
  },
  'PUT /portail-backend/rest/bd/poste': {
    request: async ({ target }) => {
      const { from, to } = freshDates()
      const { id } = await db()
        .insertInto('poste')
        .values({ utilisateur_id: target.id, structure_id: 4, fonction_id: 2, date_debut: from, date_fin: from })
        .returning('id')
        .executeTakeFirstOrThrow()
      return { path: '/rest/bd/poste', body: { id, dateDebut: wireDate(from), dateFin: wireDate(to) } }
    },
    expect: admins(403, 200),
  },
  'DELETE /portail-backend/rest/bd/poste/suppression/{id}': {
    request: async ({ target }) => {
      const { from, to } = freshDates()
      const { id } = await db()
        .insertInto('poste')
        .values({ utilisateur_id: target.id, structure_id: 4, fonction_id: 2, date_debut: from, date_fin: to })
        .returning('id')
        .executeTakeFirstOrThrow()
      return { path: `/rest/bd/poste/suppression/${id}` }
    },
    expect: admins(403, 204),
  },
} satisfies Record<string, Row>)

/** A user in Agence Lille (T's structure: inside adminIn's scope) for a call that changes them. */
async function freshUser(options: Parameters<typeof createUser>[0] = {}) {
  return createUser({ postes: [currentPost(4, 2)], ...options })
}

Object.assign(MATRIX, {
  'POST /portail-backend/rest/bd/utilisateur': {
    request: () => ({
      path: '/rest/bd/utilisateur',
      body: {
        nom: 'Invité',
        prenom: 'Matrice',
        mail: `invite-${++sequence}@example.test`,
        admin: false,
        actif: true,
        domain: ORIGIN,
        poste: {
          structure: { id: 4 },
          fonction: { id: 2 },
          dateDebut: isoDate(0).split('-').reverse().join('/'),
          dateFin: isoDate(30).split('-').reverse().join('/'),
        },
      },
    }),
    expect: admins(403, 201),
  },
  'GET /portail-backend/rest/bd/utilisateur/liste': {
    request: () => ({ path: '/rest/bd/utilisateur/liste?page=1' }),
    expect: admins(200, 200),
  },
  // T themself may not: nobody changes their own state, flag or deletion.
  'PUT /portail-backend/rest/bd/utilisateur/state': {
    request: ({ target }) => ({ path: '/rest/bd/utilisateur/state', body: { id: target.id, actif: true } }),
    expect: admins(403, 200),
  },
  'PUT /portail-backend/rest/bd/utilisateur/admin': {
    request: ({ target }) => ({ path: '/rest/bd/utilisateur/admin', body: { id: target.id, admin: false } }),
    expect: admins(403, 200),
  },
  'DELETE /portail-backend/rest/bd/utilisateur/suppression/{id}': {
    request: async () => ({ path: `/rest/bd/utilisateur/suppression/${(await freshUser()).id}` }),
    expect: admins(403, 204),
  },
  'DELETE /portail-backend/rest/bd/utilisateur/retablir/{id}': {
    request: async () => ({ path: `/rest/bd/utilisateur/retablir/${(await freshUser({ supprime: true })).id}` }),
    expect: admins(403, 204),
  },
  'POST /portail-backend/rest/bd/utilisateur/{id}/invitation': {
    request: async () => ({
      path: `/rest/bd/utilisateur/${(await freshUser({ registration: 'INVITED', password: null })).id}/invitation`,
      body: {},
    }),
    expect: admins(403, 204),
  },
  'DELETE /portail-backend/rest/bd/utilisateur/{id}/mfa': {
    request: async () => ({ path: `/rest/bd/utilisateur/${(await freshUser()).id}/mfa` }),
    // A program holds no proof of a person: it resets nobody's second factor.
    expect: admins(403, 204, 403),
  },
  'GET /portail-backend/rest/bd/parametres/securite': {
    request: () => ({ path: '/rest/bd/parametres/securite' }),
    expect: admins(200, 200, 403),
  },
  // Turning the requirement off: the root administrators' (on needs their own second factor: mfa.test.ts).
  'PUT /portail-backend/rest/bd/parametres/securite': {
    request: () => ({ path: '/rest/bd/parametres/securite', body: { mfaRequisAdministrateurs: false } }),
    expect: signedIn({ user: 403, adminOut: 403, adminIn: 403, root: 200, self: 403 }),
  },
  // A user's sessions: the administrators who manage them (T themself has their own list).
  'GET /portail-backend/rest/bd/utilisateur/{id}/sessions': {
    request: ({ target }) => ({ path: `/rest/bd/utilisateur/${target.id}/sessions` }),
    expect: admins(403, 200),
  },
  'DELETE /portail-backend/rest/bd/utilisateur/{id}/sessions': {
    request: async () => {
      const user = await freshUser()
      await sessionFor(user.id)
      return { path: `/rest/bd/utilisateur/${user.id}/sessions` }
    },
    expect: admins(403, 204),
  },
  // A managed user's links to partners' providers, as their sessions.
  'GET /portail-backend/rest/bd/utilisateur/{id}/fournisseurs': {
    request: ({ target }) => ({ path: `/rest/bd/utilisateur/${target.id}/fournisseurs` }),
    expect: admins(403, 200),
  },
  'DELETE /portail-backend/rest/bd/utilisateur/{id}/fournisseurs/{fournisseurId}': {
    request: async () => {
      const user = await freshUser()
      const provider = await freshProvider()
      await db()
        .insertInto('lien_fournisseur')
        .values({
          fournisseur_id: provider,
          sub: `matrice-${provider}`,
          utilisateur_id: user.id,
          created_at: new Date().toISOString(),
        })
        .execute()
      return { path: `/rest/bd/utilisateur/${user.id}/fournisseurs/${provider}` }
    },
    expect: admins(403, 204),
  },
  'GET /portail-backend/rest/public/bd/utilisateur/mail': {
    request: ({ target }) => ({ path: `/rest/public/bd/utilisateur/mail?mail=${encodeURIComponent(target.mail)}` }),
    expect: everyone(200),
  },
} satisfies Record<string, Row>)

/** A call of the catalogue's: the root administrator's alone. */
const rootOnly = (status: number): Expected =>
  signedIn({ user: 403, adminOut: 403, adminIn: 403, root: status, self: 403 })

const applicationBody = (libelle: string) => ({
  libelle,
  icone: 'truck',
  url: 'https://matrice.example.test/',
  actif: true,
  protocole: 'CODE',
  fonctions: [{ id: 2 }],
})

const providerBody = (issuer: string) => ({
  nom: 'Fournisseur matrice',
  issuer,
  clientId: 'portail',
  authentification: 'client_secret_basic',
  secret: 'secret-matrice',
  premiereConnexion: 'REFUSER',
})

/** An identity provider nobody is linked to, for a call that reads, edits or deletes it; its id. */
async function freshProvider() {
  const now = new Date().toISOString()
  const { id } = await db()
    .insertInto('fournisseur')
    .values({
      nom: 'Fournisseur matrice',
      issuer: `https://idp-${++sequence}.matrice.example.test`,
      client_id: 'portail',
      authentification: 'private_key_jwt',
      secret_scelle: null,
      premiere_connexion: 'REFUSER',
      metadata: JSON.stringify({
        issuer: 'https://idp.matrice.example.test',
        authorization_endpoint: 'https://idp.matrice.example.test/auth',
      }),
      metadata_lu_le: now,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return id
}

/** An application granted to nobody, for a call that edits or deletes it. */
async function freshApplication() {
  const libelle = `Application matrice ${++sequence}`
  const { id } = await db()
    .insertInto('application')
    .values({ libelle, icone: 'truck', url: 'https://matrice.example.test/' })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id, libelle }
}

/** An address of the documentation range no other call of the matrix comes from. */
const matrixAddress = () => `198.18.${Math.floor(++sequence / 250) % 250}.${sequence % 250}`

/** The matrix's OpenID Connect client, granted to the target's function, with a known secret. */
const OIDC_CLIENT = { id: 'matrice-oidc', secret: 'matrice-secret', redirect: 'https://rp.matrice.example.test/cb' }
let oidcReady: Promise<void> | undefined
function oidcClient() {
  oidcReady ??= (async () => {
    await createOidcClient({
      libelle: 'Matrice OIDC',
      clientId: OIDC_CLIENT.id,
      secret: OIDC_CLIENT.secret,
      redirectUri: OIDC_CLIENT.redirect,
      fonctionId: 2,
      deviceGrant: true,
    })
  })()
  return oidcReady
}

/** An authorization request of the matrix's client, PKCE and all. */
const authorizationRequest = {
  client_id: OIDC_CLIENT.id,
  redirect_uri: OIDC_CLIENT.redirect,
  response_type: 'code',
  scope: 'openid',
  code_challenge: '_QW7SKKyK6JAe1ojBiIk8abAYDNYypK3Fr61-IUp5jI',
  code_challenge_method: 'S256',
}
/** The verifier of that challenge (its SHA-256, base64url). */
const VERIFIER = 'dBjftJeZ4CQP-pQRbUbi5NjpF9ys3RTOBsf7SQ4lhWI'

/** A code of the matrix's client for the target, in a live portal session of theirs. */
async function freshCode(world: World) {
  await oidcClient()
  const code = `matrice-code-${++sequence}-${crypto.randomUUID()}`
  const { sid } = await sessionFor(world.target.id)
  const application = await db()
    .selectFrom('oidc_client')
    .select('application_id')
    .where('client_id', '=', OIDC_CLIENT.id)
    .executeTakeFirstOrThrow()
  await db()
    .insertInto('oidc_code')
    .values({
      code_hash: await sha256Hex(code),
      application_id: application.application_id,
      utilisateur_id: world.target.id,
      redirect_uri: OIDC_CLIENT.redirect,
      code_challenge: authorizationRequest.code_challenge,
      scope: 'openid',
      nonce: null,
      auth_time: new Date().toISOString(),
      parent_family_id: sid,
      family_id: crypto.randomUUID(),
      expires_at: new Date(Date.now() + 60_000).toISOString(),
      used_at: null,
    })
    .execute()
  return code
}

// OpenID Connect (DESIGN §4b): the protocol's endpoints answer anyone as the protocol says (the
// bearer of a portal session is no client credential); UserInfo takes only an OpenID Connect session's
// access token (tests/api/oidc/oidc.test.ts), so every caller here is refused; the authorization page's call
// is a signed-in user's own (a user not granted the application still gets an answer: access_denied,
// for the client).
Object.assign(MATRIX, {
  'GET /portail-backend/.well-known/openid-configuration': {
    request: () => ({ path: '/.well-known/openid-configuration' }),
    expect: everyone(200),
  },
  'GET /portail-backend/oidc/jwks': { request: () => ({ path: '/oidc/jwks' }), expect: everyone(200) },
  // The SAML identity provider's metadata and single sign-on service: public. The service answers every request with a
  // 303 to the portal's page (here: no request, said on the page); the page's call is a signed-in user's own, about a
  // request the single sign-on service kept (none here: 404; the flow is tests/api/saml/sso.test.ts).
  'GET /portail-backend/saml/metadata': { request: () => ({ path: '/saml/metadata' }), expect: everyone(200) },
  'GET /portail-backend/saml/sso': { request: () => ({ path: '/saml/sso' }), expect: everyone(303) },
  'POST /portail-backend/saml/sso': {
    request: () => ({ path: '/saml/sso', form: { SAMLRequest: 'PHNhbWxwOg==' } }),
    expect: everyone(303),
  },
  // Single logout: public too, a 303 to the portal's logout page (here: no message, said on the page); the page's call
  // answers any sequence, an unknown one `done` (the flow is tests/api/saml/slo.test.ts).
  'GET /portail-backend/saml/slo': { request: () => ({ path: '/saml/slo' }), expect: everyone(303) },
  'POST /portail-backend/saml/slo': {
    request: () => ({ path: '/saml/slo', form: { SAMLRequest: 'PHNhbWxwOg==' } }),
    expect: everyone(303),
  },
  'POST /portail-backend/rest/public/bd/saml/deconnexion': {
    request: () => ({ path: '/rest/public/bd/saml/deconnexion', body: { suite: 'm'.repeat(43) } }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/saml/passif': {
    request: () => ({ path: '/rest/public/bd/saml/passif', body: { demande: 'matrice-inconnue' } }),
    expect: everyone(404),
  },
  'POST /portail-backend/rest/bd/saml/reponse': {
    request: () => ({ path: '/rest/bd/saml/reponse', body: { demande: 'matrice-inconnue' } }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 404 }),
  },
  'POST /portail-backend/oidc/token': {
    request: async (world) => ({
      path: '/oidc/token',
      form: {
        grant_type: 'authorization_code',
        code: await freshCode(world),
        redirect_uri: OIDC_CLIENT.redirect,
        code_verifier: VERIFIER,
        // client_secret_post: the caller's bearer token (a portal session) is no client credential.
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
      },
    }),
    expect: everyone(200),
  },
  'POST /portail-backend/oidc/device_authorization': {
    request: async () => {
      await oidcClient()
      return {
        path: '/oidc/device_authorization',
        form: { client_id: OIDC_CLIENT.id, client_secret: OIDC_CLIENT.secret, scope: 'openid' },
      }
    },
    expect: everyone(200),
  },
  'GET /portail-backend/oidc/userinfo': { request: () => ({ path: '/oidc/userinfo' }), expect: everyone(401) },
  'POST /portail-backend/oidc/userinfo': { request: () => ({ path: '/oidc/userinfo' }), expect: everyone(401) },
  'GET /portail-backend/rest/public/bd/oidc/client': {
    request: async () => {
      await oidcClient()
      return {
        path: `/rest/public/bd/oidc/client?client_id=${OIDC_CLIENT.id}&redirect_uri=${encodeURIComponent(OIDC_CLIENT.redirect)}`,
      }
    },
    expect: everyone(200),
  },
  'POST /portail-backend/oidc/register': {
    request: () => ({
      path: '/oidc/register',
      body: { client_name: `Client matrice ${++sequence}`, redirect_uris: ['https://rp.matrice.example.test/cb'] },
    }),
    expect: { ...rootOnly(201), user: 403, adminOut: 403, adminIn: 403, self: 403 },
  },
  'POST /portail-backend/rest/public/bd/oidc/logout': {
    request: async () => {
      await oidcClient()
      return { path: '/rest/public/bd/oidc/logout', body: { client_id: OIDC_CLIENT.id } }
    },
    expect: everyone(200),
  },
  // An unknown code, from an address of its own: a wrong code counts per address (and per user, 5 a minute).
  'GET /portail-backend/rest/bd/oidc/appareil': {
    request: () => ({
      path: '/rest/bd/oidc/appareil?code=BCDF-GHJK',
      headers: { 'CF-Connecting-IP': matrixAddress() },
    }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 404 }),
  },
  'POST /portail-backend/rest/bd/oidc/appareil': {
    request: () => ({
      path: '/rest/bd/oidc/appareil',
      body: { code: 'BCDF-GHJK', decision: 'REFUSER' },
      headers: { 'CF-Connecting-IP': matrixAddress() },
    }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, self: 404 }),
  },
  'POST /portail-backend/rest/bd/oidc/authorize': {
    request: async () => {
      await oidcClient()
      return { path: '/rest/bd/oidc/authorize', body: authorizationRequest }
    },
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
} satisfies Record<string, Row>)

// Carrier registration: anyone registers; the queue is the administrators', each for their scope.
Object.assign(MATRIX, {
  'GET /portail-backend/rest/public/bd/transporteur/structures': {
    request: () => ({ path: '/rest/public/bd/transporteur/structures' }),
    expect: everyone(200),
  },
  'POST /portail-backend/rest/public/bd/transporteur/inscription': {
    request: async () => {
      const n = ++sequence
      return {
        path: '/rest/public/bd/transporteur/inscription',
        body: {
          user: { mail: `carrier-${n}@example.test`, nom: 'Transporteur', prenom: 'Matrice' },
          structure: { nom: `Transports matrice ${n}` },
          captcha: await solvedCaptcha(),
        },
      }
    },
    expect: everyone(201),
  },
  // Every administrator reads the history of their own scope (T's entries only inside it: logs.test.ts).
  'GET /portail-backend/rest/bd/logs/': {
    request: () => ({ path: '/rest/bd/logs/?dateDebut=20200101&page=1' }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/logs/export': {
    request: () => ({ path: '/rest/bd/logs/export?dateDebut=20200101' }),
    expect: admins(200, 200),
  },
  // Every administrator searches the archive in their own scope, and reads only their own searches (another's: 404).
  'POST /portail-backend/rest/bd/logs/recherches': {
    request: () => ({ path: '/rest/bd/logs/recherches', body: { dateDebut: '20200101', dateFin: '20200131' } }),
    expect: admins(202, 202),
  },
  'GET /portail-backend/rest/bd/logs/recherches/{id}': {
    request: ({ searches }, role) => ({ path: `/rest/bd/logs/recherches/${searches[role] ?? 'aucune'}` }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/logs/recherches/{id}/entrees': {
    request: ({ searches }, role) => ({
      path: `/rest/bd/logs/recherches/${searches[role] ?? 'aucune'}/entrees?page=1`,
    }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/logs/recherches/{id}/export': {
    request: ({ searches }, role) => ({ path: `/rest/bd/logs/recherches/${searches[role] ?? 'aucune'}/export` }),
    expect: admins(200, 200),
  },
  // Every administrator exports and previews in their own scope (what each may reach: bulk-preview.test.ts).
  'GET /portail-backend/rest/bd/export/{fichier}': {
    request: () => ({ path: '/rest/bd/export/utilisateurs.csv' }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/import': {
    request: () => ({ path: '/rest/bd/import' }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/import/{id}': {
    request: ({ imports }, role) => ({ path: `/rest/bd/import/${imports[role] ?? 999_999}` }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/import/{id}/erreurs.csv': {
    request: ({ imports }, role) => ({ path: `/rest/bd/import/${imports[role] ?? 999_999}/erreurs.csv` }),
    expect: admins(200, 200),
  },
  // Another's import, or one already started: the permission is reaching that answer (404, 409).
  'POST /portail-backend/rest/bd/import/{id}/lancement': {
    request: ({ imports }, role) => ({ path: `/rest/bd/import/${imports[role] ?? 999_999}/lancement`, body: {} }),
    expect: admins(409, 409),
  },
  'POST /portail-backend/rest/bd/import': {
    request: ({ target }) => ({
      path: '/rest/bd/import?type=utilisateurs&essai=true',
      text: `mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif\n${target.mail};Cible;Thomas;;;;;;;`,
    }),
    expect: admins(200, 200),
  },
  // Every administrator reads the home of their own scope (its figures per scope: home.test.ts).
  'GET /portail-backend/rest/bd/accueil': {
    request: () => ({ path: '/rest/bd/accueil' }),
    expect: admins(200, 200),
  },
  // The catalogue is the root administrators' alone.
  'GET /portail-backend/rest/bd/application': {
    request: () => ({ path: '/rest/bd/application?page=1' }),
    expect: rootOnly(200),
  },
  'GET /portail-backend/rest/bd/application/{id}': {
    request: () => ({ path: '/rest/bd/application/2' }),
    expect: rootOnly(200),
  },
  'POST /portail-backend/rest/bd/application': {
    request: () => ({ path: '/rest/bd/application', body: applicationBody(`Application matrice ${++sequence}`) }),
    expect: rootOnly(201),
  },
  'PUT /portail-backend/rest/bd/application': {
    request: async () => {
      const { id, libelle } = await freshApplication()
      return { path: '/rest/bd/application', body: { ...applicationBody(`${libelle} bis`), id } }
    },
    expect: rootOnly(200),
  },
  'GET /portail-backend/rest/bd/typestructure/fonctions': {
    request: () => ({ path: '/rest/bd/typestructure/fonctions' }),
    expect: rootOnly(200),
  },
  'GET /portail-backend/rest/bd/typestructure/{id}/fonctions': {
    request: () => ({ path: '/rest/bd/typestructure/3/fonctions' }),
    expect: rootOnly(200),
  },
  'PUT /portail-backend/rest/bd/typestructure/{id}/fonctions': {
    request: () => ({
      path: '/rest/bd/typestructure/3/fonctions',
      body: [{ libelle: 'Agent de quai', applications: [{ id: 2 }] }],
    }),
    expect: rootOnly(200),
  },
  'POST /portail-backend/rest/bd/application/{id}/secret': {
    request: async () => {
      const { id } = await freshApplication()
      await db()
        .insertInto('oidc_client')
        .values({ application_id: id, client_id: `matrice-${id}`, secret_hash: 'x', redirect_uris: '[]' })
        .execute()
      return { path: `/rest/bd/application/${id}/secret` }
    },
    expect: rootOnly(200),
  },
  'DELETE /portail-backend/rest/bd/application/{id}': {
    request: async () => ({ path: `/rest/bd/application/${(await freshApplication()).id}` }),
    expect: rootOnly(204),
  },
  // Partners' identity providers are the root administrators' alone (each write reads a real provider's discovery).
  'GET /portail-backend/rest/bd/fournisseur': {
    request: () => ({ path: '/rest/bd/fournisseur?page=1' }),
    expect: rootOnly(200),
  },
  'GET /portail-backend/rest/bd/fournisseur/{id}': {
    request: async () => ({ path: `/rest/bd/fournisseur/${await freshProvider()}` }),
    expect: rootOnly(200),
  },
  'POST /portail-backend/rest/bd/fournisseur': {
    request: async () => {
      const [issuer] = env.TEST_UPSTREAM_ISSUERS
      await db().deleteFrom('fournisseur').where('issuer', '=', issuer).execute()
      return { path: '/rest/bd/fournisseur', body: providerBody(issuer) }
    },
    expect: rootOnly(201),
  },
  'PUT /portail-backend/rest/bd/fournisseur': {
    request: async () => {
      const id = await freshProvider()
      const issuer = env.TEST_UPSTREAM_ISSUERS[1]
      await db().deleteFrom('fournisseur').where('issuer', '=', issuer).execute()
      return { path: '/rest/bd/fournisseur', body: { ...providerBody(issuer), id } }
    },
    expect: rootOnly(200),
  },
  'DELETE /portail-backend/rest/bd/fournisseur/{id}': {
    request: async () => ({ path: `/rest/bd/fournisseur/${await freshProvider()}` }),
    expect: rootOnly(204),
  },
  'GET /portail-backend/rest/bd/authorize/get/user/all': {
    request: () => ({ path: '/rest/bd/authorize/get/user/all' }),
    expect: admins(200, 200),
  },
  // A registration with a company in Agence Lille: in the scope of Direction Nord only.
  'GET /portail-backend/rest/bd/authorize/user/{id}/fonctions': {
    request: async () => ({
      path: `/rest/bd/authorize/user/${
        (
          await freshUser({
            registration: 'PENDING',
            password: null,
            actif: false,
            registrationStructure: 4,
            postes: [],
          })
        ).id
      }/fonctions`,
    }),
    expect: admins(404, 200),
  },
  // A registration with a company in Agence Lille: in the scope of Direction Nord only.
  'POST /portail-backend/rest/bd/authorize/user': {
    request: async () => ({
      path: '/rest/bd/authorize/user',
      body: {
        user: {
          id: (
            await freshUser({
              registration: 'PENDING',
              password: null,
              actif: false,
              registrationStructure: 4,
              postes: [],
            })
          ).id,
        },
        authorize: true,
      },
    }),
    expect: admins(404, 200),
  },
} satisfies Record<string, Row>)

/** The matrix's service account (Direction Nord, administrator, api, logs and scim) and its secret. */
let matrixAccount = { id: 0, clientId: '', secret: '' }

async function serviceAccount() {
  matrixAccount = await insertServiceAccount({ structure: 2, scopes: 'api logs scim', nom: 'Compte matrice' })
  return matrixAccount
}

/** The service account's access token, by the client credentials grant. */
const serviceToken = () => serviceAccountToken(matrixAccount)

/** A service account of Agence Lille (inside adminIn's scope only), not an administrator one. */
async function freshServiceAccount() {
  return (await insertServiceAccount({ structure: 4, scopes: 'api', admin: 0 })).id
}

// Service accounts: the administrators', each for their scope; no program makes or reads programs.
Object.assign(MATRIX, {
  'GET /portail-backend/rest/bd/compteService': {
    request: () => ({ path: '/rest/bd/compteService?page=1' }),
    expect: admins(200, 200, 403),
  },
  'POST /portail-backend/rest/bd/compteService': {
    request: () => ({
      path: '/rest/bd/compteService',
      body: { nom: `Compte créé ${++sequence}`, structure: { id: 4 }, admin: false, scopes: ['api'] },
    }),
    expect: admins(403, 201, 403),
  },
  'GET /portail-backend/rest/bd/compteService/{id}': {
    request: async () => ({ path: `/rest/bd/compteService/${await freshServiceAccount()}` }),
    expect: admins(404, 200, 403),
  },
  'DELETE /portail-backend/rest/bd/compteService/{id}': {
    request: async () => ({ path: `/rest/bd/compteService/${await freshServiceAccount()}` }),
    expect: admins(404, 204, 403),
  },
  'PATCH /portail-backend/rest/bd/compteService/{id}': {
    request: async () => ({
      path: `/rest/bd/compteService/${await freshServiceAccount()}`,
      body: { description: 'Matrice' },
    }),
    expect: admins(404, 200, 403),
  },
  'POST /portail-backend/rest/bd/compteService/{id}/secret': {
    request: async () => ({ path: `/rest/bd/compteService/${await freshServiceAccount()}/secret`, body: {} }),
    expect: admins(404, 200, 403),
  },
  'GET /portail-backend/rest/bd/compteService/{id}/responsables': {
    request: async () => ({ path: `/rest/bd/compteService/${await freshServiceAccount()}/responsables?page=1` }),
    expect: admins(404, 200, 403),
  },
  'PUT /portail-backend/rest/bd/compteService/{id}/responsable': {
    request: async () => ({
      path: `/rest/bd/compteService/${await freshServiceAccount()}/responsable`,
      // To a root administrator, who administers every structure.
      body: {
        utilisateur: { id: (await createUser({ admin: true, password: null, postes: [currentPost(1, 1)] })).id },
      },
    }),
    expect: admins(404, 200, 403),
  },
} satisfies Record<string, Row>)

/** A webhook subscription on structure 4 (Direction Nord's), made by no one in particular. */
async function freshWebhook() {
  const now = new Date().toISOString()
  const row = await db()
    .insertInto('webhook')
    .values({
      url: `https://integrateur.example/hook/${++sequence}`,
      evenements: '["utilisateur.*"]',
      recherche: '',
      structure_id: 4,
      cree_par: null,
      domain: 'http://localhost',
      secret_scelle: 'scelle',
      ancien_secret_scelle: null,
      ancien_secret_expire: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** A delivery of a fresh subscription (of an event about nobody), given up: what "send again" acts on. */
async function freshDelivery() {
  const webhook = await freshWebhook()
  const now = new Date().toISOString()
  const event = await db()
    .insertInto('evenement')
    .values({
      type: 'utilisateur.modifie',
      date: now,
      acteur: '{"type":"systeme"}',
      sujet: '{}',
      sujet_cle: 'x',
      data: '{}',
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const delivery = await db()
    .insertInto('webhook_livraison')
    .values({
      webhook_id: webhook,
      evenement_id: event.id,
      sujet_cle: 'x',
      created_at: now,
      next_attempt_at: now,
      abandoned_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return `/rest/bd/webhook/${webhook}/livraisons/${delivery.id}/renvoi`
}

// Webhook subscriptions: the administrators', each for their scope; no program subscribes programs.
Object.assign(MATRIX, {
  'GET /portail-backend/rest/bd/webhook': {
    request: () => ({ path: '/rest/bd/webhook?page=1' }),
    expect: admins(200, 200, 403),
  },
  'POST /portail-backend/rest/bd/webhook': {
    request: () => ({
      path: '/rest/bd/webhook',
      body: { url: `https://integrateur.example/new/${++sequence}`, evenements: ['poste.*'], structure: { id: 4 } },
    }),
    expect: admins(403, 201, 403),
  },
  'GET /portail-backend/rest/bd/webhook/{id}': {
    request: async () => ({ path: `/rest/bd/webhook/${await freshWebhook()}` }),
    expect: admins(404, 200, 403),
  },
  'PATCH /portail-backend/rest/bd/webhook/{id}': {
    request: async () => ({ path: `/rest/bd/webhook/${await freshWebhook()}`, body: { description: 'Matrice' } }),
    expect: admins(404, 200, 403),
  },
  'DELETE /portail-backend/rest/bd/webhook/{id}': {
    request: async () => ({ path: `/rest/bd/webhook/${await freshWebhook()}` }),
    expect: admins(404, 204, 403),
  },
  'POST /portail-backend/rest/bd/webhook/{id}/secret': {
    request: async () => ({ path: `/rest/bd/webhook/${await freshWebhook()}/secret`, body: {} }),
    expect: admins(404, 200, 403),
  },
  'GET /portail-backend/rest/bd/webhook/{id}/livraisons': {
    request: async () => ({ path: `/rest/bd/webhook/${await freshWebhook()}/livraisons` }),
    expect: admins(404, 200, 403),
  },
  'POST /portail-backend/rest/bd/webhook/{id}/livraisons/{livraisonId}/renvoi': {
    request: async () => ({ path: await freshDelivery(), body: {} }),
    expect: admins(404, 202, 403),
  },
  // The events pulled: every administrator and program reads those of their scope (adminOut: none of adminIn's).
  'GET /portail-backend/rest/bd/evenements': {
    request: () => ({ path: '/rest/bd/evenements?limite=5' }),
    expect: admins(200, 200, 200),
  },
} satisfies Record<string, Row>)

/** SCIM: a service account's with the scope scim (a person's token, whatever its rights, is refused). */
const scimOnly = (status: number): Expected => ({
  ...everyone(403),
  anonymous: 401,
  service: status,
})

Object.assign(MATRIX, {
  'GET /portail-backend/scim/v2/ServiceProviderConfig': {
    request: () => ({ path: '/scim/v2/ServiceProviderConfig' }),
    expect: scimOnly(200),
  },
  'GET /portail-backend/scim/v2/ResourceTypes': {
    request: () => ({ path: '/scim/v2/ResourceTypes' }),
    expect: scimOnly(200),
  },
  'GET /portail-backend/scim/v2/Schemas': { request: () => ({ path: '/scim/v2/Schemas' }), expect: scimOnly(200) },
  'GET /portail-backend/scim/v2/Users': {
    request: ({ target }) => ({ path: `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${target.login}"`)}` }),
    expect: scimOnly(200),
  },
  // T is in Agence Lille, inside the account's Direction Nord.
  'GET /portail-backend/scim/v2/Users/{id}': {
    request: ({ target }) => ({ path: `/scim/v2/Users/${target.id}` }),
    expect: scimOnly(200),
  },
  'GET /portail-backend/scim/v2/Groups': {
    request: () => ({ path: '/scim/v2/Groups?excludedAttributes=members' }),
    expect: scimOnly(200),
  },
  // Agence Lille's dock agents, a function inside Direction Nord.
  'GET /portail-backend/scim/v2/Groups/{id}': { request: () => ({ path: '/scim/v2/Groups/2' }), expect: scimOnly(200) },
  // The writes, each on a user of its own in Agence Lille (inside the account's Direction Nord).
  'POST /portail-backend/scim/v2/Users': {
    request: () => {
      const mail = `scim-${++sequence}@example.test`
      return {
        path: '/scim/v2/Users',
        body: {
          userName: mail,
          name: { givenName: 'Matrice', familyName: 'Provisionnée' },
          active: false,
          [SCIM_PORTAL_USER]: {
            postes: [
              { structure: { value: '4' }, fonction: { value: '2' }, dateDebut: isoDate(-1), dateFin: isoDate(30) },
            ],
          },
        },
      }
    },
    expect: scimOnly(201),
  },
  'PUT /portail-backend/scim/v2/Users/{id}': {
    request: async () => {
      const user = await freshUser()
      return {
        path: `/scim/v2/Users/${user.id}`,
        body: { userName: user.login, name: { givenName: 'Matrice', familyName: 'Remplacée' }, active: true },
      }
    },
    expect: scimOnly(200),
  },
  'PATCH /portail-backend/scim/v2/Users/{id}': {
    request: async () => ({
      path: `/scim/v2/Users/${(await freshUser()).id}`,
      body: { Operations: [{ op: 'Replace', path: 'name.familyName', value: 'Corrigée' }] },
    }),
    expect: scimOnly(200),
  },
  'DELETE /portail-backend/scim/v2/Users/{id}': {
    request: async () => ({ path: `/scim/v2/Users/${(await freshUser()).id}` }),
    expect: scimOnly(204),
  },
  // Groups are read-only: the account hears so once it is known (501).
  'POST /portail-backend/scim/v2/Groups': {
    request: () => ({ path: '/scim/v2/Groups', body: { displayName: 'Matrice' } }),
    expect: scimOnly(501),
  },
  'PUT /portail-backend/scim/v2/Groups/{id}': {
    request: () => ({ path: '/scim/v2/Groups/2', body: { displayName: 'Matrice' } }),
    expect: scimOnly(501),
  },
  'PATCH /portail-backend/scim/v2/Groups/{id}': {
    request: () => ({ path: '/scim/v2/Groups/2', body: { Operations: [] } }),
    expect: scimOnly(501),
  },
  'DELETE /portail-backend/scim/v2/Groups/{id}': {
    request: () => ({ path: '/scim/v2/Groups/2' }),
    expect: scimOnly(501),
  },
} satisfies Record<string, Row>)

/** A demandable application nobody holds: each request for it is the first. */
async function demandableApplication() {
  const { id } = await freshApplication()
  await db().updateTable('application').set({ demandable: 1 }).where('id', '=', id).execute()
  return id
}

/** A waiting request of `userId` (a fresh requester in Agence Lille when absent), its id. */
async function waitingRequest(userId?: number) {
  const requester = userId ?? (await createUser({ postes: [currentPost(4, 2)] })).id
  const { id } = await db()
    .insertInto('demande_acces')
    .values({
      utilisateur_id: requester,
      application_id: await demandableApplication(),
      motif: 'Matrice',
      date_debut: isoDate(0),
      date_fin: isoDate(10),
      created_at: new Date().toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return id
}

/** The callers who are users (a request of their own may be written for them). */
const PEOPLE: readonly Role[] = ['user', 'adminOut', 'adminIn', 'root', 'self']

// Access requests: anyone signed in asks and withdraws their own; the administrators who manage the requester decide.
Object.assign(MATRIX, {
  'GET /portail-backend/rest/bd/demande/applications': {
    request: () => ({ path: '/rest/bd/demande/applications' }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
  'GET /portail-backend/rest/bd/demande/miennes': {
    request: () => ({ path: '/rest/bd/demande/miennes?page=1' }),
    expect: signedIn({ user: 200, adminOut: 200, adminIn: 200, self: 200 }),
  },
  'POST /portail-backend/rest/bd/demande': {
    request: async () => ({
      path: '/rest/bd/demande',
      body: {
        application: { id: await demandableApplication() },
        motif: 'Matrice',
        dateDebut: wireDate(isoDate(0)),
        dateFin: wireDate(isoDate(10)),
      },
    }),
    expect: signedIn({ user: 201, adminOut: 201, adminIn: 201, self: 201 }),
  },
  // One's own request; another's is unknown.
  'DELETE /portail-backend/rest/bd/demande/{id}': {
    request: async ({ target }, role) => ({
      path: `/rest/bd/demande/${PEOPLE.includes(role) ? await waitingRequest(role === 'self' ? target.id : undefined) : 999_999}`,
    }),
    expect: signedIn({ user: 404, adminOut: 404, adminIn: 404, root: 404, self: 204 }),
  },
  'GET /portail-backend/rest/bd/demande/aTraiter': {
    request: () => ({ path: '/rest/bd/demande/aTraiter?page=1' }),
    expect: admins(200, 200),
  },
  // A request of a user of Agence Lille: Direction Nord's (and the root's) to decide, not Direction Sud's.
  'GET /portail-backend/rest/bd/demande/{id}': {
    request: async () => ({ path: `/rest/bd/demande/${await waitingRequest()}` }),
    expect: admins(404, 200),
  },
  'POST /portail-backend/rest/bd/demande/{id}/decision': {
    request: async () => ({
      path: `/rest/bd/demande/${await waitingRequest()}/decision`,
      body: { accord: false, commentaire: 'Matrice' },
    }),
    expect: admins(404, 200),
  },
} satisfies Record<string, Row>)

/** A campaign over Direction Nord (`etat`), with one item to review: the target's post in Agence Lille. */
async function freshReview(etat: 'OUVERTE' | 'ECHUE', target: { id: number }) {
  const at = new Date().toISOString()
  const { id } = await db()
    .insertInto('revue')
    .values({
      nom: `Revue matrice ${++sequence}`,
      structure_id: 2,
      structure_nom: 'Direction Nord',
      chemin: '/1/2/',
      echeance: isoDate(30),
      si_non_revu: 'CONSERVER',
      etat,
      auteur_id: target.id,
      domaine: ORIGIN,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const poste = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', target.id).executeTakeFirst()
  const { id: element } = await db()
    .insertInto('revue_element')
    .values({
      revue_id: id,
      poste_id: poste?.id ?? null,
      utilisateur_id: target.id,
      structure_id: 4,
      chemin: '/1/2/4/',
      login: 'cible',
      nom: 'Cible',
      prenom: 'Thomas',
      structure_nom: 'Agence Lille',
      fonction_libelle: 'Agent de quai',
      date_debut: isoDate(-30),
      date_fin: isoDate(30),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db()
    .insertInto('revue_progression')
    .values({ revue_id: id, structure_id: 4, chemin: '/1/2/4/', nom: 'Agence Lille', total: 1 })
    .execute()
  return { id, element }
}

// Access reviews: the administrators of a campaign's sub-tree (and above it) run it; nobody else sees it.
Object.assign(MATRIX, {
  'POST /portail-backend/rest/bd/revue': {
    request: () => ({
      path: '/rest/bd/revue',
      body: {
        nom: `Revue ${++sequence}`,
        structure: { id: 4 },
        echeance: wireDate(isoDate(30)),
        siNonRevu: 'CONSERVER',
      },
    }),
    expect: admins(403, 201),
  },
  'GET /portail-backend/rest/bd/revue': {
    request: () => ({ path: '/rest/bd/revue?page=1' }),
    expect: admins(200, 200),
  },
  'GET /portail-backend/rest/bd/revue/{id}': {
    request: async ({ target }) => ({ path: `/rest/bd/revue/${(await freshReview('OUVERTE', target)).id}` }),
    expect: admins(404, 200),
  },
  'GET /portail-backend/rest/bd/revue/{id}/elements': {
    request: async ({ target }) => ({
      path: `/rest/bd/revue/${(await freshReview('OUVERTE', target)).id}/elements?page=1`,
    }),
    expect: admins(404, 200),
  },
  'POST /portail-backend/rest/bd/revue/{id}/decisions': {
    request: async ({ target }) => {
      const { id, element } = await freshReview('OUVERTE', target)
      return { path: `/rest/bd/revue/${id}/decisions`, body: [{ element: { id: element }, decision: 'CONFIRMER' }] }
    },
    expect: admins(404, 200),
  },
  'POST /portail-backend/rest/bd/revue/{id}/decisions/tous': {
    request: async ({ target }) => ({
      path: `/rest/bd/revue/${(await freshReview('OUVERTE', target)).id}/decisions/tous`,
      body: { decision: 'CONFIRMER', structure: 4 },
    }),
    expect: admins(404, 200),
  },
  'POST /portail-backend/rest/bd/revue/{id}/cloture': {
    request: async ({ target }) => ({ path: `/rest/bd/revue/${(await freshReview('ECHUE', target)).id}/cloture` }),
    expect: admins(404, 204),
  },
  'GET /portail-backend/rest/bd/revue/{id}/rapport.csv': {
    request: async ({ target }) => ({
      path: `/rest/bd/revue/${(await freshReview('OUVERTE', target)).id}/rapport.csv`,
    }),
    expect: admins(404, 200),
  },
} satisfies Record<string, Row>)

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const

/** SCIM's endpoints (SCIM's error body). */
const SCIM = /^[A-Z]+ \/portail-backend\/scim\//

/** The OpenID Connect protocol's endpoints (OAuth's error body), and those of them cached. */
const OAUTH_PROTOCOL = /^[A-Z]+ \/portail-backend\/(oidc\/|\.well-known\/)/
const PUBLIC_METADATA = [
  'GET /portail-backend/.well-known/openid-configuration',
  'GET /portail-backend/oidc/jwks',
  'GET /portail-backend/saml/metadata',
]

/**
 * The reads that write: a launch (its code and log entry), the exports (their log entries), SAML's single sign-on (the
 * request kept, after its service provider is read) and single logout (the sessions ended, after the same read).
 */
const READS_THAT_WRITE = [
  'GET /portail-backend/rest/bd/acces/application',
  'GET /portail-backend/saml/sso',
  'GET /portail-backend/saml/slo',
  'GET /portail-backend/rest/bd/logs/export',
  'GET /portail-backend/rest/bd/logs/recherches/{id}/export',
  'GET /portail-backend/rest/bd/export/{fichier}',
]

/**
 * The D1 round trips an operation may take: a read, one (the caller checked with its
 * data); a write, two (what the decision reads, then the change with its guards and audit entry).
 */
const roundTripsOf = (operation: string) =>
  operation.startsWith('GET ') && !READS_THAT_WRITE.includes(operation) ? 1 : 2

/** A finished import made by `auteur` (a user's id, or a service account's negative one). */
async function importBy(auteur: number) {
  const at = new Date().toISOString()
  const { id } = await db()
    .insertInto('import')
    .values({
      type: 'utilisateurs',
      etat: 'TERMINE',
      auteur_id: auteur,
      fichier: 'matrice.csv',
      domaine: ORIGIN,
      origine: ORIGIN,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return id
}

/** A finished search of the archive made by `auteur` (a user's id, or a service account's negative one). */
async function searchBy(auteur: number) {
  const id = `matrice-${crypto.randomUUID()}`
  const at = new Date()
  await db()
    .insertInto('historique_recherche')
    .values({
      id,
      utilisateur_id: auteur > 0 ? auteur : null,
      compte_service_id: auteur < 0 ? -auteur : null,
      domaine: ORIGIN,
      filtres: '{}',
      fichiers: 0,
      etat: 'TERMINEE',
      created_at: at.toISOString(),
      expires_at: new Date(at.getTime() + 3_600_000).toISOString(),
    })
    .execute()
  return id
}

async function documentedOperations() {
  const doc = await openApiDocument(await call('/openapi.json'))
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`),
  )
}

describe('the authorisation matrix', () => {
  let world: World
  const callers = {} as Record<Exclude<Role, 'anonymous'>, number>
  const sessions = {} as Record<Role, string | undefined>

  beforeAll(async () => {
    await createOrganisation()
    // The carrier type (CARRIER_TYPE_ID of the tests' configuration), for the registrations.
    await db().insertInto('type_structure').values({ id: 4, libelle: 'Transporteur', parent_type_id: 3 }).execute()
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const [user, adminOut, adminIn, root, renewer, mover] = await Promise.all([
      createUser({ postes: [currentPost(4, 2)] }),
      createUser({ admin: true, postes: [currentPost(3, 3)] }),
      createUser({ admin: true, postes: [currentPost(2, 1)] }),
      createUser({ admin: true, postes: [currentPost(1, 1)] }),
      createUser(),
      createUser(),
    ])
    world = { target: { ...target, mail: `${target.login}@example.test` }, renewer, mover, imports: {}, searches: {} }
    const account = await serviceAccount()
    Object.assign(callers, {
      service: account.id,
      application: target.id,
      user: user.id,
      adminOut: adminOut.id,
      adminIn: adminIn.id,
      root: root.id,
      self: target.id,
      ended: target.id,
    })
    for (const role of ROLES) sessions[role] = await sessionOf(role)
    // A service account acts under the negative of its id.
    for (const role of ROLES) {
      if (role !== 'anonymous')
        world.imports[role] = await importBy(role === 'service' ? -callers[role] : callers[role])
    }
    for (const role of ROLES) {
      if (role !== 'anonymous')
        world.searches[role] = await searchBy(role === 'service' ? -callers[role] : callers[role])
    }
  })

  async function sessionOf(role: Role) {
    if (role === 'anonymous') return undefined
    if (role === 'service') return serviceToken()
    const application = role === 'application' ? { application: 2 } : {}
    const session = await sessionFor(callers[role], application)
    if (role === 'ended') {
      const signedOut = await call('/rest/bd/logout', { method: 'POST', token: session.accessToken })
      expect(signedOut.status).toBe(204)
    }
    return session.accessToken
  }

  it('has a row for every documented operation, and no row for an operation that does not exist', async () => {
    const operations = await documentedOperations()
    expect(operations.length).toBeGreaterThan(10)
    expect(operations.filter((operation) => !(operation in MATRIX))).toEqual([])
    expect(Object.keys(MATRIX).filter((operation) => !operations.includes(operation))).toEqual([])
  })

  for (const [operation, row] of Object.entries(MATRIX)) {
    it(`${operation}: ${ROLES.map((role) => `${role} ${row.expect[role]}`).join(', ')}`, async () => {
      const method = operation.split(' ')[0] as string
      const seen = {} as Expected
      const trips = {} as Expected
      for (const role of ROLES) {
        const token = row.endsSession ? await sessionOf(role) : sessions[role]
        // The ended session is the target's: it makes the target's own calls.
        const request = await row.request(world, role === 'ended' ? 'self' : role)
        const response = await call(request.path, {
          method,
          token,
          ...sent(request),
          env: { SERVER_TIMING: 'on' },
        })
        seen[role] = response.status
        trips[role] = Number(/(\d+) round trips/.exec(response.headers.get('Server-Timing') ?? '')?.[1] ?? Number.NaN)
        // Every answer, allowed or refused, carries the API's headers.
        expect(response.headers.get('X-Content-Type-Options'), `${operation} as ${role}`).toBe('nosniff')
        // The providers' metadata and keys are public and cached a while; nothing else is.
        const cached = PUBLIC_METADATA.includes(operation) && response.status === 200
        expect(response.headers.get('Cache-Control'), `${operation} as ${role}`).toBe(
          cached ? 'public, max-age=300' : 'no-store',
        )
        if (response.status >= 400) {
          const error = await anyErrorBody(response)
          // The OpenID Connect protocol's endpoints answer errors as OAuth does, SCIM's as SCIM does.
          const shape = OAUTH_PROTOCOL.test(operation)
            ? ['error', 'error_description']
            : SCIM.test(operation)
              ? ['detail', 'schemas', 'status']
              : ['attributs', 'businessCode', 'message']
          expect(Object.keys(error).sort(), `${operation} as ${role}`).toEqual(shape)
          if (SCIM.test(operation)) expect(response.headers.get('Content-Type')).toBe('application/scim+json')
          const portal = !OAUTH_PROTOCOL.test(operation) && !SCIM.test(operation)
          if (response.status === 403 && role === 'application' && portal) {
            expect(error).toMatchObject({ businessCode: 'APPLICATION_TOKEN_SCOPE' })
          }
        }
      }
      expect(seen).toEqual(row.expect)
      // Every answer, allowed or refused, in the D1 round trips of its kind.
      const budget = roundTripsOf(operation)
      expect(ROLES.filter((role) => !(trips[role] <= budget)).map((role) => `${role}: ${trips[role]}`)).toEqual([])
    })
  }
})

/**
 * While the security settings require a second factor of administrators, an administrator without one
 * is refused every administration operation of the document (403 MFA_ENROLMENT_REQUIRED) and keeps
 * the calls anyone signed in has (their factors, their profile, their applications).
 */
describe('a second factor required of administrators: every admin operation refused until enrolled', () => {
  let world: World
  let token: string

  beforeAll(async () => {
    const target = await createUser({ postes: [currentPost(4, 2)] })
    world = {
      target: { ...target, mail: `${target.login}@example.test` },
      renewer: await createUser(),
      mover: await createUser(),
      imports: {},
      searches: {},
    }
    const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    token = (await sessionFor(root.id)).accessToken
    await db().updateTable('parametre_securite').set({ mfa_requis_administrateurs: 1 }).execute()
  })
  afterAll(async () => {
    await db().updateTable('parametre_securite').set({ mfa_requis_administrateurs: 0 }).execute()
  })

  const adminOnly = Object.entries(MATRIX as Record<string, Row>).filter(
    ([, row]) => row.expect.user === 403 && row.expect.root !== 403 && row.expect.self === 403,
  )
  const everyoneSignedIn = Object.entries(MATRIX as Record<string, Row>).filter(
    ([operation, row]) =>
      row.expect.user !== 403 && row.expect.anonymous === 401 && !row.endsSession && !operation.includes('mfa/totp'),
  )

  it('the document has administration operations and signed-in ones', () => {
    expect(adminOnly.length).toBeGreaterThan(30)
    expect(everyoneSignedIn.length).toBeGreaterThan(5)
  })

  it.each(adminOnly)('%s: 403 MFA_ENROLMENT_REQUIRED', async (operation, row) => {
    const request = await row.request(world, 'root')
    const response = await call(request.path, { method: operation.split(' ')[0], token, ...sent(request) })
    const error = await anyErrorBody(response)
    // The OpenID Connect protocol's registration answers as OAuth does (RFC 6750's insufficient_scope).
    const oauth = OAUTH_PROTOCOL.test(operation)
    expect({ status: response.status, error }).toMatchObject({
      status: 403,
      error: oauth ? { error: 'insufficient_scope' } : { businessCode: 'MFA_ENROLMENT_REQUIRED' },
    })
  })

  it.each(everyoneSignedIn)(
    '%s: the status the matrix expects of a root administrator, never MFA_ENROLMENT_REQUIRED',
    async (operation, row) => {
      const request = await row.request(world, 'root')
      const response = await call(request.path, { method: operation.split(' ')[0], token, ...sent(request) })
      const text = await response.text()
      expect({ status: response.status, text }).toEqual({
        status: row.expect.root,
        text: expect.not.stringContaining('MFA_ENROLMENT_REQUIRED'),
      })
    },
  )
})
