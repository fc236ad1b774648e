import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  type Caller,
  callerOf,
  changedBeforeWrite,
  createOrganisation,
  currentPost,
  db,
  expectError,
  post,
} from '../helpers'

/**
 * README, "A second factor required of administrators": while the security settings ask it, an administrator without a
 * second factor changes nothing. The request's check refuses them (403 MFA_ENROLMENT_REQUIRED); the setting turned on
 * after that check and before the write is caught by the write's own condition (`liveAdmin`, services/core/actor.ts),
 * which reads the setting as the write runs.
 */

const required = (on: boolean) =>
  db()
    .updateTable('parametre_securite')
    .set({ mfa_requis_administrateurs: on ? 1 : 0 })
    .where('id', '=', 1)
    .execute()

/** A read-only account of Direction Nord: no proof asked, so the request is one check and one write. */
const account = (nom: string) => ({ nom, structure: { id: 2 }, admin: false, scopes: ['api'] })
const create = (who: Caller, nom: string, init: Parameters<typeof post>[2] = {}) =>
  post('/rest/bd/compteService', account(nom), { token: who.token, ...init })
const accountsNamed = (nom: string) => db().selectFrom('compte_service').select('id').where('nom', '=', nom).execute()
const creationsOf = (nom: string) =>
  db()
    .selectFrom('log')
    .select('id')
    .where('nom_log', '=', 'COMPTE_SERVICE_CREATION')
    .where('commentaire', 'like', `${nom} (%`)
    .execute()

let nord: Caller

beforeAll(async () => {
  await createOrganisation()
  // A delegated administrator of Direction Nord, with neither an app nor a passkey.
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
})

afterEach(() => required(false))

describe('a service account made by an administrator without a second factor', () => {
  it('is made while the setting is off', async () => {
    expect((await create(nord, 'Passerelle permise')).status).toBe(201)
    expect(await accountsNamed('Passerelle permise')).toHaveLength(1)
  })

  it('is refused by the check while the setting is on: 403 MFA_ENROLMENT_REQUIRED, nothing written', async () => {
    await required(true)
    await expectError(await create(nord, 'Passerelle refusée'), 403, 'MFA_ENROLMENT_REQUIRED')
    expect(await accountsNamed('Passerelle refusée')).toEqual([])
    expect(await creationsOf('Passerelle refusée')).toEqual([])
  })

  it('is refused by the write when the setting is turned on after the check: 403, no account, no history entry', async () => {
    const nom = 'Passerelle en vol'
    const response = await create(nord, nom, { env: { DB: changedBeforeWrite(() => required(true)) } })
    // The write's condition fails as a whole; the service answers as it does for a scope lost in between.
    await expectError(response, 403, 'FORBIDDEN')
    expect(await accountsNamed(nom)).toEqual([])
    expect(await creationsOf(nom)).toEqual([])
  })
})
