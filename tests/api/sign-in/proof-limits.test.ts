import { beforeAll, describe, expect, it } from 'vitest'
import type { FactorProof } from '../../../worker-api/contract/sign-in/mfa'
import { b64u, registeredAuthenticator } from '../authenticator'
import { call, createOrganisation, createUser, db, expectError, sessionFor, withFrozenClock } from '../helpers'

/**
 * README, "Second factor": the calls that change a factor ask for a proof — a current code or the
 * password — "counted like wrong old passwords (429 after 5)": the same counter as the password
 * change's, where the fifth failure in a row starts a wait of 60 s (SECURITY.md, "Online guessing").
 * So the fifth wrong proof is still answered 400, and the sixth, even the right password, 429 until
 * the 60 s are over.
 */

beforeAll(createOrganisation)

type Holder = { token: string; passkeyId: string }

/** A user with an authenticator app and a passkey, and a session of theirs. */
async function holder() {
  const user = await createUser()
  const { accessToken: token } = await sessionFor(user.id)
  await db()
    .insertInto('mfa_totp')
    .values({
      utilisateur_id: user.id,
      secret: 'JBSWY3DPEHPK3PXP',
      confirmed_at: new Date().toISOString(),
      last_step: 0,
      pending_secret: null,
      pending_created_at: null,
    })
    .execute()
  const passkeyId = b64u((await registeredAuthenticator(token)).id)
  return { ...user, token, passkeyId }
}

const send = (method: string, path: string, token: string, proof: FactorProof) =>
  call(path, { method, token, body: JSON.stringify(proof) })

type ProvenCall = { name: string; prove: (who: Holder, proof: FactorProof) => Promise<Response>; success: number }

/** Each call that asks for a proof, and its status once it is given. */
const removeTotp: ProvenCall = {
  name: 'DELETE rest/bd/mfa/totp',
  prove: (who, proof) => send('DELETE', '/rest/bd/mfa/totp', who.token, proof),
  success: 204,
}
const newCodes: ProvenCall = {
  name: 'POST rest/bd/mfa/codes-secours',
  prove: (who, proof) => send('POST', '/rest/bd/mfa/codes-secours', who.token, proof),
  success: 200,
}
const passkeyOptions: ProvenCall = {
  name: 'POST rest/bd/mfa/passkeys/options',
  prove: (who, proof) => send('POST', '/rest/bd/mfa/passkeys/options', who.token, proof),
  success: 200,
}
const removePasskey: ProvenCall = {
  name: 'DELETE rest/bd/mfa/passkeys/{id}',
  prove: (who, proof) => send('DELETE', `/rest/bd/mfa/passkeys/${who.passkeyId}`, who.token, proof),
  success: 204,
}

const WRONG = { motDePasse: 'Mauvais12' }

describe('a proof of a factor change: 429 after 5 failures', () => {
  for (const { name, prove, success } of [removeTotp, newCodes, passkeyOptions, removePasskey]) {
    it(`${name}: the 5th wrong password is answered 400, then even the right one 429 for 60 s, then accepted`, async () => {
      const who = await holder()
      const right = { motDePasse: who.password }
      await withFrozenClock(async (clock) => {
        for (let failure = 1; failure <= 5; failure++) {
          await expectError(await prove(who, WRONG), 400, 'BAD_OLD_PASSWORD')
        }
        const held = await expectError(await prove(who, right), 429, 'TOO_MANY_ATTEMPTS')
        expect(held.attributs).toEqual([60])
        clock.advance(59)
        expect((await expectError(await prove(who, right), 429, 'TOO_MANY_ATTEMPTS')).attributs).toEqual([1])
        clock.advance(1)
        expect((await prove(who, right)).status).toBe(success)
      })
    })
  }

  it('the failures add up across these calls, wrong codes with wrong passwords, and with the password change', async () => {
    const who = await holder()
    // No authenticator app: any code is wrong.
    await db().deleteFrom('mfa_totp').where('utilisateur_id', '=', who.id).execute()
    const changePassword = (oldPassword: string) =>
      call('/rest/bd/utilisateur/updatePassword', {
        method: 'PUT',
        token: who.token,
        body: JSON.stringify({ oldPassword, newPassword: 'Nouveau12' }),
      })
    await withFrozenClock(async () => {
      await expectError(await changePassword('Mauvais12'), 400, 'BAD_OLD_PASSWORD')
      await expectError(await passkeyOptions.prove(who, { code: '123456' }), 400, 'MFA_CODE_INVALID')
      await expectError(await newCodes.prove(who, WRONG), 400, 'BAD_OLD_PASSWORD')
      await expectError(await removeTotp.prove(who, { code: '654321' }), 400, 'MFA_CODE_INVALID')
      await expectError(await removePasskey.prove(who, WRONG), 400, 'BAD_OLD_PASSWORD')
      await expectError(await passkeyOptions.prove(who, { motDePasse: who.password }), 429, 'TOO_MANY_ATTEMPTS')
      await expectError(await changePassword(who.password), 429, 'TOO_MANY_ATTEMPTS')
    })
  })
})
