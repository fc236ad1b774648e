import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { hashPassword, PBKDF2_ITERATIONS, pepperKeyring } from '../../../worker-api/lib/password'
import { api, okBody } from '../client'
import {
  app,
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  editCaptcha,
  expectError,
  login,
  loginWith,
  post,
  solvedCaptcha,
  withFrozenClock,
} from '../helpers'

beforeAll(createOrganisation)

const LOGIN = '/rest/public/bd/login'
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

/** A sign-in with a solved captcha, as the route declares it. */
const signIn = async (identifiant: string, motDePasse: string) =>
  api().rest.public.bd.login.$post({ json: { identifiant, motDePasse, captcha: await solvedCaptcha() } })

const fieldsOf = (attributs: unknown[]) => attributs.map((a) => (a as { field: string }).field)

describe('POST /rest/public/bd/login: success', () => {
  it('returns exactly the user fields and the token pair', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const response = await signIn(user.login, user.password)
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const body = await okBody(response)
    expect(Object.keys(body).sort()).toEqual(['jwt', 'user'])
    expect(Object.keys(body.user).sort()).toEqual(
      [
        'id',
        'login',
        'nom',
        'prenom',
        'mail',
        'actif',
        'supprime',
        'admin',
        'modification',
        'postesEnCours',
        'postesFutur',
        'tokenRegister',
        'mailEnAttente',
        'motDePasseChoisi',
      ].sort(),
    )
    expect(body.user).toMatchObject({
      id: user.id,
      login: user.login,
      mail: `${user.login}@example.test`,
      actif: true,
      supprime: false,
      admin: false,
      modification: false,
      postesFutur: [],
      tokenRegister: null,
      mailEnAttente: null,
    })
    expect(body.user.postesEnCours).toHaveLength(1)
    expect(Object.keys(body.jwt).sort()).toEqual(['accessToken', 'expiresInMsec', 'refreshToken'])
    expect(body.jwt.expiresInMsec).toBe(300_000)
    expect(body.jwt.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(body.jwt.refreshToken).not.toBe(body.jwt.accessToken)
  })

  it('accepts the identifier in any case and with surrounding spaces', async () => {
    const user = await createUser()
    expect((await okBody(signIn(user.login.toUpperCase(), user.password))).user.id).toBe(user.id)
    expect((await login(`  ${user.login.replace('u', 'U')}  `, user.password)).status).toBe(200)
  })

  it('lets a user of http://localhost:8787 sign in on http://127.0.0.1:8787', async () => {
    const user = await createUser()
    const body = { identifiant: user.login, motDePasse: user.password, captcha: await solvedCaptcha() }
    const response = await app.request(
      'http://127.0.0.1:8787/portail-backend/rest/public/bd/login',
      { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } },
      env,
    )
    expect(response.status).toBe(200)
  })

  it('judges the domain by the site reached, not by a client-supplied Origin header', async () => {
    const user = await createUser({ domain: 'https://autre.example.org' })
    const response = await login(user.login, user.password, { headers: { Origin: 'https://autre.example.org' } })
    await expectError(response, 403, 'USER_UNAUTHORIZED_DOMAIN')
  })

  it('writes a CONNEXION log row with the browser parsed from the User-Agent', async () => {
    const user = await createUser()
    const response = await login(user.login, user.password, { headers: { 'User-Agent': CHROME } })
    expect(response.status).toBe(200)
    const rows = await db().selectFrom('log').selectAll().where('utilisateur_id', '=', user.id).execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      type_log: 'CONNEXION',
      nom_navigateur: 'Chrome',
      version_navigateur: '120.0.0.0',
    })
  })
})

describe('POST /rest/public/bd/login: refusals', () => {
  it('answers 401 BAD_CREDENTIAL for a wrong password and for an unknown login', async () => {
    const user = await createUser()
    await expectError(await login(user.login, 'Wrong123'), 401, 'BAD_CREDENTIAL')
    await expectError(await login('nobody-at-all', 'Secret12'), 401, 'BAD_CREDENTIAL')
  })

  it('answers 403 USER_DISABLED for an inactive or deleted user with the right password only', async () => {
    const inactive = await createUser({ actif: false })
    const deleted = await createUser({ supprime: true })
    for (const user of [inactive, deleted]) {
      await expectError(await login(user.login, user.password), 403, 'USER_DISABLED')
      // The state of an account is not revealed to someone who does not know its password.
      await expectError(await login(user.login, 'Wrong123'), 401, 'BAD_CREDENTIAL')
    }
  })

  it('answers 403 USER_NOT_FINISH_REGISTRATION for pending and invited registrations', async () => {
    for (const registration of ['PENDING', 'INVITED'] as const) {
      const user = await createUser({ registration, password: null })
      await expectError(await login(user.login, 'Secret12'), 403, 'USER_NOT_FINISH_REGISTRATION')
    }
  })

  it('answers 403 USER_UNAUTHORIZED_DOMAIN to a user bound to another domain', async () => {
    const user = await createUser({ domain: 'https://autre.example.org' })
    await expectError(await login(user.login, user.password), 403, 'USER_UNAUTHORIZED_DOMAIN')
  })
})

describe('POST /rest/public/bd/login: password hashes kept current', () => {
  const hashOf = async (id: number) =>
    (await db().selectFrom('utilisateur').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow())
      .password_hash ?? ''

  it('signs in with a hash of a retired pepper and renews it with the current one', async () => {
    const user = await createUser()
    const rotated = {
      PASSWORD_PEPPER: 'the-next-pepper-0123456789abcdef0123456789',
      PASSWORD_PEPPER_ID: '2',
      PASSWORD_PEPPERS_RETIRED: `1:${env.PASSWORD_PEPPER}`,
    }
    expect((await hashOf(user.id)).split('$')[2]).toBe('1')
    const first = await loginWith({ identifiant: user.login, motDePasse: user.password }, {}, rotated)
    expect(first.status).toBe(200)
    expect((await hashOf(user.id)).split('$')[2]).toBe('2')
    // The renewed hash needs only the new pepper; the old one can be dropped.
    const { PASSWORD_PEPPERS_RETIRED: _, ...withoutRetired } = rotated
    expect((await loginWith({ identifiant: user.login, motDePasse: user.password }, {}, withoutRetired)).status).toBe(
      200,
    )
  })

  it('renews a hash of a lower cost at sign-in', async () => {
    const user = await createUser()
    const cheap = await hashPassword(user.password, pepperKeyring(env).current, 1000)
    await db().updateTable('utilisateur').set({ password_hash: cheap }).where('id', '=', user.id).execute()
    expect((await login(user.login, user.password)).status).toBe(200)
    expect((await hashOf(user.id)).split('$')[1]).toBe(String(PBKDF2_ITERATIONS))
  })
})

describe('POST /rest/public/bd/login: answers take the same work whatever the account', () => {
  /** Counts the PBKDF2 derivations at full cost one sign-in makes. */
  async function hashWorkOf(identifiant: string, motDePasse: string) {
    const captcha = await solvedCaptcha()
    const spy = vi.spyOn(crypto.subtle, 'deriveBits')
    try {
      const response = await loginWith({ identifiant, motDePasse, captcha })
      const full = spy.mock.calls.filter(([algorithm]) => (algorithm as Pbkdf2Params).iterations === PBKDF2_ITERATIONS)
      return { status: response.status, derivations: full.length }
    } finally {
      spy.mockRestore()
    }
  }

  it('derives one full-cost hash for an unknown login, a wrong password and a pending registration', async () => {
    const known = await createUser()
    const pending = await createUser({ password: null, registration: 'PENDING' })
    const invited = await createUser({ password: null, registration: 'INVITED' })
    expect(await hashWorkOf('nobody-here', 'Secret12')).toEqual({ status: 401, derivations: 1 })
    expect(await hashWorkOf(known.login, 'Wrong123')).toEqual({ status: 401, derivations: 1 })
    expect(await hashWorkOf(pending.login, 'Secret12')).toEqual({ status: 403, derivations: 1 })
    expect(await hashWorkOf(invited.login, 'Secret12')).toEqual({ status: 403, derivations: 1 })
  })
})

describe('POST /rest/public/bd/login: throttle', () => {
  const failTimes = async (identifier: string, times: number) => {
    for (let i = 0; i < times; i++) await expectError(await login(identifier, 'Wrong123'), 401, 'BAD_CREDENTIAL')
  }

  it('answers 429 TOO_MANY_ATTEMPTS with the wait in seconds after 5 failures, even with the right password', async () => {
    const user = await createUser()
    await failTimes(user.login, 5)
    const body = await expectError(await login(user.login, user.password), 429, 'TOO_MANY_ATTEMPTS')
    const [wait] = body.attributs
    expect(typeof wait).toBe('number')
    expect(wait).toBeGreaterThanOrEqual(1)
    expect(wait).toBeLessThanOrEqual(60)
  })

  it('throttles unknown identifiers the same way', async () => {
    await failTimes('ghost-user', 5)
    const body = await expectError(await login('ghost-user', 'Secret12'), 429, 'TOO_MANY_ATTEMPTS')
    expect(body.attributs[0]).toBeGreaterThanOrEqual(1)
  })

  it('counts failures whatever the case of the identifier', async () => {
    const user = await createUser()
    await failTimes(user.login, 3)
    await failTimes(user.login.toUpperCase(), 2)
    await expectError(await login(user.login, user.password), 429, 'TOO_MANY_ATTEMPTS')
  })

  it('checks at most 5 passwords of a burst of concurrent attempts; the others wait (429)', async () => {
    const user = await createUser()
    const captchas = await Promise.all(Array.from({ length: 10 }, () => solvedCaptcha()))
    const responses = await Promise.all(
      captchas.map((captcha) =>
        api().rest.public.bd.login.$post({ json: { identifiant: user.login, motDePasse: 'Wrong123', captcha } }),
      ),
    )
    const codes = await Promise.all(
      responses.map(async (r) => {
        const body = await r.json()
        return 'businessCode' in body ? body.businessCode : undefined
      }),
    )
    expect(codes.filter((code) => code === 'BAD_CREDENTIAL').length).toBeLessThanOrEqual(5)
    expect(codes.filter((code) => code !== 'BAD_CREDENTIAL').every((code) => code === 'TOO_MANY_ATTEMPTS')).toBe(true)
  })

  it('starts the count over after a success', async () => {
    const user = await createUser()
    await failTimes(user.login, 4)
    expect((await login(user.login, user.password)).status).toBe(200)
    await failTimes(user.login, 4)
    expect((await login(user.login, user.password)).status).toBe(200)
  })

  it('lets the user in once the wait is over, then grows the wait on a further failure', async () => {
    const user = await createUser()
    await failTimes(user.login, 5)
    await expectError(await login(user.login, user.password), 429, 'TOO_MANY_ATTEMPTS')

    // Simulates the end of the wait instead of sleeping through it.
    const expire = () =>
      db()
        .updateTable('login_attempt')
        .set({ locked_until: new Date(Date.now() - 1000).toISOString() })
        .where('identifier', '=', user.login)
        .execute()
    await expire()
    await failTimes(user.login, 1)
    const body = await expectError(await login(user.login, user.password), 429, 'TOO_MANY_ATTEMPTS')
    expect(body.attributs[0]).toBeGreaterThan(60)
    expect(body.attributs[0]).toBeLessThanOrEqual(120)

    await expire()
    expect((await login(user.login, user.password)).status).toBe(200)
    const left = await db().selectFrom('login_attempt').selectAll().where('identifier', '=', user.login).execute()
    expect(left).toEqual([])
  })

  it('caps the wait at 15 minutes', async () => {
    const user = await createUser()
    await db()
      .insertInto('login_attempt')
      .values({ identifier: user.login, failures: 40, last_failure_at: new Date().toISOString(), locked_until: null })
      .execute()
    await failTimes(user.login, 1)
    const body = await expectError(await login(user.login, user.password), 429, 'TOO_MANY_ATTEMPTS')
    expect(body.attributs[0]).toBeGreaterThan(14 * 60)
    expect(body.attributs[0]).toBeLessThanOrEqual(15 * 60)
  })

  it('forgets failures older than 12 hours', async () => {
    const user = await createUser()
    const longAgo = new Date(Date.now() - 13 * 3_600_000).toISOString()
    await db()
      .insertInto('login_attempt')
      .values({ identifier: user.login, failures: 9, last_failure_at: longAgo, locked_until: longAgo })
      .execute()
    await failTimes(user.login, 1)
    expect((await login(user.login, user.password)).status).toBe(200)
  })
})

describe('POST /rest/public/bd/login: captcha', () => {
  it('answers 400 CAPTCHA_VALIDATE_FAILED without a captcha', async () => {
    const user = await createUser()
    const response = await post(LOGIN, { identifiant: user.login, motDePasse: user.password })
    await expectError(response, 400, 'CAPTCHA_VALIDATE_FAILED')
  })

  it('answers 400 CAPTCHA_CHAR_INVALID for a payload that is not a captcha', async () => {
    const user = await createUser()
    for (const captcha of ['%%%', btoa('{"foo":1}'), btoa('not json'), btoa('42')]) {
      const response = await loginWith({ identifiant: user.login, motDePasse: user.password, captcha })
      await expectError(response, 400, 'CAPTCHA_CHAR_INVALID')
    }
  })

  it('answers 400 CAPTCHA_VALIDATE_FAILED for a wrong solution', async () => {
    const user = await createUser()
    const captcha = editCaptcha(await solvedCaptcha(), (data) => {
      data.number = (data.number as number) + 1
    })
    const response = await loginWith({ identifiant: user.login, motDePasse: user.password, captcha })
    await expectError(response, 400, 'CAPTCHA_VALIDATE_FAILED')
  })

  it('counts no failed attempt for a refused captcha, a replayed one included', async () => {
    const user = await createUser()
    const spent = await solvedCaptcha()
    await expectError(
      await loginWith({ identifiant: user.login, motDePasse: 'Wrong123', captcha: spent }),
      401,
      'BAD_CREDENTIAL',
    )
    for (let i = 0; i < 3; i++) {
      await expectError(
        await loginWith({ identifiant: user.login, motDePasse: 'Wrong123', captcha: spent }),
        400,
        'CAPTCHA_VALIDATE_FAILED',
      )
      await expectError(
        await post(LOGIN, { identifiant: user.login, motDePasse: 'Wrong123' }),
        400,
        'CAPTCHA_VALIDATE_FAILED',
      )
    }
    // One failure counted, not seven: four more are still free, and the right password then opens.
    for (let i = 0; i < 3; i++) await expectError(await login(user.login, 'Wrong123'), 401, 'BAD_CREDENTIAL')
    expect((await login(user.login, user.password)).status).toBe(200)
  })

  it('accepts a solved payload once and rejects its replay', async () => {
    const user = await createUser()
    const captcha = await solvedCaptcha()
    const first = await loginWith({ identifiant: user.login, motDePasse: user.password, captcha })
    expect(first.status).toBe(200)
    const replay = await loginWith({ identifiant: user.login, motDePasse: user.password, captcha })
    await expectError(replay, 400, 'CAPTCHA_VALIDATE_FAILED')
  })

  it('accepts the no-JavaScript question once, answered right and untampered', async () => {
    const user = await createUser()
    const { a, b, question: text } = await okBody(api().rest.public.bd.captcha.question.$get())
    expect(Number.isInteger(a) && Number.isInteger(b)).toBe(true)
    expect(typeof text).toBe('string')

    const answer = (q: string, value: string) => btoa(JSON.stringify({ question: q, answer: value }))
    const attempt = (captcha: string) => loginWith({ identifiant: user.login, motDePasse: user.password, captcha })

    await expectError(await attempt(answer(text, String(a + b + 1))), 400, 'CAPTCHA_VALIDATE_FAILED')
    const tampered = `${text[0] === '9' ? '8' : '9'}${text.slice(1)}`
    await expectError(await attempt(answer(tampered, String(a + b))), 400, 'CAPTCHA_VALIDATE_FAILED')
    expect((await attempt(answer(text, String(a + b)))).status).toBe(200)
    await expectError(await attempt(answer(text, String(a + b))), 400, 'CAPTCHA_VALIDATE_FAILED')
  })
})

describe('POST /rest/public/bd/login: validation', () => {
  it('answers 400 VALIDATION_FAILED naming the empty or missing fields', async () => {
    const empty = await expectError(
      await loginWith({ identifiant: '', motDePasse: 'Secret12' }),
      400,
      'VALIDATION_FAILED',
    )
    expect(fieldsOf(empty.attributs)).toEqual(['identifiant'])
    const blank = await expectError(
      await loginWith({ identifiant: '   ', motDePasse: 'Secret12' }),
      400,
      'VALIDATION_FAILED',
    )
    expect(fieldsOf(blank.attributs)).toEqual(['identifiant'])
    const missing = await expectError(await loginWith({ identifiant: 'someone' }), 400, 'VALIDATION_FAILED')
    expect(fieldsOf(missing.attributs)).toEqual(['motDePasse'])
    const nothing = await expectError(await post(LOGIN, {}), 400, 'VALIDATION_FAILED')
    expect(fieldsOf(nothing.attributs).sort()).toEqual(['identifiant', 'motDePasse'])
  })

  it('answers 400 VALIDATION_FAILED for fields of the wrong type or a body that is not an object', async () => {
    const wrongTypes = await expectError(
      await loginWith({ identifiant: 42, motDePasse: true }),
      400,
      'VALIDATION_FAILED',
    )
    expect(fieldsOf(wrongTypes.attributs).sort()).toEqual(['identifiant', 'motDePasse'])
    await expectError(await post(LOGIN, ['user', 'Secret12']), 400, 'VALIDATION_FAILED')
    await expectError(await post(LOGIN, null), 400, 'VALIDATION_FAILED')
  })

  it('answers 400 VALIDATION_FAILED for a body that is not JSON', async () => {
    const response = await call(LOGIN, {
      method: 'POST',
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    })
    await expectError(response, 400, 'VALIDATION_FAILED')
  })

  it('refuses a body sent with another content type as a client error, never a 500', async () => {
    const response = await call(LOGIN, {
      method: 'POST',
      body: 'identifiant=a&motDePasse=b',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    await expectError(response, 415, 'VALIDATION_FAILED')
  })

  it('answers 400 VALIDATION_FAILED for over-long fields', async () => {
    const body = await expectError(
      await loginWith({ identifiant: 'x'.repeat(101), motDePasse: 'y'.repeat(201) }),
      400,
      'VALIDATION_FAILED',
    )
    expect(fieldsOf(body.attributs).sort()).toEqual(['identifiant', 'motDePasse'])
  })
})

describe('POST /rest/public/bd/login: per-client limit', () => {
  const LIMITED = { LOGIN_RATE_PER_MINUTE: '30' }
  const attempt = (headers: Record<string, string>, i = 0) =>
    post(LOGIN, { identifiant: `x${i}`, motDePasse: 'y' }, { headers, env: LIMITED })
  const from = (ip: string) => ({ 'CF-Connecting-IP': ip })

  it('answers 429 to a client address past the limit per minute, whatever the identifiers', async () => {
    await withFrozenClock(async () => {
      // The limit is counted before anything else, so garbage bodies are enough.
      const statuses: number[] = []
      for (let i = 0; i < 30; i++) statuses.push((await attempt(from('203.0.113.7'), i)).status)
      expect(statuses.every((status) => status === 400)).toBe(true)
      await expectError(await attempt(from('203.0.113.7')), 429, 'TOO_MANY_ATTEMPTS')
      // Another client is not affected.
      expect((await attempt(from('203.0.113.8'))).status).toBe(400)
    })
  })

  it('spends no payload and counts no failed attempt for a request past the limit', async () => {
    const user = await createUser()
    const captcha = await solvedCaptcha()
    await withFrozenClock(async () => {
      for (let i = 0; i < 30; i++) await attempt(from('203.0.113.20'), i)
      for (let i = 0; i < 6; i++) {
        const refused = await post(
          LOGIN,
          { identifiant: user.login, motDePasse: 'Wrong123', captcha },
          {
            headers: from('203.0.113.20'),
            env: LIMITED,
          },
        )
        await expectError(refused, 429, 'TOO_MANY_ATTEMPTS')
      }
      // From another address the same payload is still good, and the account is not locked.
      const signedIn = await post(
        LOGIN,
        { identifiant: user.login, motDePasse: user.password, captcha },
        {
          headers: from('203.0.113.21'),
          env: LIMITED,
        },
      )
      expect(signedIn.status).toBe(200)
    })
  })

  it('counts requests without a client address together, under one key', async () => {
    // In a minute of its own: the file's other requests without an address count under the same key.
    await withFrozenClock(
      async () => {
        for (let i = 0; i < 15; i++) expect((await attempt({}, i)).status).toBe(400)
        for (let i = 0; i < 15; i++) expect((await attempt(from('not-an-address'), i)).status).toBe(400)
        await expectError(await attempt({}), 429, 'TOO_MANY_ATTEMPTS')
        await expectError(await attempt(from(`garbage-${Math.random()}`)), 429, 'TOO_MANY_ATTEMPTS')
      },
      new Date(Date.now() + 3_600_000),
    )
  })

  it('counts the addresses of one IPv6 /64 as one client', async () => {
    await withFrozenClock(async () => {
      for (let i = 0; i < 30; i++) expect((await attempt(from(`2001:db8:7:7::${i.toString(16)}`), i)).status).toBe(400)
      await expectError(await attempt(from('2001:db8:7:7:abcd::1')), 429, 'TOO_MANY_ATTEMPTS')
      expect((await attempt(from('2001:db8:7:8::1'))).status).toBe(400)
    })
  })
})
