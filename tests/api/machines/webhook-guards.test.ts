import { beforeAll, describe, expect, it } from 'vitest'
import type { WebhookCreated } from '../../../worker-api/contract/machines/webhooks'
import { call, changedBeforeWrite, createOrganisation, createUser, currentPost, db, post, sessionFor } from '../helpers'

/**
 * The checks that guard a webhook's writes hold inside each write (issue 65): an administrator who loses their rights
 * between the request's read and its write (another administrator acting at that moment) changes nothing — no
 * subscription made, changed, renewed or deleted, no delivery sent again, and no history entry claiming otherwise.
 */

let nordId: number
let nord: string

beforeAll(async () => {
  await createOrganisation()
  const admin = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  nordId = admin.id
  nord = (await sessionFor(admin.id)).accessToken
})

/** The Direction Nord's administrator demoted by another, just before the request's write. */
const demotedBeforeWrite = () => ({
  DB: changedBeforeWrite(() => db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', nordId).execute(), {
    atBatch: 2,
  }),
})
const restore = () => db().updateTable('utilisateur').set({ admin: 1 }).where('id', '=', nordId).execute()

let sequence = 0
async function subscription() {
  const response = await post(
    '/rest/bd/webhook',
    { url: `https://rh.example/garde/${++sequence}`, evenements: ['utilisateur.*'], structure: { id: 4 } },
    { token: nord },
  )
  expect(response.status).toBe(201)
  return (await response.json()) as WebhookCreated
}
const stored = (id: number) => db().selectFrom('webhook').selectAll().where('id', '=', id).executeTakeFirst()
const entries = async (action: string) =>
  (await db().selectFrom('log').select('id').where('nom_log', '=', action).execute()).length

describe('a webhook write by an administrator demoted meanwhile', () => {
  it('makes no subscription', async () => {
    const before = await entries('WEBHOOK_CREATION')
    const response = await post(
      '/rest/bd/webhook',
      { url: 'https://rh.example/garde/jamais', evenements: ['poste.*'], structure: { id: 4 } },
      { token: nord, env: demotedBeforeWrite() },
    )
    await restore()
    expect(response.status).toBe(403)
    expect(
      await db().selectFrom('webhook').select('id').where('url', '=', 'https://rh.example/garde/jamais').execute(),
    ).toEqual([])
    expect(await entries('WEBHOOK_CREATION')).toBe(before)
  })

  it('changes, renews and deletes nothing', async () => {
    const hook = await subscription()
    const kept = await stored(hook.id)
    const writes: [string, string, unknown][] = [
      ['PATCH', `/rest/bd/webhook/${hook.id}`, { description: 'Changée', actif: false }],
      ['POST', `/rest/bd/webhook/${hook.id}/secret`, { revoquerAncien: true }],
      ['DELETE', `/rest/bd/webhook/${hook.id}`, undefined],
    ]
    for (const [method, path, body] of writes) {
      const logged = await Promise.all(['WEBHOOK_MODIFICATION', 'WEBHOOK_SUPPRESSION'].map(entries))
      const response = await call(path, {
        method,
        token: nord,
        env: demotedBeforeWrite(),
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      await restore()
      expect([403, 404], `${method} ${path}`).toContain(response.status)
      expect(await stored(hook.id), `${method} ${path}`).toEqual(kept)
      expect(await Promise.all(['WEBHOOK_MODIFICATION', 'WEBHOOK_SUPPRESSION'].map(entries))).toEqual(logged)
    }
  })

  it('sends no delivery again', async () => {
    const hook = await subscription()
    const event = await db()
      .insertInto('evenement')
      .values({
        type: 'utilisateur.modifie',
        date: new Date().toISOString(),
        acteur: '{"type":"systeme"}',
        sujet: `{"type":"utilisateur","id":${nordId}}`,
        sujet_cle: `utilisateur:${nordId}`,
        data: '{}',
        chemins: '["/1/2/4/"]',
        domain: 'http://localhost:8787',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    // Given up after its attempts: what "send again" would start over.
    const given = await db()
      .updateTable('webhook_livraison')
      .set({ attempts: 8, abandoned_at: new Date().toISOString() })
      .where('webhook_id', '=', hook.id)
      .where('evenement_id', '=', event.id)
      .returning('id')
      .executeTakeFirstOrThrow()
    const before = await entries('WEBHOOK_RENVOI')
    const response = await call(`/rest/bd/webhook/${hook.id}/livraisons/${given.id}/renvoi`, {
      method: 'POST',
      token: nord,
      env: demotedBeforeWrite(),
    })
    await restore()
    expect([403, 404]).toContain(response.status)
    const row = await db()
      .selectFrom('webhook_livraison')
      .select(['attempts', 'abandoned_at'])
      .where('id', '=', given.id)
      .executeTakeFirstOrThrow()
    expect(row.attempts).toBe(8)
    expect(row.abandoned_at).not.toBeNull()
    expect(await entries('WEBHOOK_RENVOI')).toBe(before)
  })
})
