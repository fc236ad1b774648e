import { env } from 'cloudflare:test'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { TURNSTILE_VERIFY_URL } from '../../worker-api/services/core/captcha'
import { api, okBody } from './client'
import { app, createOrganisation, createUser, expectError, ORIGIN, solvedCaptcha } from './helpers'

beforeAll(createOrganisation)
afterEach(() => vi.restoreAllMocks())

const turnstileEnv = {
  ...env,
  CAPTCHA_PROVIDER: 'turnstile',
  TURNSTILE_SECRET_KEY: 'ts-secret',
  TURNSTILE_SITE_KEY: 'ts-site',
}

/** Cloudflare's siteverify is the one boundary we cannot reach offline: stubbed, same HTTP contract. */
function stubSiteverify(accepts: (token: string) => boolean) {
  const calls: FormData[] = []
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    expect(String(input)).toBe(TURNSTILE_VERIFY_URL)
    const form = init?.body as FormData
    calls.push(form)
    return Response.json({ success: accepts(String(form.get('response'))) })
  })
  return calls
}

function loginWith(body: object, headers: Record<string, string> = {}) {
  return app.request(
    `${ORIGIN}/portail-backend/rest/public/bd/login`,
    { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } },
    turnstileEnv,
  )
}

describe('sign-in with CAPTCHA_PROVIDER=turnstile', () => {
  it('accepts a token siteverify accepts, once, passing the secret and the client address', async () => {
    const calls = stubSiteverify((token) => token === 'good.token-1')
    const user = await createUser()
    const body = { identifiant: user.login, motDePasse: user.password, captcha: 'good.token-1' }
    expect((await loginWith(body, { 'CF-Connecting-IP': '198.51.100.4' })).status).toBe(200)
    expect(calls[0]?.get('secret')).toBe('ts-secret')
    expect(calls[0]?.get('remoteip')).toBe('198.51.100.4')
    await expectError(await loginWith(body), 400, 'CAPTCHA_VALIDATE_FAILED')
  })

  it('refuses a token siteverify refuses, and an ALTCHA payload', async () => {
    stubSiteverify(() => false)
    const user = await createUser()
    await expectError(
      await loginWith({ identifiant: user.login, motDePasse: user.password, captcha: 'bad-token' }),
      400,
      'CAPTCHA_VALIDATE_FAILED',
    )
    const altcha = await solvedCaptcha()
    await expectError(
      await loginWith({ identifiant: user.login, motDePasse: user.password, captcha: altcha }),
      400,
      'CAPTCHA_VALIDATE_FAILED',
    )
  })

  it('fails closed, never with a 500, when Turnstile cannot be reached', async () => {
    vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('network down'))
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const user = await createUser()
    await expectError(
      await loginWith({ identifiant: user.login, motDePasse: user.password, captcha: 'any-token' }),
      400,
      'CAPTCHA_VALIDATE_FAILED',
    )
  })

  it('refuses the no-JavaScript question: Turnstile needs JavaScript', async () => {
    const user = await createUser()
    const question = await okBody(api(undefined, turnstileEnv).rest.public.bd.captcha.question.$get())
    const captcha = btoa(JSON.stringify({ question: question.question, answer: String(question.a + question.b) }))
    await expectError(
      await loginWith({ identifiant: user.login, motDePasse: user.password, captcha }),
      400,
      'CAPTCHA_VALIDATE_FAILED',
    )
  })

  it('asks Cloudflare once when the client validates the token before submitting it', async () => {
    const calls = stubSiteverify((token) => token === 'checked-first')
    const validate = await app.request(
      `${ORIGIN}/portail-backend/rest/public/bd/utilisateur/validate/captcha?request=checked-first`,
      {},
      turnstileEnv,
    )
    expect(await validate.json()).toEqual({ success: true })
    const user = await createUser()
    const body = { identifiant: user.login, motDePasse: user.password, captcha: 'checked-first' }
    expect((await loginWith(body)).status).toBe(200)
    expect(calls).toHaveLength(1)
    await expectError(await loginWith(body), 400, 'CAPTCHA_VALIDATE_FAILED')
  })
})
