import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import { generateTOTP } from '@oslojs/otp'
import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  ORIGIN,
  post,
  signedInUser,
  solvedCaptcha,
} from '../helpers'
import {
  armAttack,
  atProvider,
  browserValue,
  federatedSignIn,
  finished,
  OTHER_UPSTREAM,
  providerDraft,
  registeredProvider,
  started,
  UPSTREAM,
  upstreamAccount,
} from './upstream'

/**
 * Signing in through a partner's identity provider (issue 63), against two real OpenID providers (panva's
 * oidc-provider): the carrier's employee queued the first time and signed in once approved; a subsidiary's staff member
 * attached to the account whose address they proved here; and the attacks the issue names, each refused.
 */

let root: string
let lilleAdmin: string
/** Transports Dupont (a carrier: first sign-ins queue in Agence Lille) and Filiale Sud (attaches proved addresses). */
let carrier: { id: number }
let subsidiary: { id: number }
let sequence = 0
const unique = (name: string) => `${name}-${++sequence}`

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  lilleAdmin = (await signedInUser({ admin: true, postes: [currentPost(4, 2)] })).jwt.accessToken
  carrier = await registeredProvider(root)
  subsidiary = await registeredProvider(root, {
    nom: 'Filiale Sud',
    issuer: OTHER_UPSTREAM,
    domaines: ['filiale-sud.fr'],
    premiereConnexion: 'RATTACHER',
    structure: null,
    confianceMfa: true,
  })
})

const userByMail = (mail: string) =>
  db().selectFrom('utilisateur').selectAll().where('mail', '=', mail).executeTakeFirst()
const linksOf = (userId: number) =>
  db().selectFrom('lien_fournisseur').select(['fournisseur_id', 'sub']).where('utilisateur_id', '=', userId).execute()
const entriesOf = (userId: number) =>
  db()
    .selectFrom('log')
    .select(['type_log', 'nom_log', 'commentaire'])
    .where('utilisateur_id', '=', userId)
    .orderBy('id')
    .execute()

/** A staff member of the subsidiary with an account here whose address is proved (or not), and their sub upstream. */
async function staffMember({ proved = true, verified = true } = {}) {
  const sub = unique('sud')
  const user = await createUser({ postes: [currentPost(4, 2)] })
  const mail = `${sub}@filiale-sud.fr`
  await db()
    .updateTable('utilisateur')
    .set({ mail, login: mail, mail_prouve: proved ? mail : null })
    .where('id', '=', user.id)
    .execute()
  await upstreamAccount(OTHER_UPSTREAM, sub, {
    email: mail,
    email_verified: verified,
    given_name: 'Léa',
    family_name: 'Martin',
  })
  return { ...user, sub, mail }
}

describe('a carrier employee through their company provider (INSCRIRE)', () => {
  it('is queued with the company structure the first time, waits while pending, and signs in once approved', async () => {
    const sub = unique('dupont')
    const mail = `${sub}@transports-dupont.fr`
    await upstreamAccount(UPSTREAM, sub, {
      email: mail,
      email_verified: true,
      given_name: 'Jean',
      family_name: 'Dupont',
    })

    expectError(await federatedSignIn(carrier.id, sub), 403, 'IDP_REGISTRATION_PENDING')
    const pending = await userByMail(mail)
    expect(pending).toMatchObject({
      nom: 'Dupont',
      prenom: 'Jean',
      actif: 0,
      registration_state: 'PENDING',
      registration_structure_id: 4,
      password_hash: null,
    })
    const id = pending?.id ?? 0
    expect(await linksOf(id)).toEqual([{ fournisseur_id: carrier.id, sub }])
    expect((await entriesOf(id)).map((e) => e.nom_log)).toEqual(['INSCRIPTION'])
    // In the queue of the administrators of the company's structure.
    const queue = await okBody(api(lilleAdmin).rest.bd.authorize.get.user.all.$get({ query: {} }))
    expect(queue.map((u) => u.id)).toContain(id)
    // Nothing opens while it waits; no second registration either.
    expectError(await federatedSignIn(carrier.id, sub), 403, 'IDP_REGISTRATION_PENDING')
    expect(await db().selectFrom('utilisateur').select('id').where('mail', '=', mail).execute()).toHaveLength(1)

    const approved = await post(
      '/rest/bd/authorize/user',
      { user: { id }, authorize: true, poste: { fonction: { id: 2 }, dateDebut: '01/01/2020', dateFin: '31/12/2099' } },
      { token: lilleAdmin },
    )
    expect(approved.status).toBe(200)
    const signedIn = await federatedSignIn(carrier.id, sub, { redirection: '/pages/user/acces' })
    expect(signedIn.status).toBe(200)
    const body = (await signedIn.json()) as { user: { id: number }; jwt: { accessToken: string }; redirection: string }
    expect(body.user.id).toBe(id)
    expect(body.redirection).toBe('/pages/user/acces')
    expect(await userByMail(mail)).toMatchObject({ registration_state: 'COMPLETE', actif: 1 })
    // The next times: straight in, the sign-in in the history with its provider.
    expect((await federatedSignIn(carrier.id, sub)).status).toBe(200)
    // Integrators heard of a user once, as of a carrier whose password link completes: created, posted, what it opens.
    const told = await db()
      .selectFrom('evenement')
      .select(['type', 'acteur'])
      .where('sujet_cle', '=', `utilisateur:${id}`)
      .where('type', 'not like', 'connexion.%')
      .orderBy('id')
      .execute()
    expect(told.map((event) => [event.type, JSON.parse(event.acteur).type])).toEqual([
      ['inscription.creee', 'systeme'],
      ['inscription.validee', 'utilisateur'],
      ['utilisateur.cree', 'utilisateur'],
      ['poste.cree', 'utilisateur'],
      ['acces.accorde', 'utilisateur'],
      ['acces.accorde', 'utilisateur'],
    ])
    const signIns = (await entriesOf(id)).filter((e) => e.type_log === 'CONNEXION')
    expect(signIns.map((e) => e.commentaire)).toEqual(['via Transports Dupont', 'via Transports Dupont'])
    const launcher = await call(`/rest/bd/acces/utilisateur/${id}`, { token: body.jwt.accessToken })
    expect(launcher.status).toBe(200)
  })
})

describe('a subsidiary staff member (RATTACHER)', () => {
  it('is attached to the account whose address they proved here, once, by the provider and sub', async () => {
    const member = await staffMember()
    const first = await federatedSignIn(subsidiary.id, member.sub)
    expect(first.status).toBe(200)
    expect(((await first.json()) as { user: { id: number } }).user.id).toBe(member.id)
    expect(await linksOf(member.id)).toEqual([{ fournisseur_id: subsidiary.id, sub: member.sub }])
    const entries = await entriesOf(member.id)
    expect(entries.map((e) => [e.nom_log, e.commentaire])).toEqual([
      ['FOURNISSEUR_LIEN', `Filiale Sud : ${member.mail}`],
      ['CONNEXION', 'via Filiale Sud'],
    ])
    expect((await federatedSignIn(subsidiary.id, member.sub)).status).toBe(200)
    expect(await linksOf(member.id)).toHaveLength(1)
  })

  it('proves an address here by opening a link mailed to it: a password reset, and then attaches', async () => {
    const member = await staffMember({ proved: false })
    expectError(await federatedSignIn(subsidiary.id, member.sub), 403, 'IDP_NO_ACCOUNT')
    const asked = await post('/rest/public/bd/password/forgot/', {
      mail: member.mail,
      domain: ORIGIN,
      captcha: await solvedCaptcha(),
    })
    expect(asked.status).toBe(204)
    const [sent] = await db().selectFrom('outbox').select('text').where('utilisateur_id', '=', member.id).execute()
    const token = /\/renewPassword\/([A-Za-z0-9_-]+)/.exec(sent?.text ?? '')?.[1] ?? ''
    expect((await post('/rest/public/bd/password/renew/', { token, password: 'Nouveau12' })).status).toBe(204)
    expect((await userByMail(member.mail))?.mail_prouve).toBe(member.mail)
    expect((await federatedSignIn(subsidiary.id, member.sub)).status).toBe(200)
  })

  it('is not attached by an address the provider does not say is verified', async () => {
    const member = await staffMember({ verified: false })
    expectError(await federatedSignIn(subsidiary.id, member.sub), 403, 'IDP_NO_ACCOUNT')
    expect(await linksOf(member.id)).toEqual([])
  })

  it('is not attached to an account that never proved the address here', async () => {
    const member = await staffMember({ proved: false })
    expectError(await federatedSignIn(subsidiary.id, member.sub), 403, 'IDP_NO_ACCOUNT')
    expect(await linksOf(member.id)).toEqual([])
  })

  it('an address proved, then changed without proof: no longer attachable', async () => {
    const member = await staffMember()
    const changed = `${unique('nouveau')}@filiale-sud.fr`
    await db().updateTable('utilisateur').set({ mail: changed }).where('id', '=', member.id).execute()
    await upstreamAccount(OTHER_UPSTREAM, member.sub, { email: changed, email_verified: true })
    expectError(await federatedSignIn(subsidiary.id, member.sub), 403, 'IDP_NO_ACCOUNT')
  })

  it('a provider cannot attach an address of a domain it does not answer for', async () => {
    // An account of the carrier's domain, proved here; the subsidiary's provider asserts that address, verified.
    const victim = await createUser()
    const mail = `${unique('victime')}@transports-dupont.fr`
    await db().updateTable('utilisateur').set({ mail, mail_prouve: mail }).where('id', '=', victim.id).execute()
    const sub = unique('usurpateur')
    await upstreamAccount(OTHER_UPSTREAM, sub, { email: mail, email_verified: true })
    expectError(await federatedSignIn(subsidiary.id, sub), 403, 'IDP_NO_ACCOUNT')
    expect(await linksOf(victim.id)).toEqual([])
  })

  it('never re-links an account to another sub under the same address', async () => {
    const member = await staffMember()
    expect((await federatedSignIn(subsidiary.id, member.sub)).status).toBe(200)
    const other = unique('autre-sub')
    await upstreamAccount(OTHER_UPSTREAM, other, { email: member.mail, email_verified: true })
    expectError(await federatedSignIn(subsidiary.id, other), 409, 'IDP_LINK_CONFLICT')
    expect(await linksOf(member.id)).toEqual([{ fournisseur_id: subsidiary.id, sub: member.sub }])
  })

  it('asks the portal second factor unless the provider is trusted for its own and says it was used', async () => {
    const member = await staffMember()
    await db()
      .insertInto('mfa_totp')
      .values({
        utilisateur_id: member.id,
        secret: 'JBSWY3DPEHPK3PXP',
        confirmed_at: new Date().toISOString(),
        pending_secret: null,
        pending_created_at: null,
      })
      .execute()
    const lastSignIn = async () =>
      (
        await db()
          .selectFrom('lien_fournisseur')
          .select('derniere_connexion')
          .where('utilisateur_id', '=', member.id)
          .executeTakeFirstOrThrow()
      ).derniere_connexion
    const asked = await expectError(await federatedSignIn(subsidiary.id, member.sub), 403, 'MFA_REQUIRED')
    expect(asked.attributs[0]).toMatchObject({ methodes: ['totp'] })
    // Attached, but not signed in yet: the link's last sign-in waits for the portal's step.
    expect(await lastSignIn()).toBeNull()
    // The portal's step done, the session is the provider's: its sign-out, its entry in the history.
    const { challenge } = asked.attributs[0] as { challenge: string }
    const code = generateTOTP(decodeBase32IgnorePadding('JBSWY3DPEHPK3PXP'), 30, 6)
    const stepped = await post('/rest/public/bd/login/mfa', { challenge, code })
    expect(stepped.status).toBe(200)
    const stepAt = await lastSignIn()
    expect(stepAt).not.toBeNull()
    const { jwt } = (await stepped.json()) as { jwt: { accessToken: string } }
    expect((await okBody(api(jwt.accessToken).rest.bd.session.fournisseur.$get())).nom).toBe('Filiale Sud')
    expect((await entriesOf(member.id)).at(-1)).toMatchObject({ nom_log: 'CONNEXION', commentaire: 'via Filiale Sud' })
    await db()
      .updateTable('refresh_token')
      .set({ revoked_at: new Date().toISOString() })
      .where('utilisateur_id', '=', member.id)
      .execute()
    // Trusted (Filiale Sud is) and the provider says a second factor was used: signed in as with two.
    expect((await federatedSignIn(subsidiary.id, member.sub, { amr: 'pwd mfa' })).status).toBe(200)
    expect(Date.parse((await lastSignIn()) ?? '')).toBeGreaterThan(Date.parse(stepAt ?? ''))
    const session = await db()
      .selectFrom('refresh_token')
      .select('methode')
      .where('utilisateur_id', '=', member.id)
      .where('revoked_at', 'is', null)
      .execute()
    expect(session.map((s) => s.methode)).toEqual(['SECOND_FACTEUR'])
  })
})

describe('the links', () => {
  it('are seen by their user, who removes one only while keeping another way in', async () => {
    const member = await staffMember()
    const answer = await federatedSignIn(subsidiary.id, member.sub)
    const { jwt } = (await answer.json()) as { jwt: { accessToken: string } }
    const own = await okBody(api(jwt.accessToken).rest.bd.fournisseur.liens.$get())
    expect(own).toEqual([
      expect.objectContaining({ fournisseur: { id: subsidiary.id, nom: 'Filiale Sud' }, mail: member.mail }),
    ])
    // Without a password or a passkey, the link is the only way in.
    await db().updateTable('utilisateur').set({ password_hash: null }).where('id', '=', member.id).execute()
    const remove = () =>
      call(`/rest/bd/fournisseur/liens/${subsidiary.id}`, { method: 'DELETE', token: jwt.accessToken })
    expectError(await remove(), 409, 'IDP_LAST_WAY_IN')
    expect(await linksOf(member.id)).toHaveLength(1)
    await db().updateTable('utilisateur').set({ password_hash: 'x' }).where('id', '=', member.id).execute()
    expect((await remove()).status).toBe(204)
    expect(await linksOf(member.id)).toEqual([])
    expect((await entriesOf(member.id)).at(-1)).toMatchObject({
      nom_log: 'FOURNISSEUR_LIEN_RETRAIT',
      commentaire: `Filiale Sud : ${member.mail}`,
    })
    expectError(await remove(), 404, 'NOT_FOUND')
  })

  it('are seen and removed by an administrator who manages the user, not by another', async () => {
    const member = await staffMember()
    expect((await federatedSignIn(subsidiary.id, member.sub)).status).toBe(200)
    const sud = (await signedInUser({ admin: true, postes: [currentPost(3, 3)] })).jwt.accessToken
    expectError(await call(`/rest/bd/utilisateur/${member.id}/fournisseurs`, { token: sud }), 403, 'FORBIDDEN')
    const seen = await okBody(
      api(lilleAdmin).rest.bd.utilisateur[':id'].fournisseurs.$get({ param: { id: member.id } }),
    )
    expect(seen.map((l) => l.fournisseur.nom)).toEqual(['Filiale Sud'])
    const path = `/rest/bd/utilisateur/${member.id}/fournisseurs/${subsidiary.id}`
    expectError(await call(path, { method: 'DELETE', token: sud }), 403, 'FORBIDDEN')
    expect((await call(path, { method: 'DELETE', token: lilleAdmin })).status).toBe(204)
    expect(await linksOf(member.id)).toEqual([])
    const [entry] = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'FOURNISSEUR_LIEN_RETRAIT')
      .where('commentaire', 'like', `#${member.id} %`)
      .execute()
    expect(entry?.commentaire).toBe(`#${member.id} ${member.mail} : Filiale Sud (${member.mail})`)
  })
})

describe("the provider's sign-out", () => {
  it("gives the provider's end_session request for a session opened through it, nulls for another", async () => {
    const member = await staffMember()
    const answer = await federatedSignIn(subsidiary.id, member.sub)
    const { jwt } = (await answer.json()) as { jwt: { accessToken: string } }
    const signOut = await okBody(api(jwt.accessToken).rest.bd.session.fournisseur.$get())
    expect(signOut.nom).toBe('Filiale Sud')
    const url = new URL(signOut.url ?? '')
    expect(`${url.origin}${url.pathname}`).toBe(`${OTHER_UPSTREAM}/session/end`)
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('http://localhost:8787/login')
    expect(url.searchParams.get('client_id')).toBe('portail')
    const hint = url.searchParams.get('id_token_hint') ?? ''
    expect(
      await db().selectFrom('session_fournisseur').select('family_id').where('id_token', '=', hint).execute(),
    ).toHaveLength(1)
    // The provider accepts it: its own sign-out page, for this client and this address.
    const atProvider = await fetch(url, { redirect: 'manual' })
    expect(atProvider.status).toBe(200)
    const other = await signedInUser()
    expect(await okBody(api(other.jwt.accessToken).rest.bd.session.fournisseur.$get())).toEqual({
      url: null,
      nom: null,
    })
  })
})

describe('the attacks of the issue', () => {
  /** A linked, approved account of the subsidiary, and a sign-in started and answered by the provider. */
  async function answered() {
    const member = await staffMember()
    expect((await federatedSignIn(subsidiary.id, member.sub)).status).toBe(200)
    const navigateur = browserValue()
    const answer = await atProvider(await started(subsidiary.id, navigateur), member.sub)
    return { member, navigateur, answer }
  }

  const sessionsOf = async (userId: number) =>
    (await db().selectFrom('refresh_token').select('id').where('utilisateur_id', '=', userId).execute()).length

  for (const attack of ['unsigned', 'foreign-key', 'audience', 'nonce', 'issuer', 'expired']) {
    it(`refuses an ID token ${attack === 'unsigned' ? 'without a signature' : attack === 'foreign-key' ? 'signed by another key' : `with another ${attack}`}`, async () => {
      const { member, navigateur, answer } = await answered()
      const before = await sessionsOf(member.id)
      await armAttack(OTHER_UPSTREAM, attack)
      expectError(await finished(answer, navigateur), 400, 'IDP_SIGN_IN_FAILED')
      expect(await sessionsOf(member.id)).toBe(before)
    })
  }

  it('lets a sign-in at a provider come back within 10 minutes (README), not later', async () => {
    const { navigateur, answer } = await answered()
    const [row] = await db()
      .selectFrom('fournisseur_etat')
      .select(['etat_hash', 'expires_at'])
      .orderBy('expires_at', 'desc')
      .execute()
    const lives = Date.parse(row?.expires_at ?? '') - Date.now()
    expect(lives).toBeGreaterThan(9.9 * 60_000)
    expect(lives).toBeLessThanOrEqual(10 * 60_000)
    await db()
      .updateTable('fournisseur_etat')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('etat_hash', '=', row?.etat_hash ?? '')
      .execute()
    expectError(await finished(answer, navigateur), 400, 'IDP_SIGN_IN_FAILED')
  })

  it('refuses a state replayed, or brought back by another browser', async () => {
    const { navigateur, answer } = await answered()
    expectError(await finished(answer, browserValue()), 400, 'IDP_SIGN_IN_FAILED')
    expect((await finished(answer, navigateur)).status).toBe(200)
    expectError(await finished(answer, navigateur), 400, 'IDP_SIGN_IN_FAILED')
  })

  it('stops the sign-ins of a provider switched off at once, and of a user deactivated or deleted', async () => {
    const { member, navigateur, answer } = await answered()
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', member.id).execute()
    expectError(await finished(answer, navigateur), 403, 'USER_DISABLED')
    await db().updateTable('utilisateur').set({ actif: 1, supprime: 1 }).where('id', '=', member.id).execute()
    expectError(await federatedSignIn(subsidiary.id, member.sub), 403, 'USER_DISABLED')

    const other = await staffMember()
    const waiting = browserValue()
    const pending = await atProvider(await started(subsidiary.id, waiting), other.sub)
    await okBody(
      api(root).rest.bd.fournisseur.$put({
        json: {
          ...providerDraft({
            nom: 'Filiale Sud',
            issuer: OTHER_UPSTREAM,
            domaines: ['filiale-sud.fr'],
            premiereConnexion: 'RATTACHER',
            structure: null,
            confianceMfa: true,
            secret: undefined,
            actif: false,
          }),
          id: subsidiary.id,
        },
      }),
    )
    try {
      expectError(await finished(pending, waiting), 400, 'IDP_SIGN_IN_FAILED')
      expectError(
        await post(`/rest/public/bd/fournisseur/${subsidiary.id}/debut`, { navigateur: browserValue() }),
        404,
        'NOT_FOUND',
      )
    } finally {
      await db().updateTable('fournisseur').set({ actif: 1 }).where('id', '=', subsidiary.id).execute()
    }
  })
})

describe('the sign-in page', () => {
  it('finds the provider of an address by its domain, and lists the providers shown', async () => {
    const found = await okBody(api().rest.public.bd.fournisseur.$get({ query: { mail: 'quelqu.un@Filiale-Sud.fr' } }))
    expect(found.pourMail).toEqual({ id: subsidiary.id, nom: 'Filiale Sud' })
    expect(found.affiches.map((p) => p.nom)).toEqual(['Filiale Sud', 'Transports Dupont'])
    const none = await okBody(api().rest.public.bd.fournisseur.$get({ query: { mail: 'x@ailleurs.fr' } }))
    expect(none.pourMail).toBeNull()
  })

  it('signs in through a provider authenticating with private_key_jwt and the portal key', async () => {
    const member = await staffMember()
    await okBody(
      api(root).rest.bd.fournisseur.$put({
        json: {
          ...providerDraft({
            nom: 'Filiale Sud',
            issuer: OTHER_UPSTREAM,
            clientId: 'portail-jwt',
            authentification: 'private_key_jwt',
            secret: undefined,
            domaines: ['filiale-sud.fr'],
            premiereConnexion: 'RATTACHER',
            structure: null,
            confianceMfa: true,
          }),
          id: subsidiary.id,
        },
      }),
    )
    const answer = await federatedSignIn(subsidiary.id, member.sub)
    expect(answer.status, await answer.clone().text()).toBe(200)
  })
})
