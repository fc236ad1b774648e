import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Poste } from '../../../worker-api/contract/organisation/user'
import { sha256Hex } from '../../../worker-api/lib/crypto'
import { SMALL_SCOPE_POSTS } from '../../../worker-api/lib/scope'
import { foldSearchText, SEARCH_WORDS } from '../../../worker-api/lib/search-text'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  login,
  ORIGIN,
  post,
  refreshWith,
  sessionFor,
  signIn,
  wireDate,
  withFrozenClock,
} from '../helpers'

/**
 * User administration (spec §4–§7, DESIGN §4): creating a user with a post and an invitation, the
 * list of the users in scope, the admin's switches, delete and restore, the public mail check.
 * The organisation of the helpers: Groupe (1) → Direction Nord (2) → Agence Lille (4), Groupe →
 * Direction Sud (3); functions Directeur (of 1), Agent de quai (of 4: Yard dangereux, Pesage),
 * Responsable (of 3). The database lives for the whole file: each test makes its own users and
 * finds them by id or by a name of its own.
 */
let rootAdmin: string
let rootAdminId: number
let nordAdmin: string
let nordAdminId: number
let sudAdmin: string
let sudAdminId: number
let agent: { id: number; token: string }

const DAY = 86_400_000
/** How long an invitation works (spec: 7 days), and how many a user may be sent an hour. */
const INVITATION_TTL = 7 * DAY
const INVITATIONS_PER_HOUR = 5
const CREATE = '/rest/bd/utilisateur'
const RENEW = '/rest/public/bd/password/renew/'

const get = (path: string, token: string) => call(path, { token })
const del = (path: string, token: string) => call(path, { method: 'DELETE', token })
const resend = (id: number, token: string) => call(`/rest/bd/utilisateur/${id}/invitation`, { method: 'POST', token })
const renew = (token: string, password: string) => post(RENEW, { token, password })

let sequence = 0
/** The create payload of spec §3 for a user in Agence Lille as a dock agent. */
function payload(extra: Record<string, unknown> = {}) {
  const n = ++sequence
  return {
    login: 'ignored',
    nom: `Créé${n}`,
    prenom: 'Élodie',
    mail: `cree${n}@example.test`,
    admin: false,
    actif: true,
    domain: ORIGIN,
    poste: {
      structure: { id: 4 },
      fonction: { id: 2 },
      dateDebut: wireDate(isoDate(0)),
      dateFin: wireDate(isoDate(30)),
    },
    ...extra,
  }
}

/** A user created through the API by `token`'s administrator. */
async function created(token: string, extra: Record<string, unknown> = {}) {
  return okBody(api(token).rest.bd.utilisateur.$post({ json: payload(extra) }), 201)
}

/** A user as `token`'s administrator reads them. */
const userAs = (token: string, id: number) =>
  okBody(api(token).rest.bd.utilisateur[':id'].$get({ param: { id }, query: {} }))

/** A user of the factory renamed (its names are NomN/PrenomN), for the list's search and sort. */
async function named(nom: string, prenom: string, options: Parameters<typeof createUser>[0] = {}) {
  const user = await createUser(options)
  await db().updateTable('utilisateur').set({ nom, prenom }).where('id', '=', user.id).execute()
  return user
}

const outboxTo = (mail: string) =>
  db().selectFrom('outbox').selectAll().where('to_address', '=', mail).orderBy('id').execute()

/** The invitations mailed to an address, and the link of the latest as its recipient reads it. */
async function invitations(mail: string) {
  const sent = (await outboxTo(mail)).filter((m) => m.kind === 'INVITATION')
  const match = /(https?:\/\/[^\s/]+)\/renewPassword\/([A-Za-z0-9_-]+)/.exec(sent.at(-1)?.text ?? '')
  if (!match) throw new Error(`no invitation link mailed to ${mail}`)
  return { count: sent.length, origin: match[1] as string, token: match[2] as string }
}

/** The audit entries about a user (the admin's actions name them `#id login`). */
const logsAbout = (userId: number) =>
  db()
    .selectFrom('log')
    .select(['nom_log', 'type_log', 'utilisateur_id'])
    .where('commentaire', 'like', `#${userId} %`)
    .orderBy('id')
    .execute()

/** Rows of every table a create writes, whoever they belong to. */
async function rowCounts() {
  const tables = ['utilisateur', 'poste', 'outbox', 'mail_token', 'log']
  const counts = await Promise.all(
    tables.map((t) => env.DB.prepare(`select count(*) as n from ${t}`).first<{ n: number }>()),
  )
  return Object.fromEntries(tables.map((t, i) => [t, counts[i]?.n]))
}

/** A page (or all) of the user list as `token`'s administrator sees it. */
async function list(token: string, query = '') {
  const response = await api(token).rest.bd.utilisateur.liste.$get({
    query: Object.fromEntries(new URLSearchParams(query)),
  })
  const rows = await okBody(response)
  return { rows, ids: rows.map((u) => u.id), total: Number(response.headers.get('X-Total-Count')) }
}

const ids = (...users: { id: number }[]) => users.map((u) => u.id)
const sortedIds = (...users: { id: number }[]) => ids(...users).sort((a, b) => a - b)
const where = (postes: Poste[]) => postes.map((p) => [p.structure.nom, p.fonction.libelle])

beforeAll(async () => {
  await createOrganisation()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  rootAdminId = root.id
  rootAdmin = (await sessionFor(root.id)).accessToken
  const nord = await createUser({ admin: true, postes: [currentPost(2, 1)] })
  nordAdminId = nord.id
  nordAdmin = (await sessionFor(nord.id)).accessToken
  const sud = await createUser({ admin: true, postes: [currentPost(3, 3)] })
  sudAdminId = sud.id
  sudAdmin = (await sessionFor(sud.id)).accessToken
  const agentUser = await createUser({ postes: [currentPost(4, 2)] })
  agent = { id: agentUser.id, token: (await sessionFor(agentUser.id)).accessToken }
})

describe('POST rest/bd/utilisateur', () => {
  it('writes the user, their post, a 7-day INVITATION link, its mail and an audit entry together', async () => {
    const body = payload()
    const before = Date.now()
    const user = await okBody(api(nordAdmin).rest.bd.utilisateur.$post({ json: body }), 201)
    // The login is the mail, whatever the payload's `login` says.
    expect(user).toMatchObject({ login: body.mail, mail: body.mail, nom: body.nom, actif: true, admin: false })
    expect(where(user.postesEnCours)).toEqual([['Agence Lille', 'Agent de quai']])
    expect(user.postesEnCours[0]).toMatchObject({ dateDebut: body.poste.dateDebut, dateFin: body.poste.dateFin })

    const row = await db().selectFrom('utilisateur').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ login: body.mail, password_hash: null, registration_state: 'INVITED', domain: ORIGIN })

    const mail = await invitations(body.mail)
    expect(mail).toMatchObject({ count: 1, origin: ORIGIN })
    const [token, ...others] = await db()
      .selectFrom('mail_token')
      .selectAll()
      .where('utilisateur_id', '=', user.id)
      .execute()
    expect(others).toEqual([])
    expect(token).toMatchObject({ purpose: 'INVITATION', used_at: null, token_hash: await sha256Hex(mail.token) })
    expect(Date.parse(token?.expires_at ?? '')).toBeGreaterThanOrEqual(before + INVITATION_TTL)
    expect(Date.parse(token?.expires_at ?? '')).toBeLessThanOrEqual(Date.now() + INVITATION_TTL)
    expect(user.tokenRegister).toBe(Date.parse(token?.expires_at ?? ''))

    const logs = await db()
      .selectFrom('log')
      .select(['type_log', 'utilisateur_id'])
      .where('nom_log', '=', 'UTILISATEUR_CREATION')
      .where('commentaire', 'like', `${body.mail} %`)
      .execute()
    expect(logs).toEqual([{ type_log: 'ADMINISTRATION', utilisateur_id: nordAdminId }])
  })

  it("links the invitation to the account's own domain, over https even when asked over http", async () => {
    const portail = 'https://portail.example.test'
    const admin = await createUser({ admin: true, domain: portail, postes: [currentPost(1, 1)] })
    const { accessToken } = await sessionFor(admin.id)
    const body = payload({ domain: undefined })
    const user = await okBody(
      api(accessToken, {}, 'http://portail.example.test').rest.bd.utilisateur.$post({ json: body }),
      201,
    )
    const row = await db()
      .selectFrom('utilisateur')
      .select('domain')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(row.domain).toBe(portail)
    expect((await invitations(body.mail)).origin).toBe(portail)
  })

  it("binds a new account to the administrator's own origin only: another scheme or port is refused, writing nothing", async () => {
    const portail = 'https://portail.example.test'
    const admin = await createUser({ admin: true, domain: portail, postes: [currentPost(1, 1)] })
    const { accessToken } = await sessionFor(admin.id)
    const create = (domain: string, origin: string, token = accessToken) =>
      api(token, {}, origin).rest.bd.utilisateur.$post({ json: payload({ domain }) })
    const before = await rowCounts()
    for (const domain of ['http://portail.example.test', 'https://portail.example.test:8443']) {
      const refused = await expectError(await create(domain, portail), 400, 'VALIDATION_FAILED')
      expect(refused.attributs).toEqual([{ field: 'domain', message: 'validation.domain' }])
    }
    // On this machine too: the scheme and the port count, the loopback names are one machine.
    for (const domain of ['http://localhost:9999', 'https://localhost:8787', 'http://127.0.0.1:9999']) {
      await expectError(await create(domain, ORIGIN, rootAdmin), 400, 'VALIDATION_FAILED')
    }
    expect(await rowCounts()).toEqual(before)
    // The same origin, however written, is taken (as an origin).
    await okBody(create('https://PORTAIL.example.test:443/any/path', portail), 201)
    await okBody(create('http://127.0.0.1:8787', ORIGIN, rootAdmin), 201)
    // A local run on another port (`PORT=9000 npm start`, the browser tests): that port is the
    // administrator's own site there.
    await okBody(create('http://localhost:9999', 'http://localhost:9999', rootAdmin), 201)
  })

  it('creates an administrator with admin: true', async () => {
    const body = payload({ admin: true })
    const user = await okBody(api(rootAdmin).rest.bd.utilisateur.$post({ json: body }), 201)
    expect(user.admin).toBe(true)
    const row = await db().selectFrom('utilisateur').select('admin').where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(row.admin).toBe(1)
  })

  it('refuses an address already used (any case) with MAIL_ALREADY_USED', async () => {
    const first = await created(rootAdmin)
    const again = payload({ mail: first.mail.toUpperCase() })
    const error = await expectError(await post(CREATE, again, { token: rootAdmin }), 409, 'MAIL_ALREADY_USED')
    expect(error.attributs).toEqual([again.mail])
  })

  it('writes nothing when it refuses: mail taken, out of scope, wrong function, past post, missing fields', async () => {
    const taken = await created(rootAdmin)
    const before = await rowCounts()

    await expectError(await post(CREATE, payload({ mail: taken.mail }), { token: rootAdmin }), 409, 'MAIL_ALREADY_USED')
    // Agence Lille is outside Direction Sud; a dock agent is no administrator.
    await expectError(await post(CREATE, payload(), { token: sudAdmin }), 403, 'FORBIDDEN')
    await expectError(await post(CREATE, payload(), { token: agent.token }), 403, 'FORBIDDEN')

    const wrongFonction = payload({ poste: { ...payload().poste, fonction: { id: 3 } } })
    const wrong = await expectError(await post(CREATE, wrongFonction, { token: rootAdmin }), 400, 'VALIDATION_FAILED')
    expect(wrong.attributs).toEqual([{ field: 'poste.fonction.id', message: 'validation.fonctionStructure' }])

    const past = payload({
      poste: { ...payload().poste, dateDebut: wireDate(isoDate(-10)), dateFin: wireDate(isoDate(-1)) },
    })
    const over = await expectError(await post(CREATE, past, { token: rootAdmin }), 400, 'VALIDATION_FAILED')
    expect(over.attributs).toEqual([{ field: 'poste.dateFin', message: 'validation.datePast' }])

    const { nom: _nom, ...withoutNom } = payload()
    const incomplete = {
      ...withoutNom,
      poste: { structure: { id: 4 }, fonction: { id: 2 }, dateFin: wireDate(isoDate(3)) },
    }
    const missing = await expectError(await post(CREATE, incomplete, { token: rootAdmin }), 400, 'VALIDATION_FAILED')
    const fields = (missing.attributs as { field: string }[]).map((a) => a.field).sort()
    expect(fields).toEqual(['nom', 'poste.dateDebut'])

    const reversed = payload({
      poste: { ...payload().poste, dateDebut: wireDate(isoDate(9)), dateFin: wireDate(isoDate(2)) },
    })
    await expectError(await post(CREATE, reversed, { token: rootAdmin }), 400, 'VALIDATION_FAILED')
    const unknownFonction = payload({ poste: { ...payload().poste, fonction: { id: 999 } } })
    const unknown = await expectError(
      await post(CREATE, unknownFonction, { token: rootAdmin }),
      400,
      'VALIDATION_FAILED',
    )
    expect(unknown.attributs).toEqual([{ field: 'poste.fonction.id', message: 'validation.unknown' }])

    const elsewhere = payload({ domain: 'https://evil.example' })
    await expectError(await post(CREATE, elsewhere, { token: rootAdmin }), 400, 'VALIDATION_FAILED')

    expect(await rowCounts()).toEqual(before)
  })

  it('of two creates with the same mail at once, one wins (201) and the other gets 409', async () => {
    const body = payload()
    const before = await rowCounts()
    const responses = await Promise.all([
      post(CREATE, body, { token: rootAdmin }),
      post(CREATE, { ...body, nom: 'Concurrent' }, { token: nordAdmin }),
    ])
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409])
    const loser = responses.find((r) => r.status === 409) as Response
    await expectError(loser, 409, 'MAIL_ALREADY_USED')

    const holders = await db().selectFrom('utilisateur').select('id').where('mail', '=', body.mail).execute()
    expect(holders).toHaveLength(1)
    expect((await invitations(body.mail)).count).toBe(1)
    // Exactly one create's rows: a user, a post, a link, a mail and an audit entry.
    const after = await rowCounts()
    expect(Object.fromEntries(Object.entries(after).map(([t, n]) => [t, (n ?? 0) - (before[t] ?? 0)]))).toEqual({
      utilisateur: 1,
      poste: 1,
      mail_token: 1,
      outbox: 1,
      log: 1,
    })
  })
})

describe('the invited user', () => {
  it('cannot sign in until the link sets a password; then gets the applications of their function', async () => {
    const body = payload()
    const user = await created(nordAdmin, { mail: body.mail })
    const { token } = await invitations(body.mail)
    await expectError(await login(body.mail, 'Choisi12'), 403, 'USER_NOT_FINISH_REGISTRATION')

    expect((await renew(token, 'Choisi12')).status).toBe(204)
    await expectError(await renew(token, 'Autre123'), 410, 'TOKEN_USED')
    const signedIn = await signIn(body.mail, 'Choisi12')
    expect(signedIn.user.id).toBe(user.id)

    const access = await okBody(
      api(signedIn.jwt.accessToken).rest.bd.acces.utilisateur[':userId'].$get({
        param: { userId: user.id },
        query: {},
      }),
    )
    expect(access.accesApplication.map((a) => a.application.libelle)).toEqual(['Pesage', 'Yard dangereux'])
  })
})

describe('POST rest/bd/utilisateur/{id}/invitation', () => {
  it('sends a new link, kills the earlier one and moves tokenRegister', async () => {
    const user = await created(nordAdmin)
    const first = await invitations(user.mail)
    // As if the first invitation had been sent days ago.
    const old = new Date(Date.now() + DAY).toISOString()
    await db().updateTable('utilisateur').set({ token_register_expires_at: old }).where('id', '=', user.id).execute()

    const before = Date.now()
    expect((await resend(user.id, nordAdmin)).status).toBe(204)
    const second = await invitations(user.mail)
    expect(second.count).toBe(2)
    expect(second.token).not.toBe(first.token)
    const read = await userAs(nordAdmin, user.id)
    expect(read.tokenRegister).toBeGreaterThanOrEqual(before + INVITATION_TTL)
    expect((await logsAbout(user.id)).map((l) => l.nom_log)).toEqual(['INVITATION_RENVOI'])

    await expectError(await renew(first.token, 'Choisi12'), 410, 'TOKEN_USED')
    expect((await renew(second.token, 'Choisi12')).status).toBe(204)
    expect((await login(user.mail, 'Choisi12')).status).toBe(200)
    // Done: there is no invitation left to send.
    await expectError(await resend(user.id, nordAdmin), 409, 'INVITATION_NOT_PENDING')
  })

  it(`sends at most ${INVITATIONS_PER_HOUR} invitations an hour (the first one counts), then 429 and nothing written`, async () => {
    const user = await created(nordAdmin)
    for (let i = 1; i < INVITATIONS_PER_HOUR; i++) expect((await resend(user.id, nordAdmin)).status).toBe(204)
    const live = await invitations(user.mail)
    expect(live.count).toBe(INVITATIONS_PER_HOUR)

    const before = await rowCounts()
    await expectError(await resend(user.id, nordAdmin), 429, 'TOO_MANY_ATTEMPTS')
    expect(await rowCounts()).toEqual(before)
    // The refused one did not kill the live link.
    expect((await renew(live.token, 'Choisi12')).status).toBe(204)
  })

  it('holds the hourly cap when resends arrive together, leaving one live link', async () => {
    const user = await created(nordAdmin)
    const responses = await Promise.all(
      Array.from({ length: INVITATIONS_PER_HOUR + 1 }, () => resend(user.id, nordAdmin)),
    )
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([...Array(INVITATIONS_PER_HOUR - 1).fill(204), 429, 429])
    expect((await invitations(user.mail)).count).toBe(INVITATIONS_PER_HOUR)
    const live = await db()
      .selectFrom('mail_token')
      .select('id')
      .where('utilisateur_id', '=', user.id)
      .where('used_at', 'is', null)
      .execute()
    expect(live).toHaveLength(1)
  })

  it('is refused outside the scope, to non-administrators, for a deleted user and an unknown id', async () => {
    const user = await created(nordAdmin)
    await expectError(await resend(user.id, sudAdmin), 403, 'FORBIDDEN')
    await expectError(await resend(user.id, agent.token), 403, 'FORBIDDEN')
    await expectError(await resend(999_999, nordAdmin), 404, 'NOT_FOUND')

    expect((await del(`/rest/bd/utilisateur/suppression/${user.id}`, nordAdmin)).status).toBe(204)
    await expectError(await resend(user.id, nordAdmin), 403, 'FORBIDDEN')
    const { count, token } = await invitations(user.mail)
    expect(count).toBe(1)
    // Deleting killed the link already sent.
    await expectError(await renew(token, 'Choisi12'), 410, 'TOKEN_USED')

    // Restored, they can be invited again.
    expect((await del(`/rest/bd/utilisateur/retablir/${user.id}`, nordAdmin)).status).toBe(204)
    expect((await resend(user.id, nordAdmin)).status).toBe(204)
    const again = await invitations(user.mail)
    expect(again.count).toBe(2)
    expect((await renew(again.token, 'Choisi12')).status).toBe(204)
  })
})

describe('a user created inactive', () => {
  const setState = (id: number, actif: boolean) =>
    api(nordAdmin).rest.bd.utilisateur.state.$put({ json: { id, actif } })
  const invitationTokens = (id: number) =>
    db()
      .selectFrom('mail_token')
      .selectAll()
      .where('utilisateur_id', '=', id)
      .where('purpose', '=', 'INVITATION')
      .execute()

  it('gets no invitation until activated; activating sends it, and its link lets them in', async () => {
    const user = await created(nordAdmin, { actif: false })
    expect(user).toMatchObject({ actif: false, tokenRegister: null })
    expect(await outboxTo(user.mail)).toEqual([])
    expect(await invitationTokens(user.id)).toEqual([])

    const before = Date.now()
    const activated = await okBody(setState(user.id, true))
    expect(activated.actif).toBe(true)
    expect(activated.tokenRegister).toBeGreaterThanOrEqual(before + INVITATION_TTL)
    const { count, token } = await invitations(user.mail)
    expect(count).toBe(1)
    expect((await renew(token, 'Choisi12')).status).toBe(204)
    expect((await login(user.mail, 'Choisi12')).status).toBe(200)
  })

  it('cannot be sent the invitation while inactive: 409 INVITATION_WAITS_ACTIVATION, nothing written', async () => {
    const user = await created(nordAdmin, { actif: false })
    const before = await rowCounts()
    await expectError(await resend(user.id, nordAdmin), 409, 'INVITATION_WAITS_ACTIVATION')
    expect(await rowCounts()).toEqual(before)
  })

  it('loses the invitation when deactivated, and gets a new one when activated again', async () => {
    const user = await created(nordAdmin)
    const first = await invitations(user.mail)
    const deactivated = await okBody(setState(user.id, false))
    expect(deactivated.tokenRegister).toBeNull()
    await expectError(await renew(first.token, 'Choisi12'), 410, 'TOKEN_USED')

    await okBody(setState(user.id, true))
    const second = await invitations(user.mail)
    expect(second.count).toBe(2)
    expect((await renew(second.token, 'Choisi12')).status).toBe(204)
  })

  it('is sent nothing by an activation that changes nothing, nor once the password is chosen', async () => {
    const user = await created(nordAdmin)
    await okBody(setState(user.id, true))
    expect((await invitations(user.mail)).count).toBe(1)

    expect((await renew((await invitations(user.mail)).token, 'Choisi12')).status).toBe(204)
    await okBody(setState(user.id, false))
    await okBody(setState(user.id, true))
    expect((await invitations(user.mail)).count).toBe(1)
    expect((await login(user.mail, 'Choisi12')).status).toBe(200)
  })
})

describe('GET rest/public/bd/utilisateur/mail', () => {
  /** The answer for `mail`, asked from `ip`. */
  const check = (mail: string, ip: string) =>
    api().rest.public.bd.utilisateur.mail.$get({ query: { mail } }, { headers: { 'CF-Connecting-IP': ip } })

  it('answers the holder and whether they are active (a deleted one is not), or nulls; any case', async () => {
    const ip = '198.51.100.1'
    const active = await createUser()
    const inactive = await createUser({ actif: false })
    const deleted = await createUser({ supprime: true })
    const mailOf = (u: { login: string }) => `${u.login}@example.test`
    expect(await okBody(check(mailOf(active).toUpperCase(), ip))).toEqual({ mail: mailOf(active), actif: true })
    expect(await okBody(check(mailOf(inactive), ip))).toEqual({ mail: mailOf(inactive), actif: false })
    expect(await okBody(check(mailOf(deleted), ip))).toEqual({ mail: mailOf(deleted), actif: false })
    expect(await okBody(check('nobody@example.test', ip))).toEqual({ mail: null, actif: null })
  })

  it('answers a client 30 times a minute, then 429; other clients go on', async () => {
    await withFrozenClock(async () => {
      const ip = '198.51.100.2'
      for (let i = 0; i < 30; i++) expect((await check(`free${i}@example.test`, ip)).status).toBe(200)
      await expectError(await check('free@example.test', ip), 429, 'TOO_MANY_ATTEMPTS')
      expect((await check('free@example.test', '198.51.100.3')).status).toBe(200)
    })
  })
})

describe('GET rest/bd/utilisateur/liste', () => {
  it('answers a bare array of every user without parameters, one page with page/taille and the total', async () => {
    const all = await list(rootAdmin)
    expect(Array.isArray(all.rows)).toBe(true)
    expect(all.rows.length).toBeGreaterThan(3)
    expect(all.total).toBe(all.rows.length)

    const first = await list(rootAdmin, 'page=1&taille=2')
    expect(first.total).toBe(all.rows.length)
    expect(first.ids).toEqual(all.ids.slice(0, 2))
    const second = await list(rootAdmin, 'page=2&taille=2')
    expect(second.ids).toEqual(all.ids.slice(2, 4))
  })

  it('shows a leaf admin the users of its sub-tree and those whose last post was there, never the others', async () => {
    const sud = await named('Portée', 'Sud', { postes: [currentPost(3, 3)] })
    const futureSud = await named('Portée', 'Futur', {
      postes: [{ structureId: 3, fonctionId: 3, from: isoDate(5), to: isoDate(30) }],
    })
    // A current post in scope and a future one outside: seen, not manageable.
    const mixed = await named('Portée', 'Mixte', {
      postes: [currentPost(3, 3), { structureId: 4, fonctionId: 2, from: isoDate(10), to: isoDate(40) }],
    })
    const none = await named('Portée', 'Aucun')
    const past = await named('Portée', 'Passé', {
      postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-40), to: isoDate(-10) }],
    })
    // Without a live post, a user belongs where their last post was (DESIGN §4): here in the south.
    const pastSud = await named('Portée', 'Ancien', {
      postes: [
        { structureId: 4, fonctionId: 2, from: isoDate(-90), to: isoDate(-60) },
        { structureId: 3, fonctionId: 3, from: isoDate(-40), to: isoDate(-10) },
      ],
    })
    const lille = await named('Portée', 'Lille', { postes: [currentPost(4, 2)] })
    const nord = await named('Portée', 'Nord', { postes: [currentPost(2, 1)] })
    const elsewhere = await named('Portée', 'Ailleurs', { domain: 'https://ailleurs.example.test' })
    const pending = await named('Portée', 'Attente', { registration: 'PENDING', postes: [currentPost(3, 3)] })

    const seenBySud = await list(sudAdmin, 'q=portee')
    // Neither the user who never had a post (the whole tree's) nor the one last posted in Lille.
    expect([...seenBySud.ids].sort((a, b) => a - b)).toEqual(sortedIds(sud, futureSud, mixed, pastSud))
    const flags = Object.fromEntries(seenBySud.rows.map((u) => [u.id, u.modification]))
    expect(flags).toEqual({
      [sud.id]: true,
      [futureSud.id]: true,
      [mixed.id]: false,
      [pastSud.id]: true,
    })
    const mixedRow = seenBySud.rows.find((u) => u.id === mixed.id)
    expect(where(mixedRow?.postesEnCours ?? [])).toEqual([['Direction Sud', 'Responsable']])
    expect(where(mixedRow?.postesFutur ?? [])).toEqual([['Agence Lille', 'Agent de quai']])
    expect(mixedRow?.postesFutur[0]).toMatchObject({ dateDebut: wireDate(isoDate(10)), dateFin: wireDate(isoDate(40)) })
    const pastRow = seenBySud.rows.find((u) => u.id === pastSud.id)
    expect([pastRow?.postesEnCours, pastRow?.postesFutur]).toEqual([[], []])

    const seenByRoot = await list(rootAdmin, 'q=portee')
    expect([...seenByRoot.ids].sort((a, b) => a - b)).toEqual(
      sortedIds(sud, futureSud, mixed, none, past, pastSud, lille, nord),
    )
    expect((await list(nordAdmin, 'q=portee')).ids).toContain(past.id)
    expect((await list(nordAdmin, 'q=portee')).ids).not.toContain(none.id)
    expect(seenByRoot.rows.every((u) => u.modification)).toBe(true)
    expect(seenByRoot.ids).not.toContain(elsewhere.id)
    expect(seenByRoot.ids).not.toContain(pending.id)

    // Without a search either: nobody only in Direction Nord, no pending registration.
    const everyoneForSud = await list(sudAdmin)
    expect(everyoneForSud.ids).not.toContain(nord.id)
    expect(everyoneForSud.ids).not.toContain(past.id)
    expect(everyoneForSud.ids).not.toContain(none.id)
    expect(everyoneForSud.ids).not.toContain(lille.id)
    expect(everyoneForSud.ids).not.toContain(agent.id)
    expect((await list(rootAdmin)).ids).not.toContain(pending.id)
    // The viewer is listed, but never manageable by themself.
    expect(everyoneForSud.rows.find((u) => u.id === sudAdminId)?.modification).toBe(false)
  })

  it('filters on a current post, active and deleted, alone and combined', async () => {
    const future = { structureId: 4, fonctionId: 2, from: isoDate(3), to: isoDate(9) }
    const a = await named('Filtré', 'A', { postes: [currentPost(4, 2)] })
    const b = await named('Filtré', 'B', { actif: false, postes: [currentPost(4, 2)] })
    const c = await named('Filtré', 'C', { supprime: true, postes: [currentPost(4, 2)] })
    const d = await named('Filtré', 'D')
    const e = await named('Filtré', 'E', { actif: false, postes: [future] })
    const found = async (filters: string) =>
      [...(await list(rootAdmin, `q=filtre&${filters}`)).ids].sort((x, y) => x - y)

    expect(await found('')).toEqual(sortedIds(a, b, c, d, e))
    expect(await found('poste=true')).toEqual(sortedIds(a, b, c))
    expect(await found('poste=false')).toEqual(sortedIds(d, e))
    expect(await found('actif=true')).toEqual(sortedIds(a, c, d))
    expect(await found('actif=false')).toEqual(sortedIds(b, e))
    expect(await found('supprime=true')).toEqual(sortedIds(c))
    expect(await found('supprime=false')).toEqual(sortedIds(a, b, d, e))
    expect(await found('poste=true&actif=true&supprime=false')).toEqual(sortedIds(a))
    expect(await found('poste=false&actif=false')).toEqual(sortedIds(e))
    expect(await found('page=1&taille=10&poste=true&actif=false')).toEqual(sortedIds(b))
  })

  it('searches first and last names whatever their case and accents, every word, never the mail', async () => {
    const zoeLefevre = await named('Lefèvre', 'Zoé')
    const zoeMartin = await named('Martin', 'Zoé')
    const paulLefevre = await named('LEFÈVRE', 'Paul')
    const found = async (q: string) =>
      [...(await list(rootAdmin, `q=${encodeURIComponent(q)}`)).ids].sort((x, y) => x - y)

    expect(await found('lefevre')).toEqual(sortedIds(zoeLefevre, paulLefevre))
    expect(await found('ZOE')).toEqual(sortedIds(zoeLefevre, zoeMartin))
    expect(await found('zoe lefevre')).toEqual(sortedIds(zoeLefevre))
    expect(await found('  Lefèvre   zoé ')).toEqual(sortedIds(zoeLefevre))
    const paged = await list(rootAdmin, 'page=1&taille=100&q=zoe%20lefevre')
    expect([paged.ids, paged.total]).toEqual([[zoeLefevre.id], 1])

    const mailOnly = await named('Sansmail', 'Personne')
    await db()
      .updateTable('utilisateur')
      .set({ mail: 'courrier-secret@example.test' })
      .where('id', '=', mailOnly.id)
      .execute()
    expect(await found('courrier-secret')).toEqual([])
    expect(await found('sansmail')).toEqual([mailOnly.id])
  })

  it('takes % and _ in a search as themselves', async () => {
    const percent = await named('Cent%Pour', 'Joker')
    await named('CentxPour', 'Joker')
    const underscore = await named('Sous_Tiret', 'Joker')
    await named('SousxTiret', 'Joker')
    const found = async (q: string) => (await list(rootAdmin, `q=${encodeURIComponent(q)}`)).ids
    expect(await found('%')).toEqual([percent.id])
    expect(await found('t%p')).toEqual([percent.id])
    expect(await found('_')).toEqual([underscore.id])
    expect(await found('s_t')).toEqual([underscore.id])
  })

  it(`looks for the first ${SEARCH_WORDS} words of a search, each by its first 48 bytes (D1's limits), never a 500`, async () => {
    const long = await named('Ab'.repeat(30), 'Œuvre'.repeat(10))
    const found = async (q: string) => {
      for (const paged of ['', 'page=1&']) {
        const response = await get(`/rest/bd/utilisateur/liste?${paged}q=${encodeURIComponent(q)}`, rootAdmin)
        expect(response.status, q).toBe(200)
      }
      return (await list(rootAdmin, `q=${encodeURIComponent(q)}`)).ids
    }
    // Past the sixth word, no word counts (40 words, the last ones in no name).
    const words = ['ab', 'ba', 'abab', 'oeuvre', 'uvreoe', 'baba', ...Array.from({ length: 34 }, () => 'z')]
    expect(await found(words.join(' '))).toEqual([long.id])
    // A word is looked for by its first 48 bytes: 60 letters, 30 "œ" (60 letters folded), 30 "é" and "%".
    expect(await found(`${'ab'.repeat(24)}zzzzzzzzzzzz`)).toEqual([long.id])
    expect(await found(`ab ${'œ'.repeat(30)}`)).toEqual([])
    expect(await found('é'.repeat(30))).toEqual([])
    expect(await found('%'.repeat(30))).toEqual([])
  })

  it('sorts by nom, prenom or mail, either way, whatever the case', async () => {
    const one = await named('Aqzx', 'Cqzx')
    const two = await named('bqzx', 'Aqzx')
    const three = await named('Cqzx', 'bqzx')
    await db().updateTable('utilisateur').set({ mail: 'qzx-b@example.test' }).where('id', '=', one.id).execute()
    await db().updateTable('utilisateur').set({ mail: 'QZX-C@example.test' }).where('id', '=', two.id).execute()
    await db().updateTable('utilisateur').set({ mail: 'qzx-a@example.test' }).where('id', '=', three.id).execute()
    const order = async (tri: string) => (await list(rootAdmin, `q=qzx${tri ? `&tri=${tri}` : ''}`)).ids

    expect(await order('')).toEqual(ids(one, two, three))
    expect(await order('nom')).toEqual(ids(one, two, three))
    expect(await order('-nom')).toEqual(ids(three, two, one))
    expect(await order('prenom')).toEqual(ids(two, three, one))
    expect(await order('-prenom')).toEqual(ids(one, three, two))
    expect(await order('mail')).toEqual(ids(three, one, two))
    expect(await order('-mail')).toEqual(ids(two, one, three))
    await expectError(await get('/rest/bd/utilisateur/liste?tri=password_hash', rootAdmin), 400, 'VALIDATION_FAILED')
  })

  it('is for administrators only', async () => {
    await expectError(await get('/rest/bd/utilisateur/liste', agent.token), 403, 'FORBIDDEN')
    await expectError(await call('/rest/bd/utilisateur/liste'), 401, 'UNAUTHORIZED')
  })

  it('keeps every total true through the writes it depends on: users, flags and posts', async () => {
    const totals = async (token: string) => {
      const out: Record<string, number> = {}
      for (const filters of ['', 'poste=true', 'poste=false', 'actif=false', 'supprime=true'])
        out[filters || 'all'] = (await list(token, `page=1&taille=1&q=tenu&${filters}`)).total
      return out
    }
    expect(await totals(rootAdmin)).toEqual({
      all: 0,
      'poste=true': 0,
      'poste=false': 0,
      'actif=false': 0,
      'supprime=true': 0,
    })

    const lille = await created(rootAdmin, { nom: 'Tenu', prenom: 'Lille' })
    const ending = await named('Tenu', 'Fin', {
      postes: [{ structureId: 3, fonctionId: 3, from: isoDate(-5), to: isoDate(2) }],
    })
    expect(await totals(rootAdmin)).toEqual({
      all: 2,
      'poste=true': 2,
      'poste=false': 0,
      'actif=false': 0,
      'supprime=true': 0,
    })
    expect((await list(sudAdmin, 'page=1&q=tenu')).ids).toEqual([ending.id])

    await okBody(api(rootAdmin).rest.bd.utilisateur.state.$put({ json: { id: lille.id, actif: false } }))
    expect((await del(`/rest/bd/utilisateur/suppression/${ending.id}`, rootAdmin)).status).toBe(204)
    expect(await totals(rootAdmin)).toEqual({
      all: 2,
      'poste=true': 2,
      'poste=false': 0,
      'actif=false': 1,
      'supprime=true': 1,
    })

    // Lille's only post removed: no post ever, so only the whole tree's administrators see them.
    const [lillePost] = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', lille.id).execute()
    expect((await del(`/rest/bd/poste/suppression/${lillePost?.id}`, rootAdmin)).status).toBe(204)
    expect(await totals(rootAdmin)).toEqual({
      all: 2,
      'poste=true': 1,
      'poste=false': 1,
      'actif=false': 1,
      'supprime=true': 1,
    })
    expect((await list(sudAdmin, 'page=1&q=tenu')).ids).toEqual([ending.id])
    expect((await list(nordAdmin, 'page=1&q=tenu')).ids).toEqual([])
  })

  it('folds names in SQL exactly as the search folds words', async () => {
    const names = ['ÉLODIE', 'Œdipe', 'Ærøskøbing', 'Straße', 'Çà et là', 'Ÿves', 'Núñez']
    for (const nom of names) {
      const { id } = await db()
        .insertInto('utilisateur')
        .values({
          login: `fold-${nom}`,
          nom,
          prenom: 'Ångström',
          mail: `fold-${encodeURIComponent(nom)}@example.test`,
          password_hash: null,
          domain: ORIGIN,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      const row = await db()
        .selectFrom('utilisateur')
        .select('recherche')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      expect(row.recherche).toBe(foldSearchText(`${nom} Ångström`))
    }
  })
})

describe('PUT rest/bd/utilisateur/state', () => {
  const setState = (id: number, actif: boolean, token: string) =>
    api(token).rest.bd.utilisateur.state.$put({ json: { id, actif } })

  it('deactivating ends the sessions and the sign-in; activating gives the sign-in back; one log per change', async () => {
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(target.id)
    expect((await get('/rest/bd/session', session.accessToken)).status).toBe(200)

    const off = await okBody(setState(target.id, false, nordAdmin))
    expect(off).toMatchObject({ id: target.id, actif: false })
    await expectError(await get('/rest/bd/session', session.accessToken), 401, 'INVALID_TOKEN')
    await expectError(await refreshWith(session.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    await expectError(await login(target.login, target.password), 403, 'USER_DISABLED')
    expect((await logsAbout(target.id)).map((l) => l.nom_log)).toEqual(['UTILISATEUR_DESACTIVATION'])

    // The same value again changes nothing, and logs nothing.
    await okBody(setState(target.id, false, nordAdmin))
    expect(await logsAbout(target.id)).toHaveLength(1)

    const on = await okBody(setState(target.id, true, nordAdmin))
    expect(on.actif).toBe(true)
    expect((await login(target.login, target.password)).status).toBe(200)
    await okBody(setState(target.id, true, nordAdmin))
    expect(await logsAbout(target.id)).toEqual([
      { nom_log: 'UTILISATEUR_DESACTIVATION', type_log: 'ADMINISTRATION', utilisateur_id: nordAdminId },
      { nom_log: 'UTILISATEUR_ACTIVATION', type_log: 'ADMINISTRATION', utilisateur_id: nordAdminId },
    ])
  })

  it('is refused for an administrator, oneself, a user outside the scope, a non-admin; 404 for an unknown id', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(4, 2)] })
    const target = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await setState(admin.id, false, nordAdmin), 403, 'FORBIDDEN')
    await expectError(await setState(rootAdminId, false, rootAdmin), 403, 'FORBIDDEN')
    await expectError(await setState(target.id, false, sudAdmin), 403, 'FORBIDDEN')
    await expectError(await setState(target.id, false, agent.token), 403, 'FORBIDDEN')
    await expectError(await setState(999_999, false, rootAdmin), 404, 'NOT_FOUND')
    const rows = await db().selectFrom('utilisateur').select('actif').where('id', 'in', [admin.id, target.id]).execute()
    expect(rows).toEqual([{ actif: 1 }, { actif: 1 }])
    expect(await logsAbout(target.id)).toEqual([])
  })
})

describe('PUT rest/bd/utilisateur/admin', () => {
  const setAdmin = (id: number, admin: boolean, token: string) =>
    api(token).rest.bd.utilisateur.admin.$put({ json: { id, admin } })
  const scopeOf = (token: string) => api(token).rest.bd.structure.user.me.$get({ query: {} })

  it('promotes a user, who then administers the sub-tree of their post, and demotes them', async () => {
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const { accessToken } = await sessionFor(target.id)
    await expectError(await scopeOf(accessToken), 403, 'FORBIDDEN')

    expect((await okBody(setAdmin(target.id, true, nordAdmin))).admin).toBe(true)
    const scope = await okBody(scopeOf(accessToken))
    expect(scope.map((s) => s.nom)).toEqual(['Agence Lille'])

    await okBody(setAdmin(target.id, true, nordAdmin))
    expect((await okBody(setAdmin(target.id, false, nordAdmin))).admin).toBe(false)
    await expectError(await scopeOf(accessToken), 403, 'FORBIDDEN')
    expect((await logsAbout(target.id)).map((l) => l.nom_log)).toEqual([
      'UTILISATEUR_ADMIN',
      'UTILISATEUR_ADMIN_RETRAIT',
    ])
  })

  it('gives a user promoted before their post starts no scope until it does', async () => {
    const target = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(5), to: isoDate(30) }] })
    const { accessToken } = await sessionFor(target.id)
    await okBody(setAdmin(target.id, true, nordAdmin))
    expect(await okBody(scopeOf(accessToken))).toEqual([])
    // No scope, so nobody (DESIGN §4): not Lille's users, nor a user of the domain without a post.
    const postless = await createUser()
    const seen = await list(accessToken)
    expect(seen.ids).not.toContain(agent.id)
    expect(seen.ids).not.toContain(postless.id)
    expect(seen.rows).toEqual([])
  })

  it('is refused for oneself, outside the scope and to non-administrators', async () => {
    const target = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await setAdmin(rootAdminId, false, rootAdmin), 403, 'FORBIDDEN')
    await expectError(await setAdmin(target.id, true, sudAdmin), 403, 'FORBIDDEN')
    await expectError(await setAdmin(target.id, true, agent.token), 403, 'FORBIDDEN')
    await expectError(await setAdmin(999_999, true, rootAdmin), 404, 'NOT_FOUND')
    const row = await db()
      .selectFrom('utilisateur')
      .select('admin')
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow()
    expect(row.admin).toBe(0)
  })
})

describe('DELETE rest/bd/utilisateur/suppression/{id} and retablir/{id}', () => {
  const remove = (id: number, token: string) => del(`/rest/bd/utilisateur/suppression/${id}`, token)
  const restore = (id: number, token: string) => del(`/rest/bd/utilisateur/retablir/${id}`, token)
  const postesOf = (userId: number) =>
    db().selectFrom('poste').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()
  const ownLogs = (userId: number) =>
    db().selectFrom('log').selectAll().where('utilisateur_id', '=', userId).orderBy('id').execute()

  it('deletes restorably: posts and history stay, sessions and links end, sign-in refused until restored', async () => {
    const target = await named('Supprimé', 'Rétabli', {
      postes: [
        currentPost(4, 2),
        { structureId: 4, fonctionId: 2, from: isoDate(40), to: isoDate(50) },
        { structureId: 4, fonctionId: 2, from: isoDate(-50), to: isoDate(-40) },
      ],
    })
    const signedIn = await signIn(target.login, target.password)
    const resetLink = 'lien-de-test-suppression'
    await db()
      .insertInto('mail_token')
      .values({
        token_hash: await sha256Hex(resetLink),
        utilisateur_id: target.id,
        purpose: 'PASSWORD_RESET',
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        used_at: null,
      })
      .execute()
    const postes = await postesOf(target.id)
    const logs = await ownLogs(target.id)
    expect(logs.map((l) => l.nom_log)).toEqual(['CONNEXION'])
    const shown = await userAs(nordAdmin, target.id)

    expect((await remove(target.id, nordAdmin)).status).toBe(204)
    expect(await postesOf(target.id)).toEqual(postes)
    expect(await ownLogs(target.id)).toEqual(logs)
    await expectError(await refreshWith(signedIn.jwt.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    await expectError(await get('/rest/bd/session', signedIn.jwt.accessToken), 401, 'INVALID_TOKEN')
    await expectError(await renew(resetLink, 'Nouveau12'), 410, 'TOKEN_USED')
    await expectError(await login(target.login, target.password), 403, 'USER_DISABLED')
    expect((await list(nordAdmin, 'q=supprime&supprime=true')).ids).toEqual([target.id])
    expect((await list(nordAdmin, 'q=supprime&supprime=false')).ids).toEqual([])

    // Deleting again changes nothing.
    expect((await remove(target.id, nordAdmin)).status).toBe(204)
    expect((await logsAbout(target.id)).map((l) => l.nom_log)).toEqual(['UTILISATEUR_SUPPRESSION'])

    expect((await restore(target.id, nordAdmin)).status).toBe(204)
    const back = await userAs(nordAdmin, target.id)
    expect(back).toEqual(shown)
    expect(await postesOf(target.id)).toEqual(postes)
    expect((await login(target.login, target.password)).status).toBe(200)
    expect((await list(nordAdmin, 'q=supprime&supprime=false')).ids).toEqual([target.id])
    expect((await logsAbout(target.id)).map((l) => l.nom_log)).toEqual([
      'UTILISATEUR_SUPPRESSION',
      'UTILISATEUR_RETABLISSEMENT',
    ])
  })

  it('is refused for oneself, outside the scope and to non-administrators; 404 for an unknown id', async () => {
    const target = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await remove(rootAdminId, rootAdmin), 403, 'FORBIDDEN')
    await expectError(await remove(target.id, sudAdmin), 403, 'FORBIDDEN')
    await expectError(await remove(target.id, agent.token), 403, 'FORBIDDEN')
    await expectError(await remove(999_999, rootAdmin), 404, 'NOT_FOUND')
    expect((await login(target.login, target.password)).status).toBe(200)

    expect((await remove(target.id, nordAdmin)).status).toBe(204)
    await expectError(await restore(target.id, sudAdmin), 403, 'FORBIDDEN')
    await expectError(await restore(target.id, agent.token), 403, 'FORBIDDEN')
    await expectError(await restore(rootAdminId, rootAdmin), 403, 'FORBIDDEN')
    await expectError(await login(target.login, target.password), 403, 'USER_DISABLED')
  })
})

describe('GET rest/bd/utilisateur/liste on a large scope', () => {
  it(`answers the same users, order and totals when the scope holds more than ${SMALL_SCOPE_POSTS} live posts`, async () => {
    const fixtures = [
      await named('Ampleur', 'Sud', { postes: [currentPost(3, 3)] }),
      await named('Ampleur', 'Inactif', { actif: false, postes: [currentPost(3, 3)] }),
      await named('Ampleur', 'Supprimé', { supprime: true, postes: [currentPost(3, 3)] }),
      await named('Ampleur', 'Aucun'),
      await named('Ampleur', 'Passé', {
        postes: [{ structureId: 3, fonctionId: 3, from: isoDate(-40), to: isoDate(-10) }],
      }),
      await named('Ampleur', 'Futur', {
        postes: [{ structureId: 3, fonctionId: 3, from: isoDate(5), to: isoDate(30) }],
      }),
      await named('Ampleur', 'Lille', { postes: [currentPost(4, 2)] }),
      await named('Ampleur', 'Ailleurs', { domain: 'https://ailleurs.example.test' }),
    ]
    const queries = ['', 'poste=true', 'poste=false', 'actif=false', 'supprime=false', 'poste=true&actif=true']
    const answers = async () => {
      const out: Record<string, { ids: number[]; total: number }> = {}
      for (const [who, token] of [
        ['sud', sudAdmin],
        ['root', rootAdmin],
      ] as const) {
        for (const filters of queries) {
          for (const tri of ['nom', '-prenom']) {
            const { ids, total } = await list(token, `page=1&taille=5&q=ampleur&tri=${tri}&${filters}`)
            out[`${who} ${filters} ${tri}`] = { ids, total }
          }
        }
      }
      return out
    }
    const small = await answers()
    // Sud: neither Lille, Ailleurs nor Aucun (never posted: the whole tree's).
    expect(small['sud  nom']?.total).toBe(fixtures.length - 3)
    expect(small['root  nom']?.total).toBe(fixtures.length - 1)

    const before = { sud: (await list(sudAdmin, 'page=1')).total, root: (await list(rootAdmin, 'page=1')).total }
    const bulk = SMALL_SCOPE_POSTS + 10
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       INSERT INTO utilisateur (login, nom, prenom, mail, domain) SELECT 'masse' || i, 'Masse', 'P' || i, 'masse' || i || '@example.test', ?2 FROM n`,
    )
      .bind(bulk, ORIGIN)
      .run()
    await env.DB.prepare(
      `INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
       SELECT id, 3, 3, ?1, ?2 FROM utilisateur WHERE login LIKE 'masse%'`,
    )
      .bind(isoDate(-1), isoDate(100))
      .run()

    expect(await answers()).toEqual(small)
    expect((await list(sudAdmin, 'page=1')).total).toBe(before.sud + bulk)
    expect((await list(rootAdmin, 'page=1')).total).toBe(before.root + bulk)
    const masse = await list(sudAdmin, 'page=3&taille=100&q=masse&tri=-prenom')
    expect([masse.total, masse.ids.length]).toEqual([bulk, 100])
  })
})
