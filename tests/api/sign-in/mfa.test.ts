import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { MfaChallenge } from '../../../worker-api/contract/sign-in/mfa'
import { api, okBody } from '../client'
import {
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  login,
  post,
  sessionFor,
  withFrozenClock,
} from '../helpers'

beforeAll(createOrganisation)

// ---------------------------------------------------------------------------------------------
// An authenticator app of the test's own (RFC 4226/6238 with Web Crypto), checked against RFC 6238's
// test vector, so that the portal's codes are compared with an independent computation.

function base32Decode(value: string): Uint8Array<ArrayBuffer> {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const char of value.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0')
  return Uint8Array.from(bits.match(/.{8}/g) ?? [], (byte) => Number.parseInt(byte, 2))
}

async function hotp(key: Uint8Array<ArrayBuffer>, counter: number, digits = 6): Promise<string> {
  const message = new DataView(new ArrayBuffer(8))
  message.setUint32(0, Math.floor(counter / 2 ** 32))
  message.setUint32(4, counter >>> 0)
  const hmacKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-1' }, false, ['sign'])
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hmacKey, message.buffer))
  const offset = (mac[19] ?? 0) & 0x0f
  const number = new DataView(mac.buffer).getUint32(offset) & 0x7fffffff
  return String(number % 10 ** digits).padStart(digits, '0')
}

/** The code an app shows at `at` (ms), `steps` steps away. */
const totp = (secret: string, at = Date.now(), steps = 0) => hotp(base32Decode(secret), Math.floor(at / 30_000) + steps)

it('the test authenticator matches RFC 6238 (SHA-1, T = 59 s)', async () => {
  const key = new TextEncoder().encode('12345678901234567890')
  expect(await hotp(key, 1, 8)).toBe('94287082')
})

// ---------------------------------------------------------------------------------------------

type Session = { id: number; login: string; password: string; token: string }

async function user(options: Parameters<typeof createUser>[0] = {}): Promise<Session> {
  const created = await createUser(options)
  const session = await sessionFor(created.id)
  return { ...created, token: session.accessToken }
}

const status = (token: string) => okBody(api(token).rest.bd.mfa.$get())

/** Enrols TOTP for a user; returns the secret and the recovery codes. */
async function enrol(session: Session) {
  const { secret } = await okBody(api(session.token).rest.bd.mfa.totp.$post({ json: { motDePasse: session.password } }))
  const confirmed = await totp(secret)
  const { codesSecours } = await okBody(
    api(session.token).rest.bd.mfa.totp.confirm.$post({ json: { code: confirmed } }),
  )
  // `confirmed`: the code the confirmation spent (a code computed again later may be of the next step, still unspent).
  return { secret, codes: codesSecours, confirmed }
}

async function passwordStep(session: Pick<Session, 'login' | 'password'>): Promise<MfaChallenge> {
  const body = await expectError(await login(session.login, session.password), 403, 'MFA_REQUIRED')
  return body.attributs[0] as MfaChallenge
}

const secondStep = (challenge: string, code: string) => post('/rest/public/bd/login/mfa', { challenge, code })

const sessionsOf = async (userId: number) =>
  (
    await db()
      .selectFrom('refresh_token')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('utilisateur_id', '=', userId)
      .executeTakeFirstOrThrow()
  ).n

const mailsOf = (userId: number) =>
  db().selectFrom('outbox').select(['kind', 'subject']).where('utilisateur_id', '=', userId).execute()

describe('TOTP enrolment', () => {
  it('gives a secret and an otpauth address; nothing changes at sign-in until a first code confirms it', async () => {
    const me = await user()
    const body = await okBody(api(me.token).rest.bd.mfa.totp.$post({ json: { motDePasse: me.password } }))
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/)
    const uri = new URL(body.otpauthUri)
    expect(uri.protocol).toBe('otpauth:')
    expect(uri.searchParams.get('secret')).toBe(body.secret)
    expect(uri.searchParams.get('algorithm')).toBe('SHA1')
    expect(uri.searchParams.get('digits')).toBe('6')
    expect(uri.searchParams.get('period')).toBe('30')
    expect(decodeURIComponent(uri.pathname)).toContain(me.login)
    expect(await status(me.token)).toEqual({ totp: false, passkeys: [], codesSecoursRestants: 0, fournisseurs: [] })
    expect((await login(me.login, me.password)).status).toBe(200)
  })

  it('refuses a wrong first code (400 MFA_CODE_INVALID); the right one turns TOTP on with ten recovery codes, told by mail and audited', async () => {
    const me = await user()
    const { secret } = await okBody(api(me.token).rest.bd.mfa.totp.$post({ json: { motDePasse: me.password } }))
    const wrong = String((Number(await totp(secret)) + 1) % 1_000_000).padStart(6, '0')
    await expectError(
      await post('/rest/bd/mfa/totp/confirm', { code: wrong }, { token: me.token }),
      400,
      'MFA_CODE_INVALID',
    )
    expect((await status(me.token)).totp).toBe(false)

    const { codesSecours } = await okBody(
      api(me.token).rest.bd.mfa.totp.confirm.$post({ json: { code: await totp(secret) } }),
    )
    expect(codesSecours).toHaveLength(10)
    expect(new Set(codesSecours).size).toBe(10)
    for (const code of codesSecours) expect(code).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/)
    expect(await status(me.token)).toEqual({ totp: true, passkeys: [], codesSecoursRestants: 10, fournisseurs: [] })
    // Stored hashed: no code appears in the database.
    const stored = await db()
      .selectFrom('mfa_recovery_code')
      .select('code_hash')
      .where('utilisateur_id', '=', me.id)
      .execute()
    expect(stored.map((row) => row.code_hash)).not.toContain(codesSecours[0])
    expect((await mailsOf(me.id)).map((mail) => mail.kind)).toEqual(['FACTOR_ADDED'])
    const log = await db().selectFrom('log').select('nom_log').where('utilisateur_id', '=', me.id).execute()
    expect(log.map((row) => row.nom_log)).toContain('MFA_TOTP_AJOUT')
    // Confirmed once: the enrolment is no longer pending.
    await expectError(
      await post('/rest/bd/mfa/totp/confirm', { code: await totp(secret) }, { token: me.token }),
      404,
      'NOT_FOUND',
    )
  })
})

describe('an authenticator app is set up only with the password', () => {
  it('refuses a session alone (400 VALIDATION_FAILED) and a wrong password (400 BAD_OLD_PASSWORD): nothing pending', async () => {
    const me = await user()
    const missing = await expectError(
      await post('/rest/bd/mfa/totp', {}, { token: me.token }),
      400,
      'VALIDATION_FAILED',
    )
    expect(JSON.stringify(missing.attributs)).toContain('motDePasse')
    await expectError(
      await post('/rest/bd/mfa/totp', { motDePasse: 'Wrong123' }, { token: me.token }),
      400,
      'BAD_OLD_PASSWORD',
    )
    expect(
      await db().selectFrom('mfa_totp').select('utilisateur_id').where('utilisateur_id', '=', me.id).execute(),
    ).toEqual([])
  })

  it('counts wrong passwords with the password change: the sixth attempt answers 429, even with the right one', async () => {
    const me = await user()
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expectError(
        await post('/rest/bd/mfa/totp', { motDePasse: 'Wrong123' }, { token: me.token }),
        400,
        'BAD_OLD_PASSWORD',
      )
    }
    // The same count as a wrong old password at the password change.
    for (let attempt = 4; attempt <= 5; attempt++) {
      const changed = await call('/rest/bd/utilisateur/updatePassword', {
        method: 'PUT',
        token: me.token,
        body: JSON.stringify({ oldPassword: 'Wrong123', newPassword: 'Nouveau12' }),
      })
      await expectError(changed, 400, 'BAD_OLD_PASSWORD')
    }
    await expectError(
      await post('/rest/bd/mfa/totp', { motDePasse: me.password }, { token: me.token }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
  })

  it('starts the count over once the password is right', async () => {
    const me = await user()
    for (let attempt = 1; attempt <= 4; attempt++) {
      await post('/rest/bd/mfa/totp', { motDePasse: 'Wrong123' }, { token: me.token })
    }
    expect((await post('/rest/bd/mfa/totp', { motDePasse: me.password }, { token: me.token })).status).toBe(200)
    for (let attempt = 1; attempt <= 5; attempt++) {
      await expectError(
        await post('/rest/bd/mfa/totp', { motDePasse: 'Wrong123' }, { token: me.token }),
        400,
        'BAD_OLD_PASSWORD',
      )
    }
  })
})

describe('a factor in force is not replaced by a session alone', () => {
  it('answers 409 MFA_TOTP_ALREADY_ON to a new enrolment while TOTP is on; after turning it off, a new one', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await expectError(
      await post('/rest/bd/mfa/totp', { motDePasse: me.password }, { token: me.token }),
      409,
      'MFA_TOTP_ALREADY_ON',
    )
    // Nor can an enrolment left pending from before be confirmed over it.
    await expectError(
      await post('/rest/bd/mfa/totp/confirm', { code: await totp(secret, Date.now(), 1) }, { token: me.token }),
      404,
      'NOT_FOUND',
    )
    const off = await call('/rest/bd/mfa/totp', {
      method: 'DELETE',
      token: me.token,
      body: JSON.stringify({ motDePasse: me.password }),
    })
    expect(off.status).toBe(204)
    expect((await post('/rest/bd/mfa/totp', { motDePasse: me.password }, { token: me.token })).status).toBe(200)
  })
})

describe('the sign-in with a second factor', () => {
  it('a user without one signs in exactly as before', async () => {
    const me = await createUser()
    const response = await login(me.login, me.password)
    expect(response.status).toBe(200)
  })

  it('the right password answers 403 MFA_REQUIRED with a challenge (5 minutes) and the methods, and opens no session', async () => {
    const me = await user()
    await enrol(me)
    const before = await sessionsOf(me.id)
    const started = Date.now()
    const challenge = await passwordStep(me)
    expect(challenge.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(challenge.methodes).toEqual(['totp', 'codeSecours'])
    const lifetime = Date.parse(challenge.expiration) - started
    expect(lifetime).toBeGreaterThanOrEqual(299_000)
    expect(lifetime).toBeLessThanOrEqual(301_000)
    expect(await sessionsOf(me.id)).toBe(before)
    // A wrong password still answers BAD_CREDENTIAL, with no challenge.
    await expectError(await login(me.login, 'Wrong1234'), 401, 'BAD_CREDENTIAL')
  })

  it('a TOTP code completes it with the spec’s {user, jwt}; the code and the challenge are accepted once', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30) // a step after the enrolment's code
      const first = await passwordStep(me)
      const code = await totp(secret)
      const body = await okBody(api().rest.public.bd.login.mfa.$post({ json: { challenge: first.challenge, code } }))
      expect(body.user.id).toBe(me.id)
      expect((await call('/rest/bd/session', { token: body.jwt.accessToken })).status).toBe(200)
      // The same challenge again: spent.
      await expectError(await secondStep(first.challenge, code), 401, 'MFA_CHALLENGE_INVALID')
      // The same code on a new challenge: replayed within its window, refused.
      const second = await passwordStep(me)
      await expectError(await secondStep(second.challenge, code), 400, 'MFA_CODE_INVALID')
      // The next step's code passes (that challenge lives on after a wrong code).
      clock.advance(30)
      expect((await secondStep(second.challenge, await totp(secret))).status).toBe(200)
    })
  })

  it('a code accepted by another sign-in between this one’s read and its write: refused, one session opened', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30)
      const code = await totp(secret)
      const [first, second] = [await passwordStep(me), await passwordStep(me)]
      const before = await sessionsOf(me.id)
      let meanwhile: number | undefined
      const late = await post(
        '/rest/public/bd/login/mfa',
        { challenge: second.challenge, code },
        {
          env: {
            DB: changedBeforeWrite(async () => {
              meanwhile = (await secondStep(first.challenge, code)).status
            }),
          },
        },
      )
      expect(meanwhile).toBe(200)
      await expectError(late, 400, 'MFA_CODE_INVALID')
      expect(await sessionsOf(me.id)).toBe(before + 1)
    })
  })

  it('a code already accepted counts as a wrong one: as the failure that starts a wait, it ends the challenge', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30)
      const code = await totp(secret)
      expect((await secondStep((await passwordStep(me)).challenge, code)).status).toBe(200)
      const { challenge } = await passwordStep(me)
      for (let i = 0; i < 4; i++) await expectError(await secondStep(challenge, '000000'), 400, 'MFA_CODE_INVALID')
      // The fifth failure: the code accepted a moment ago.
      await expectError(await secondStep(challenge, code), 400, 'MFA_CODE_INVALID')
      // After the wait, that challenge is gone even with the next step's code: the password again.
      clock.advance(61)
      await expectError(await secondStep(challenge, await totp(secret)), 401, 'MFA_CHALLENGE_INVALID')
      const again = await passwordStep(me)
      expect((await secondStep(again.challenge, await totp(secret))).status).toBe(200)
    })
  })

  it('accepts the codes of the neighbouring steps only (clock drift of one step either way)', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    // Well after the enrolment, at the very start of a step.
    const at = new Date((Math.floor(Date.now() / 30_000) + 10) * 30_000)
    await withFrozenClock(async () => {
      for (const [steps, expected] of [
        [-2, 400],
        [2, 400],
        [-1, 200],
        [1, 200],
      ] as const) {
        const { challenge } = await passwordStep(me)
        const response = await secondStep(challenge, await totp(secret, Date.now(), steps))
        expect({ steps, status: response.status }).toEqual({ steps, status: expected })
      }
      // Step +1 was accepted: the current step (earlier) no longer passes.
      const { challenge } = await passwordStep(me)
      expect((await secondStep(challenge, await totp(secret))).status).toBe(400)
    }, at)
  })

  it('a recovery code completes it once, however it is typed', async () => {
    const me = await user()
    const { codes } = await enrol(me)
    const code = codes[3] as string
    const { challenge } = await passwordStep(me)
    const typed = ` ${code.toUpperCase().replaceAll('-', ' ')} `
    expect((await secondStep(challenge, typed)).status).toBe(200)
    expect((await status(me.token)).codesSecoursRestants).toBe(9)
    const again = await passwordStep(me)
    await expectError(await secondStep(again.challenge, code), 400, 'MFA_CODE_INVALID')
  })

  it('a challenge dies after 5 minutes', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      const { challenge } = await passwordStep(me)
      clock.advance(5 * 60 + 1)
      await expectError(await secondStep(challenge, await totp(secret)), 401, 'MFA_CHALLENGE_INVALID')
    })
  })

  it('an unknown challenge is refused without counting anything', async () => {
    await expectError(await secondStep('x'.repeat(43), '123456'), 401, 'MFA_CHALLENGE_INVALID')
  })

  it('wrong codes count in the lockout of wrong passwords; the challenge dies with the lockout', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    // Two wrong passwords, then the right one (which does not count), then three wrong codes: five failures.
    await expectError(await login(me.login, 'Wrong1234'), 401, 'BAD_CREDENTIAL')
    await expectError(await login(me.login, 'Wrong1234'), 401, 'BAD_CREDENTIAL')
    const { challenge } = await passwordStep(me)
    for (let i = 0; i < 3; i++) await expectError(await secondStep(challenge, '000000'), 400, 'MFA_CODE_INVALID')
    // Locked: the password waits, and the challenge is gone even with the right code.
    await expectError(await login(me.login, me.password), 429, 'TOO_MANY_ATTEMPTS')
    const after = await secondStep(challenge, await totp(secret, Date.now(), 1))
    expect([401, 429]).toContain(after.status)
    const row = await db().selectFrom('mfa_challenge').select('hash').where('utilisateur_id', '=', me.id).execute()
    expect(row).toEqual([])
  })

  it('the right password after a wait is not held back by a wait of its own: the code then signs in', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30)
      for (let i = 0; i < 5; i++) await expectError(await login(me.login, 'Wrong1234'), 401, 'BAD_CREDENTIAL')
      const locked = await expectError(await login(me.login, me.password), 429, 'TOO_MANY_ATTEMPTS')
      expect(locked.attributs[0]).toBeGreaterThan(50)
      clock.advance(61)
      const { challenge } = await passwordStep(me)
      expect((await secondStep(challenge, await totp(secret))).status).toBe(200)
    })
  })

  it('a wait started by wrong codes says how long it lasts', async () => {
    const me = await user()
    await enrol(me)
    const { challenge } = await passwordStep(me)
    for (let i = 0; i < 5; i++) await expectError(await secondStep(challenge, '000000'), 400, 'MFA_CODE_INVALID')
    const refused = await expectError(await login(me.login, me.password), 429, 'TOO_MANY_ATTEMPTS')
    expect(refused.attributs[0]).toBeGreaterThan(50)
  })

  it('a success starts the count over', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30)
      const { challenge } = await passwordStep(me)
      for (let i = 0; i < 3; i++) await expectError(await secondStep(challenge, '000000'), 400, 'MFA_CODE_INVALID')
      expect((await secondStep(challenge, await totp(secret))).status).toBe(200)
      const counter = await db().selectFrom('login_attempt').selectAll().where('identifier', '=', me.login).execute()
      expect(counter).toEqual([])
    })
  })
})

describe('removal and renewal', () => {
  it('removes TOTP with a current code; the sign-in is as before, the user told', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30)
      const response = await call('/rest/bd/mfa/totp', {
        method: 'DELETE',
        token: me.token,
        body: JSON.stringify({ code: await totp(secret) }),
      })
      expect(response.status).toBe(204)
    })
    expect(await status(me.token)).toEqual({ totp: false, passkeys: [], codesSecoursRestants: 0, fournisseurs: [] })
    expect((await login(me.login, me.password)).status).toBe(200)
    expect((await mailsOf(me.id)).map((mail) => mail.kind)).toEqual(['FACTOR_ADDED', 'FACTOR_REMOVED'])
  })

  it('asks for a new passkey with a current code, once: the same code asks for no second one', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30)
      const code = await totp(secret)
      const ask = () => post('/rest/bd/mfa/passkeys/options', { code }, { token: me.token })
      expect((await ask()).status).toBe(200)
      await expectError(await ask(), 400, 'MFA_CODE_INVALID')
    })
  })

  it('a code accepted at sign-in between a proof’s read and its write proves nothing: no passkey options, no removal, no new recovery codes', async () => {
    const me = await user()
    const { secret, codes } = await enrol(me)
    const proofs = {
      'passkey options': (DB: D1Database, code: string) =>
        post('/rest/bd/mfa/passkeys/options', { code }, { token: me.token, env: { DB } }),
      'new recovery codes': (DB: D1Database, code: string) =>
        post('/rest/bd/mfa/codes-secours', { code }, { token: me.token, env: { DB } }),
      'TOTP removal': (DB: D1Database, code: string) =>
        call('/rest/bd/mfa/totp', { method: 'DELETE', token: me.token, env: { DB }, body: JSON.stringify({ code }) }),
    }
    await withFrozenClock(async (clock) => {
      const answers: Record<string, { status: number; meanwhile: number | undefined }> = {}
      for (const [proof, send] of Object.entries(proofs)) {
        clock.advance(30)
        const code = await totp(secret)
        const { challenge } = await passwordStep(me)
        let meanwhile: number | undefined
        const answer = await send(
          changedBeforeWrite(async () => {
            meanwhile = (await secondStep(challenge, code)).status
          }),
          code,
        )
        answers[proof] = { status: answer.status, meanwhile }
      }
      expect(answers).toEqual({
        'passkey options': { status: 400, meanwhile: 200 },
        'new recovery codes': { status: 400, meanwhile: 200 },
        'TOTP removal': { status: 400, meanwhile: 200 },
      })
    })
    const registrations = await db()
      .selectFrom('mfa_challenge')
      .select('hash')
      .where('utilisateur_id', '=', me.id)
      .where('purpose', '=', 'PASSKEY_REGISTRATION')
      .execute()
    expect(registrations).toEqual([])
    expect(await status(me.token)).toEqual({ totp: true, passkeys: [], codesSecoursRestants: 10, fournisseurs: [] })
    // The codes are the enrolment's still.
    const { challenge } = await passwordStep(me)
    expect((await secondStep(challenge, codes[0] as string)).status).toBe(200)
  })

  it('a code already accepted is a wrong proof, counted: as the fifth failure, the next proof waits', async () => {
    const me = await user()
    const { secret } = await enrol(me)
    await withFrozenClock(async (clock) => {
      clock.advance(30)
      const code = await totp(secret)
      expect((await secondStep((await passwordStep(me)).challenge, code)).status).toBe(200)
      const ask = (body: unknown) => post('/rest/bd/mfa/passkeys/options', body, { token: me.token })
      for (let i = 0; i < 4; i++) await expectError(await ask({ motDePasse: 'Wrong1234' }), 400, 'BAD_OLD_PASSWORD')
      await expectError(await ask({ code }), 400, 'MFA_CODE_INVALID')
      await expectError(await ask({ motDePasse: me.password }), 429, 'TOO_MANY_ATTEMPTS')
    })
  })

  it('removes TOTP with the password, never with a wrong one or a spent code', async () => {
    const me = await user()
    const { confirmed } = await enrol(me)
    const del = (body: unknown) =>
      call('/rest/bd/mfa/totp', { method: 'DELETE', token: me.token, body: JSON.stringify(body) })
    await expectError(await del({ motDePasse: 'Wrong1234' }), 400, 'BAD_OLD_PASSWORD')
    // The enrolment's code was spent by the confirmation.
    await expectError(await del({ code: confirmed }), 400, 'MFA_CODE_INVALID')
    await expectError(await del({}), 400, 'VALIDATION_FAILED')
    expect((await status(me.token)).totp).toBe(true)
    expect((await del({ motDePasse: me.password })).status).toBe(204)
    expect((await status(me.token)).totp).toBe(false)
  })

  it('new recovery codes replace the former ones, with a proof; none without a second factor', async () => {
    const me = await user()
    const renew = (body: unknown) => post('/rest/bd/mfa/codes-secours', body, { token: me.token })
    await expectError(await renew({ motDePasse: me.password }), 404, 'NOT_FOUND')
    const { codes, confirmed } = await enrol(me)
    // A stolen session makes no codes of its own: a current code or the password is asked for.
    await expectError(await renew({}), 400, 'VALIDATION_FAILED')
    await expectError(await renew({ motDePasse: 'Wrong1234' }), 400, 'BAD_OLD_PASSWORD')
    // The enrolment's code is spent.
    await expectError(await renew({ code: confirmed }), 400, 'MFA_CODE_INVALID')
    expect((await status(me.token)).codesSecoursRestants).toBe(10)
    const { codesSecours } = await okBody(
      api(me.token).rest.bd.mfa['codes-secours'].$post({ json: { motDePasse: me.password } }),
    )
    expect(codesSecours).toHaveLength(10)
    const { challenge } = await passwordStep(me)
    await expectError(await secondStep(challenge, codes[0] as string), 400, 'MFA_CODE_INVALID')
    expect((await secondStep(challenge, codesSecours[0] as string)).status).toBe(200)
  })

  it('anonymous callers reach none of the factor calls', async () => {
    for (const [method, path] of [
      ['GET', '/rest/bd/mfa'],
      ['POST', '/rest/bd/mfa/totp'],
      ['POST', '/rest/bd/mfa/totp/confirm'],
      ['DELETE', '/rest/bd/mfa/totp'],
      ['POST', '/rest/bd/mfa/codes-secours'],
    ] as const) {
      const body = method === 'GET' ? undefined : JSON.stringify({ code: '123456' })
      const response = await call(path, { method, body })
      expect({ path, status: response.status }).toEqual({ path, status: 401 })
    }
  })
})

describe('the policy: a second factor required of administrators', () => {
  const settings = (token: string, on: boolean) =>
    call('/rest/bd/parametres/securite', {
      method: 'PUT',
      token,
      body: JSON.stringify({ mfaRequisAdministrateurs: on }),
    })

  it('only a root administrator with a second factor turns it on; then an administrator without one is refused every admin call until enrolled', async () => {
    const root = await user({ admin: true, postes: [currentPost(1, 1)] })
    const delegated = await user({ admin: true, postes: [currentPost(3, 3)] })
    const agent = await user({ postes: [currentPost(4, 2)] })
    await expectError(await settings(delegated.token, true), 403, 'FORBIDDEN')
    await expectError(await settings(agent.token, true), 403, 'FORBIDDEN')
    await expectError(await settings(root.token, true), 403, 'MFA_FACTOR_REQUIRED')
    await enrol(root)
    const on = await settings(root.token, true)
    expect(on.status).toBe(200)
    expect(await on.json()).toEqual({
      mfaRequisAdministrateurs: true,
      demandeDureeMaxJours: 90,
      historiqueMoisEnLigne: 13,
    })
    try {
      // The delegated administrator: every admin call refused, their own calls answered.
      await expectError(
        await call('/rest/bd/utilisateur/liste', { token: delegated.token }),
        403,
        'MFA_ENROLMENT_REQUIRED',
      )
      await expectError(
        await call('/rest/bd/parametres/securite', { token: delegated.token }),
        403,
        'MFA_ENROLMENT_REQUIRED',
      )
      expect((await call('/rest/bd/mfa', { token: delegated.token })).status).toBe(200)
      expect((await call(`/rest/bd/utilisateur/${delegated.id}`, { token: delegated.token })).status).toBe(200)
      // Not an administrator: nothing changes.
      expect((await call('/rest/bd/mfa', { token: agent.token })).status).toBe(200)
      await enrol(delegated)
      expect((await call('/rest/bd/utilisateur/liste', { token: delegated.token })).status).toBe(200)
      const read = await call('/rest/bd/parametres/securite', { token: delegated.token })
      expect(await read.json()).toEqual({
        mfaRequisAdministrateurs: true,
        demandeDureeMaxJours: 90,
        historiqueMoisEnLigne: 13,
      })
    } finally {
      expect((await settings(root.token, false)).status).toBe(200)
    }
    const log = await db().selectFrom('log').select('nom_log').where('utilisateur_id', '=', root.id).execute()
    expect(log.filter((row) => row.nom_log === 'PARAMETRES_SECURITE')).toHaveLength(2)
  })

  /**
   * What another request changes between an administrator's read (which lets them in) and their
   * write: the policy turned on while they have no factor, or their only factor removed while it is on.
   */
  async function raced(
    write: (admin: Session, db: D1Database) => Promise<Response>,
    adminPost: ReturnType<typeof currentPost>,
  ) {
    const setter = await user({ admin: true, postes: [currentPost(1, 1)] })
    await enrol(setter)
    const cases = {
      'the policy turned on': {
        before: async () => {},
        change: () => settings(setter.token, true),
      },
      "the administrator's factor removed": {
        before: async (admin: Session) => {
          await enrol(admin)
          expect((await settings(setter.token, true)).status).toBe(200)
        },
        change: (admin: Session) =>
          call('/rest/bd/mfa/totp', {
            method: 'DELETE',
            token: admin.token,
            body: JSON.stringify({ motDePasse: admin.password }),
          }),
      },
    }
    const answers: Record<string, { status: number; meanwhile: number | undefined }> = {}
    for (const [meanwhile, { before, change }] of Object.entries(cases)) {
      const admin = await user({ admin: true, postes: [adminPost] })
      await before(admin)
      let changed: number | undefined
      try {
        const answer = await write(
          admin,
          changedBeforeWrite(async () => {
            changed = (await change(admin)).status
          }),
        )
        answers[meanwhile] = { status: answer.status, meanwhile: changed }
        // The policy is in force for them now: the same call is refused outright.
        await expectError(await write(admin, env.DB), 403, 'MFA_ENROLMENT_REQUIRED')
      } finally {
        expect((await settings(setter.token, false)).status).toBe(200)
      }
    }
    expect(answers).toEqual({
      'the policy turned on': { status: 403, meanwhile: 200 },
      "the administrator's factor removed": { status: 403, meanwhile: 204 },
    })
  }

  it('a root-only write (a new application of the catalogue) made after the policy turned on, or the factor removed, since its read: 403, nothing written', async () => {
    let n = 0
    const libelles: string[] = []
    await raced(
      (admin, DB) => {
        const libelle = `Course ${++n}`
        libelles.push(libelle)
        return call('/rest/bd/application', {
          method: 'POST',
          token: admin.token,
          env: { DB },
          body: JSON.stringify({
            libelle,
            icone: 'truck',
            url: 'https://course.example.test/',
            actif: true,
            protocole: 'CODE',
            fonctions: [{ id: 2 }],
          }),
        })
      },
      currentPost(1, 1),
    )
    expect(await db().selectFrom('application').select('libelle').where('libelle', 'in', libelles).execute()).toEqual(
      [],
    )
    expect(
      await db().selectFrom('log').select('commentaire').where('nom_log', '=', 'APPLICATION_CREATION').execute(),
    ).toEqual([])
  })

  it('a write on a user of their scope (a deactivation) made after the policy turned on, or the factor removed, since its read: 403, the user untouched', async () => {
    const agent = await user({ postes: [currentPost(4, 2)] })
    await raced(
      (admin, DB) =>
        call('/rest/bd/utilisateur/state', {
          method: 'PUT',
          token: admin.token,
          env: { DB },
          body: JSON.stringify({ id: agent.id, actif: false }),
        }),
      currentPost(2, 1),
    )
    const row = await db()
      .selectFrom('utilisateur')
      .select('actif')
      .where('id', '=', agent.id)
      .executeTakeFirstOrThrow()
    expect(row.actif).toBe(1)
    expect((await call('/rest/bd/mfa', { token: agent.token })).status).toBe(200)
    expect(
      await db().selectFrom('log').select('commentaire').where('nom_log', '=', 'UTILISATEUR_DESACTIVATION').execute(),
    ).toEqual([])
  })
})

describe('an administrator resets the second factor of a user they manage', () => {
  it('within their scope only; audited, the user told by mail', async () => {
    const target = await user({ postes: [currentPost(4, 2)] })
    await enrol(target)
    const outside = await user({ admin: true, postes: [currentPost(3, 3)] })
    const inside = await user({ admin: true, postes: [currentPost(2, 1)] })
    const reset = (token: string) => call(`/rest/bd/utilisateur/${target.id}/mfa`, { method: 'DELETE', token })
    await expectError(await reset(outside.token), 403, 'FORBIDDEN')
    expect((await status(target.token)).totp).toBe(true)
    expect((await reset(inside.token)).status).toBe(204)
    expect(await status(target.token)).toEqual({ totp: false, passkeys: [], codesSecoursRestants: 0, fournisseurs: [] })
    expect((await login(target.login, target.password)).status).toBe(200)
    const mails = await mailsOf(target.id)
    expect(mails.map((mail) => mail.kind)).toContain('FACTOR_RESET')
    const log = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('utilisateur_id', '=', inside.id)
      .execute()
    expect(log).toContainEqual({ nom_log: 'MFA_REINITIALISATION', commentaire: `#${target.id} ${target.login}` })
  })
})
