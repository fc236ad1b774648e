import { env } from 'cloudflare:test'
import jwt from '@tsndr/cloudflare-worker-jwt'
import { beforeAll, describe, expect, it } from 'vitest'
import { base64url } from '../../../worker-api/lib/crypto'
import { call, createOrganisation, db, expectError, getUserAs, refreshWith, signedInUser, signIn } from '../helpers'

beforeAll(createOrganisation)

const now = () => Math.floor(Date.now() / 1000)
const encode = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)))

/** The session id (sid claim) of a real access token, so forged tokens differ only in what is tested. */
const sidOf = (accessToken: string) => (jwt.decode(accessToken).payload as { sid: string }).sid

type Claims = { sub: string; sid: string; iss?: string; aud?: string; exp?: number; admin?: boolean }

const claimsFor = (user: { id: number; jwt: { accessToken: string } }, overrides: Partial<Claims> = {}): Claims => ({
  sub: String(user.id),
  sid: sidOf(user.jwt.accessToken),
  iss: 'portail',
  aud: 'portail',
  exp: now() + 300,
  ...overrides,
})

describe('Access token checks (GET /rest/bd/utilisateur/{id})', () => {
  it('accepts a token signed with the secret carrying the right claims', async () => {
    // Guards the forged-token cases below: they differ from this one only in the tested point.
    const user = await signedInUser()
    const token = await jwt.sign(claimsFor(user), env.JWT_SECRET, { algorithm: 'HS256' })
    expect((await getUserAs(token, user.id)).status).toBe(200)
  })

  it('answers 401 without an Authorization header or with a non-bearer one', async () => {
    const user = await signedInUser()
    await expectError(await call(`/rest/bd/utilisateur/${user.id}`), 401, 'UNAUTHORIZED')
    const basic = await call(`/rest/bd/utilisateur/${user.id}`, { headers: { Authorization: `Basic ${btoa('a:b')}` } })
    expect(basic.status).toBe(401)
    const raw = await call(`/rest/bd/utilisateur/${user.id}`, { headers: { Authorization: user.jwt.accessToken } })
    expect(raw.status).toBe(401)
  })

  it('answers 401 for a garbage bearer token', async () => {
    const user = await signedInUser()
    await expectError(await getUserAs('garbage', user.id), 401, 'INVALID_TOKEN')
    expect((await getUserAs('a.b.c', user.id)).status).toBe(401)
  })

  it('answers 401 for a token signed with another secret', async () => {
    const user = await signedInUser()
    const token = await jwt.sign(claimsFor(user), 'another-secret-0123456789abcdef0123456789abcdef', {
      algorithm: 'HS256',
    })
    await expectError(await getUserAs(token, user.id), 401, 'INVALID_TOKEN')
  })

  it('answers 401 for an expired token or one without expiry', async () => {
    const user = await signedInUser()
    const expired = await jwt.sign(claimsFor(user, { exp: now() - 60 }), env.JWT_SECRET, { algorithm: 'HS256' })
    await expectError(await getUserAs(expired, user.id), 401, 'INVALID_TOKEN')
    const { exp: _exp, ...noExp } = claimsFor(user)
    const endless = await jwt.sign(noExp, env.JWT_SECRET, { algorithm: 'HS256' })
    expect((await getUserAs(endless, user.id)).status).toBe(401)
  })

  it('answers 401 for a wrong audience or issuer', async () => {
    const user = await signedInUser()
    for (const overrides of [{ aud: 'autre' }, { iss: 'autre' }, { aud: undefined }, { iss: undefined }]) {
      const token = await jwt.sign(claimsFor(user, overrides), env.JWT_SECRET, { algorithm: 'HS256' })
      await expectError(await getUserAs(token, user.id), 401, 'INVALID_TOKEN')
    }
  })

  it('answers 401 for an unsigned (alg none) token or another algorithm', async () => {
    const user = await signedInUser()
    const none = `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claimsFor(user))}.`
    await expectError(await getUserAs(none, user.id), 401, 'INVALID_TOKEN')
    const hs512 = await jwt.sign(claimsFor(user), env.JWT_SECRET, { algorithm: 'HS512' })
    await expectError(await getUserAs(hs512, user.id), 401, 'INVALID_TOKEN')
  })

  it('answers 401 for a well-signed token of an unknown session', async () => {
    const user = await signedInUser()
    const token = await jwt.sign(claimsFor(user, { sid: crypto.randomUUID() }), env.JWT_SECRET, {
      algorithm: 'HS256',
    })
    await expectError(await getUserAs(token, user.id), 401, 'INVALID_TOKEN')
  })

  it('answers 401 once the user is disabled or deleted', async () => {
    const inactive = await signedInUser()
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', inactive.id).execute()
    expect((await getUserAs(inactive.jwt.accessToken, inactive.id)).status).toBe(401)
    const deleted = await signedInUser()
    await db().updateTable('utilisateur').set({ supprime: 1 }).where('id', '=', deleted.id).execute()
    expect((await getUserAs(deleted.jwt.accessToken, deleted.id)).status).toBe(401)
  })
})

describe('POST /rest/bd/logout', () => {
  it('answers 204 and ends the session: access and refresh tokens are refused', async () => {
    const user = await signedInUser()
    const response = await call('/rest/bd/logout', { method: 'POST', token: user.jwt.accessToken })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    await expectError(await getUserAs(user.jwt.accessToken, user.id), 401, 'INVALID_TOKEN')
    await expectError(await refreshWith(user.jwt.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
  })

  it('ends only that session of the user', async () => {
    const user = await signedInUser()
    const other = await signIn(user.login, user.password)
    expect((await call('/rest/bd/logout', { method: 'POST', token: user.jwt.accessToken })).status).toBe(204)
    expect((await getUserAs(other.jwt.accessToken, user.id)).status).toBe(200)
    expect((await refreshWith(other.jwt.refreshToken)).status).toBe(200)
  })

  it('writes a DECONNEXION log row with the browser of the User-Agent', async () => {
    const user = await signedInUser()
    const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
    await call('/rest/bd/logout', { method: 'POST', token: user.jwt.accessToken, headers: { 'User-Agent': firefox } })
    const rows = await db()
      .selectFrom('log')
      .selectAll()
      .where('utilisateur_id', '=', user.id)
      .where('type_log', '=', 'DECONNEXION')
      .execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ nom_log: 'DECONNEXION', nom_navigateur: 'Firefox', version_navigateur: '128.0' })
  })

  it('answers 401 without a token, and writes no log', async () => {
    const before = await db().selectFrom('log').select('id').where('type_log', '=', 'DECONNEXION').execute()
    await expectError(await call('/rest/bd/logout', { method: 'POST' }), 401, 'UNAUTHORIZED')
    const after = await db().selectFrom('log').select('id').where('type_log', '=', 'DECONNEXION').execute()
    expect(after).toHaveLength(before.length)
  })
})
