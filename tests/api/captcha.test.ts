import { env } from 'cloudflare:test'
import { createChallenge, extractParams, solveChallenge } from 'altcha-lib'
import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from './client'
import {
  call,
  createOrganisation,
  createUser,
  db,
  editCaptcha,
  expectError,
  loginWith,
  post,
  solvedCaptcha,
  withFrozenClock,
} from './helpers'

beforeAll(createOrganisation)

const validate = (request?: string) =>
  call(
    `/rest/public/bd/utilisateur/validate/captcha${request === undefined ? '' : `?request=${encodeURIComponent(request)}`}`,
  )

describe('GET /rest/public/bd/captcha/challenge', () => {
  it('returns a fresh signed challenge that is never cached', async () => {
    const response = await api().rest.public.bd.captcha.challenge.$get()
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const body = await okBody(response)
    expect(Object.keys(body).sort()).toEqual(['algorithm', 'challenge', 'maxnumber', 'salt', 'signature'])
    expect(body).toMatchObject({ algorithm: 'SHA-256', maxnumber: 500 })
    expect(body.challenge).toMatch(/^[0-9a-f]{64}$/)
    expect(body.signature).toMatch(/^[0-9a-f]{64}$/)

    const other = await okBody(api().rest.public.bd.captcha.challenge.$get())
    expect(other.challenge).not.toBe(body.challenge)
  })
})

describe('GET /rest/public/bd/captcha/question', () => {
  it('returns two numbers and a signed question, never cached', async () => {
    const response = await api().rest.public.bd.captcha.question.$get()
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const body = await okBody(response)
    expect(Object.keys(body).sort()).toEqual(['a', 'b', 'question'])
    expect(body.question.startsWith(`${body.a}.${body.b}.`)).toBe(true)
  })
})

describe('GET /rest/public/bd/utilisateur/validate/captcha', () => {
  it('says success for a solved payload without consuming it', async () => {
    const user = await createUser()
    const captcha = await solvedCaptcha()
    for (let i = 0; i < 2; i++) {
      const response = await validate(captcha)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ success: true })
    }
    const signIn = await loginWith({ identifiant: user.login, motDePasse: user.password, captcha })
    expect(signIn.status).toBe(200)
  })

  it('says no success once a login has consumed the payload', async () => {
    const user = await createUser()
    const captcha = await solvedCaptcha()
    expect((await loginWith({ identifiant: user.login, motDePasse: user.password, captcha })).status).toBe(200)
    const response = await validate(captcha)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ success: false })
  })

  it('says no success for a wrong solution or a missing request', async () => {
    const wrong = editCaptcha(await solvedCaptcha(), (data) => {
      data.number = (data.number as number) + 1
    })
    expect(await (await validate(wrong)).json()).toEqual({ success: false })
    const missing = await validate()
    expect(missing.status).toBe(200)
    expect(await missing.json()).toEqual({ success: false })
    expect(await (await validate('')).json()).toEqual({ success: false })
  })

  it('accepts an answered no-JavaScript question', async () => {
    const { a, b, question } = await okBody(api().rest.public.bd.captcha.question.$get())
    expect(await (await validate(btoa(JSON.stringify({ question, answer: String(a + b) })))).json()).toEqual({
      success: true,
    })
    expect(await (await validate(btoa(JSON.stringify({ question, answer: String(a + b + 1) })))).json()).toEqual({
      success: false,
    })
  })

  it('answers 400 CAPTCHA_CHAR_INVALID for a malformed payload', async () => {
    await expectError(await validate('%%%'), 400, 'CAPTCHA_CHAR_INVALID')
    await expectError(await validate(btoa('{"foo":1}')), 400, 'CAPTCHA_CHAR_INVALID')
    // A hash the challenges never use is malformed too (the platform does not even know this one).
    const foreign = editCaptcha(await solvedCaptcha(), (data) => {
      data.algorithm = 'FOO'
    })
    await expectError(await validate(foreign), 400, 'CAPTCHA_CHAR_INVALID')
  })
})

describe('no-JavaScript question: per-client limit', () => {
  it('accepts at most 5 answers per client address and minute', async () => {
    const user = await createUser()
    const from = { headers: { 'CF-Connecting-IP': '192.0.2.44' }, env: { QUESTION_RATE_PER_MINUTE: '5' } }
    const answered = async () => {
      const q = await okBody(api().rest.public.bd.captcha.question.$get())
      return btoa(JSON.stringify({ question: q.question, answer: String(q.a + q.b) }))
    }
    const signIn = async () =>
      post(
        '/rest/public/bd/login',
        { identifiant: user.login, motDePasse: user.password, captcha: await answered() },
        from,
      )
    await withFrozenClock(async () => {
      for (let i = 0; i < 5; i++) expect((await signIn()).status).toBe(200)
      await expectError(await signIn(), 429, 'TOO_MANY_ATTEMPTS')
    })
  })
})

describe('proof-of-work payloads cannot be spliced or outlive their challenge', () => {
  /** Moves the first digit of the solved number onto the end of the salt: same salt + number string. */
  const splice = (payload: string) =>
    editCaptcha(payload, (data) => {
      const digits = String(data.number)
      data.salt = `${data.salt}${digits[0]}`
      data.number = Number(digits.slice(1) || '0')
    })

  /** A solved payload whose number has at least two digits (a one-digit number cannot be spliced). */
  async function spliceableCaptcha() {
    for (;;) {
      const payload = await solvedCaptcha()
      if ((JSON.parse(atob(payload)) as { number: number }).number >= 10) return payload
    }
  }

  it('refuses a payload whose number was moved into the salt (CVE-2025-68113)', async () => {
    const user = await createUser()
    const spliced = splice(await spliceableCaptcha())
    expect(await (await validate(spliced)).json()).toEqual({ success: false })
    await expectError(
      await loginWith({ identifiant: user.login, motDePasse: user.password, captcha: spliced }),
      400,
      'CAPTCHA_VALIDATE_FAILED',
    )
  })

  it('refuses a correctly signed challenge that expires further ahead than a challenge lives', async () => {
    const user = await createUser()
    const challenge = await createChallenge({
      hmacKey: env.CAPTCHA_HMAC_KEY,
      maxnumber: 50,
      expires: new Date(Date.now() + 24 * 3600 * 1000),
    })
    const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, 50).promise
    const payload = btoa(JSON.stringify({ ...challenge, maxnumber: undefined, number: solution?.number }))
    expect(await (await validate(payload)).json()).toEqual({ success: false })
    await expectError(
      await loginWith({ identifiant: user.login, motDePasse: user.password, captcha: payload }),
      400,
      'CAPTCHA_VALIDATE_FAILED',
    )
  })

  it('remembers a used payload at least as long as it is valid', async () => {
    const user = await createUser()
    const captcha = await solvedCaptcha()
    const expires = Number(extractParams(captcha).expires) * 1000
    const rememberedLongEnough = async () =>
      (await db().selectFrom('captcha_used').selectAll().execute()).filter(
        (row) => Date.parse(row.expires_at) >= expires,
      ).length
    const before = await rememberedLongEnough()
    expect((await loginWith({ identifiant: user.login, motDePasse: user.password, captcha })).status).toBe(200)
    expect(await rememberedLongEnough()).toBe(before + 1)
  })
})
