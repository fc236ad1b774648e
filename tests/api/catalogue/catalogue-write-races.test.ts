import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, changedBeforeWrite, createOrganisation, createUser, currentPost, db, sessionFor } from '../helpers'

/**
 * README ("the catalogue and the templates … refuse anyone else with 403") and the catalogue's
 * writes: each is "written only while the caller is still a root administrator" — the condition is
 * part of the write, so a root administrator demoted between the write's read and its write changes
 * nothing. The demotion runs at that very moment (`changedBeforeWrite`).
 */

beforeAll(createOrganisation)

/** The ways a root administrator stops being one. */
const DEMOTIONS: Record<string, (adminId: number) => Promise<unknown>> = {
  'the admin flag taken': (adminId) =>
    env.DB.prepare('update utilisateur set admin = 0 where id = ?').bind(adminId).run(),
  'the post on the root ended': (adminId) =>
    env.DB.prepare("update poste set date_debut = '1999-01-01', date_fin = '2000-01-01' where utilisateur_id = ?")
      .bind(adminId)
      .run(),
}

const application = (libelle: string, fonction: number) => ({
  libelle,
  icone: 'truck',
  url: 'https://suivi.example.test/',
  actif: true,
  protocole: 'CODE',
  fonctions: [{ id: fonction }],
})

/** An application of the catalogue, its name, its grants, and the audit entries an administrator wrote. */
const stateOf = async (libelle: string, adminId: number) => ({
  applications: await db()
    .selectFrom('application as a')
    .leftJoin('fonction_application as fa', 'fa.application_id', 'a.id')
    .select(['a.id', 'a.libelle', 'a.actif', 'fa.fonction_id'])
    .where('a.libelle', 'like', `${libelle}%`)
    .orderBy('a.id')
    .execute(),
  entries: await db().selectFrom('log').select('nom_log').where('utilisateur_id', '=', adminId).execute(),
})

/** An application made directly in D1, granted to the agents' function. */
async function existing(libelle: string) {
  const { id } = await db()
    .insertInto('application')
    .values({ libelle, icone: 'truck', url: 'https://suivi.example.test/' })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db().insertInto('fonction_application').values({ fonction_id: 2, application_id: id }).execute()
  return id
}

const WRITES: Record<string, (libelle: string) => Promise<{ method: string; path: string; body?: unknown }>> = {
  'POST (a new application)': async (libelle) => ({
    method: 'POST',
    path: '/rest/bd/application',
    body: application(libelle, 2),
  }),
  'PUT (renamed, switched off, granted elsewhere)': async (libelle) => ({
    method: 'PUT',
    path: '/rest/bd/application',
    body: { ...application(`${libelle} renommée`, 3), actif: false, id: await existing(libelle) },
  }),
  'DELETE (the application)': async (libelle) => ({
    method: 'DELETE',
    path: `/rest/bd/application/${await existing(libelle)}`,
  }),
}

describe('a catalogue write racing its caller’s demotion', () => {
  for (const [write, request] of Object.entries(WRITES)) {
    for (const [demotion, demote] of Object.entries(DEMOTIONS)) {
      it(`${write}, ${demotion} after its read: 403, nothing written, no audit entry`, async () => {
        const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
        const { accessToken } = await sessionFor(admin.id)
        const libelle = `Suivi ${admin.id}`
        const { method, path, body } = await request(libelle)
        const before = await stateOf(libelle, admin.id)
        let demoted = false
        const response = await call(path, {
          method,
          token: accessToken,
          body: body === undefined ? undefined : JSON.stringify(body),
          env: {
            DB: changedBeforeWrite(async () => {
              demoted = true
              await demote(admin.id)
            }),
          },
        })
        // The read found a root administrator; the demotion came before the write.
        expect(demoted).toBe(true)
        expect(response.status).toBe(403)
        expect(await stateOf(libelle, admin.id)).toEqual(before)
      })
    }
  }
})
