import { beforeAll, describe, expect, it } from 'vitest'
import { registeredAuthenticator } from '../authenticator'
import { api, okBody } from '../client'
import { createOrganisation, createUser, currentPost, db, sessionFor } from '../helpers'

/**
 * README, "A second factor required of administrators": while `mfaRequisAdministrateurs` is on, an
 * administrator without a second factor is held back until they enrol one, and "`GET rest/bd/session`
 * says `mfaEnrolementRequis` for such an administrator" (the pages take them to enrolment by it).
 */

beforeAll(createOrganisation)

const required = (on: boolean) =>
  db()
    .updateTable('parametre_securite')
    .set({ mfa_requis_administrateurs: on ? 1 : 0 })
    .where('id', '=', 1)
    .execute()

async function signedIn(options: Parameters<typeof createUser>[0]) {
  const user = await createUser(options)
  return { ...user, token: (await sessionFor(user.id)).accessToken }
}

async function enrolmentRequired(token: string) {
  return (await okBody(api(token).rest.bd.session.$get())).mfaEnrolementRequis
}

const ADMIN = { admin: true, postes: [currentPost(4, 2)] }

describe('GET rest/bd/session: mfaEnrolementRequis', () => {
  it('is true for an administrator without a second factor while the setting is on, an app waiting for its first code included', async () => {
    const admin = await signedIn(ADMIN)
    await required(false)
    expect(await enrolmentRequired(admin.token)).toBe(false)
    await required(true)
    expect(await enrolmentRequired(admin.token)).toBe(true)
    // An enrolment started, not confirmed by a first code: no factor yet.
    await db()
      .insertInto('mfa_totp')
      .values({
        utilisateur_id: admin.id,
        secret: null,
        confirmed_at: null,
        last_step: 0,
        pending_secret: 'JBSWY3DPEHPK3PXP',
        pending_created_at: new Date().toISOString(),
      })
      .execute()
    expect(await enrolmentRequired(admin.token)).toBe(true)
  })

  it('is false once the administrator has an app or a passkey, and for a user who is no administrator', async () => {
    await required(true)
    const withApp = await signedIn(ADMIN)
    await db()
      .insertInto('mfa_totp')
      .values({
        utilisateur_id: withApp.id,
        secret: 'JBSWY3DPEHPK3PXP',
        confirmed_at: new Date().toISOString(),
        last_step: 0,
        pending_secret: null,
        pending_created_at: null,
      })
      .execute()
    expect(await enrolmentRequired(withApp.token)).toBe(false)

    // Held back, the administrator enrols a passkey: the flag goes.
    const withPasskey = await signedIn(ADMIN)
    expect(await enrolmentRequired(withPasskey.token)).toBe(true)
    await registeredAuthenticator(withPasskey.token)
    expect(await enrolmentRequired(withPasskey.token)).toBe(false)

    const user = await signedIn({ postes: [currentPost(4, 2)] })
    expect(await enrolmentRequired(user.token)).toBe(false)
  })
})
