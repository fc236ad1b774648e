import { env } from 'cloudflare:test'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import { generateTOTP } from '@oslojs/otp'
import { describe, expect, it } from 'vitest'
import {
  bootstrapDates,
  bootstrapStatements,
  newToken,
  preflightSql,
  resultSql,
} from '../../scripts/admin-bootstrap-lib.mjs'
import { api, okBody } from './client'
import { call, db, expectError, ORIGIN, post, signIn } from './helpers'

// The SQL of `npm run admin:bootstrap` on a real D1 with the real migrations, in one batch as
// `wrangler d1 execute --file` runs it; then the link it prints, used as a browser would.

type Run = { mail: string; nom?: string; structure?: string | null; now?: Date }

async function bootstrap({ mail, nom = "D'Artagnan", structure = null, now = new Date() }: Run) {
  const { token, tokenHash } = newToken()
  const statements = bootstrapStatements({
    mail,
    domain: ORIGIN,
    nom,
    prenom: 'Portail',
    structure,
    tokenHash,
    dates: bootstrapDates(now),
  })
  await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)))
  const created = await env.DB.prepare(resultSql(tokenHash)).first<{ id: number; fonction: string }>()
  return { token, created }
}

const counts = async () =>
  Object.fromEntries(
    await Promise.all(
      ['type_structure', 'structure', 'fonction', 'utilisateur', 'poste', 'mail_token', 'log'].map(async (table) => [
        table,
        (await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<number>('n')) ?? 0,
      ]),
    ),
  )

describe('admin:bootstrap on an empty database', () => {
  it('creates the root, its function and an invited administrator whose link sets the password', async () => {
    const mail = "o'neil@example.org"
    expect(await env.DB.prepare(preflightSql(mail)).first()).toEqual({
      admins: 0,
      taken: 0,
      root: null,
      fonction: null,
    })
    const required = () =>
      env.DB.prepare('SELECT mfa_requis_administrateurs AS on_ FROM parametre_securite').first('on_')
    expect(await required()).toBe(0)
    const { token, created } = await bootstrap({ mail, structure: "L'Équipe" })
    expect(created).toMatchObject({ mail, domain: ORIGIN, structure: "L'Équipe", fonction: 'Administrateur' })
    // A new organisation requires a second factor of its administrators (README, "Second factor").
    expect(await required()).toBe(1)
    expect(await counts()).toEqual({
      type_structure: 1,
      structure: 1,
      fonction: 1,
      utilisateur: 1,
      poste: 1,
      mail_token: 1,
      log: 1,
    })
    const user = await db().selectFrom('utilisateur').selectAll().executeTakeFirstOrThrow()
    expect(user).toMatchObject({
      login: mail,
      nom: "D'Artagnan",
      admin: 1,
      actif: 1,
      password_hash: null,
      registration_state: 'INVITED',
    })
    expect(await db().selectFrom('structure').selectAll().executeTakeFirstOrThrow()).toMatchObject({
      id: 1,
      path: '/1/',
      parent_id: null,
    })
    expect(await db().selectFrom('log').selectAll().executeTakeFirstOrThrow()).toMatchObject({
      utilisateur_id: user.id,
      type_log: 'ADMINISTRATION',
      nom_log: 'ADMIN_BOOTSTRAP',
      commentaire: mail,
    })

    // The page of the link knows the account; choosing a password there completes it.
    const tokenUser = await call(`/rest/public/bd/password/token/${token}`)
    expect(await tokenUser.json()).toEqual({ mail, actif: true, supprime: false })
    expect((await post('/rest/public/bd/password/renew/', { token, password: 'Secret12' })).status).toBe(204)
    const session = await signIn(mail, 'Secret12')
    expect(session.user).toMatchObject({ id: user.id, admin: true })
    expect(session.user.postesEnCours).toHaveLength(1)
    // A second factor first (the organisation requires one of administrators), then the root is theirs.
    const token_ = session.jwt.accessToken
    const refused = await call('/rest/bd/structure/user/me', { token: token_ })
    await expectError(refused, 403, 'MFA_ENROLMENT_REQUIRED')
    const { secret } = await okBody(api(token_).rest.bd.mfa.totp.$post({ json: { motDePasse: 'Secret12' } }))
    const code = generateTOTP(decodeBase32IgnorePadding(secret), 30, 6)
    expect((await post('/rest/bd/mfa/totp/confirm', { code }, { token: token_ })).status).toBe(200)
    // An administrator of the root sees the root.
    const structures = await call('/rest/bd/structure/user/me', { token: token_ })
    expect(structures.status).toBe(200)
    expect(JSON.stringify(await structures.json())).toContain("L'Équipe")
    // Single use.
    expect((await post('/rest/public/bd/password/renew/', { token, password: 'Other123' })).status).toBe(410)
  })

  it('writes nothing once an administrator exists, whatever the mail', async () => {
    const before = await counts()
    for (const mail of ['second@example.org', "O'NEIL@example.org", "o'neil@example.org"]) {
      const { created } = await bootstrap({ mail })
      expect(created).toBeNull()
      expect(await counts()).toEqual(before)
    }
  })

  it('writes nothing when the administrator is deleted but the mail is still taken', async () => {
    await env.DB.prepare('UPDATE utilisateur SET supprime = 1').run()
    const before = await counts()
    expect(await env.DB.prepare(preflightSql("O'Neil@Example.org")).first()).toMatchObject({ admins: 0, taken: 1 })
    expect((await bootstrap({ mail: "O'Neil@Example.org" })).created).toBeNull()
    expect(await counts()).toEqual(before)
  })

  it('otherwise reuses the root and its first function', async () => {
    await env.DB.prepare("INSERT INTO fonction (libelle, structure_id) VALUES ('Adjoint', 1)").run()
    const { created } = await bootstrap({ mail: 'next@example.org', structure: 'Ignored' })
    expect(created).toMatchObject({ structure: "L'Équipe", fonction: 'Administrateur' })
    expect(await counts()).toMatchObject({ type_structure: 1, structure: 1, fonction: 2, utilisateur: 2 })
  })
})
