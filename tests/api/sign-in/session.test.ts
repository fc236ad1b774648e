import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, isoDate, login, post, signIn, solvedCaptcha } from '../helpers'

beforeAll(createOrganisation)

describe('POST /rest/public/bd/login', () => {
  it('signs in and returns the user and the token pair', async () => {
    const user = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(10) }] })
    const body = await okBody(
      api().rest.public.bd.login.$post({
        json: { identifiant: user.login, motDePasse: user.password, captcha: await solvedCaptcha() },
      }),
    )
    expect(body.user).toMatchObject({ id: user.id, login: user.login, admin: false, actif: true })
    expect(body.user.postesEnCours[0]).toMatchObject({ structure: { id: 4, nom: 'Agence Lille' }, fonction: { id: 2 } })
    expect(body.user.postesEnCours[0]?.dateDebut).toMatch(/^\d{2}\/\d{2}\/\d{4}$/)
    expect(body.jwt.expiresInMsec).toBe(300_000)
    expect(body.jwt.accessToken.split('.')).toHaveLength(3)
    expect(body.jwt.refreshToken.length).toBeGreaterThanOrEqual(43)
  })

  it('answers 401 BAD_CREDENTIAL for a wrong password or an unknown identifier', async () => {
    const user = await createUser()
    for (const [id, pw] of [
      [user.login, 'Wrong123'],
      ['nobody-here', 'Secret12'],
    ]) {
      const response = await login(id as string, pw as string)
      expect(response.status).toBe(401)
      expect(await response.json()).toMatchObject({ businessCode: 'BAD_CREDENTIAL' })
    }
  })

  it('rejects a missing, wrong, replayed or malformed captcha', async () => {
    const user = await createUser()
    const missing = await post('/rest/public/bd/login', { identifiant: user.login, motDePasse: user.password })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ businessCode: 'CAPTCHA_VALIDATE_FAILED' })

    const captcha = await solvedCaptcha()
    const first = await post('/rest/public/bd/login', { identifiant: user.login, motDePasse: user.password, captcha })
    expect(first.status).toBe(200)
    const replay = await post('/rest/public/bd/login', { identifiant: user.login, motDePasse: user.password, captcha })
    expect(await replay.json()).toMatchObject({ businessCode: 'CAPTCHA_VALIDATE_FAILED' })

    const malformed = await post('/rest/public/bd/login', {
      identifiant: user.login,
      motDePasse: user.password,
      captcha: '%%%',
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ businessCode: 'CAPTCHA_CHAR_INVALID' })
  })

  it('answers 400 VALIDATION_FAILED for bad input, never a 500', async () => {
    const empty = await post('/rest/public/bd/login', {
      identifiant: '',
      motDePasse: 'x',
      captcha: await solvedCaptcha(),
    })
    expect(empty.status).toBe(400)
    expect(await empty.json()).toMatchObject({ businessCode: 'VALIDATION_FAILED' })
    const garbage = await call('/rest/public/bd/login', {
      method: 'POST',
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(garbage.status).toBe(400)
  })
})

describe('GET /rest/bd/utilisateur/{id}', () => {
  it('returns the signed-in user and rejects missing or tampered tokens', async () => {
    const user = await createUser()
    const { jwt } = await signIn(user.login, user.password)
    const ok = await call(`/rest/bd/utilisateur/${user.id}`, { token: jwt.accessToken })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ id: user.id, modification: false })

    expect((await call(`/rest/bd/utilisateur/${user.id}`)).status).toBe(401)
    const tampered = `${jwt.accessToken.slice(0, -2)}xx`
    expect((await call(`/rest/bd/utilisateur/${user.id}`, { token: tampered })).status).toBe(401)
  })
})
