import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, callerOf, createOrganisation, currentPost, db, expectError } from '../helpers'

/**
 * The months of history D1 keeps before a month is archived to R2 (issue 64): `historiqueMoisEnLigne` of
 * rest/bd/parametres/securite, 13 unless a root administrator changes it, never fewer than 3.
 */

let root: Caller
let sud: Caller

beforeAll(async () => {
  await createOrganisation()
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
  sud = await callerOf({ admin: true, postes: [currentPost(3, 3)] })
})

const put = (caller: Caller, body: unknown) =>
  call('/rest/bd/parametres/securite', { method: 'PUT', token: caller.token, body: JSON.stringify(body) })
const kept = async () =>
  (
    await db()
      .selectFrom('parametre_securite')
      .select('historique_mois_en_ligne')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow()
  ).historique_mois_en_ligne

describe('the months of history kept in the database', () => {
  it('are 13 until changed, as the README says, and read by administrators', async () => {
    const answer = await call('/rest/bd/parametres/securite', { token: sud.token })
    expect(answer.status).toBe(200)
    expect(await answer.json()).toMatchObject({ historiqueMoisEnLigne: 13 })
  })

  it('are changed by a root administrator only, within 3 to 120 whole months, with its history entry', async () => {
    for (const months of [2, 121, 6.5, 0, -1]) {
      const refused = await expectError(await put(root, { historiqueMoisEnLigne: months }), 400, 'VALIDATION_FAILED')
      expect(refused.attributs, String(months)).toContainEqual(
        expect.objectContaining({ field: 'historiqueMoisEnLigne', message: 'validation.historyMonths' }),
      )
    }
    await expectError(await put(sud, { historiqueMoisEnLigne: 6 }), 403, 'FORBIDDEN')
    expect(await kept()).toBe(13)
    try {
      const saved = await put(root, { historiqueMoisEnLigne: 3 })
      expect(saved.status).toBe(200)
      expect(await saved.json()).toMatchObject({ historiqueMoisEnLigne: 3, demandeDureeMaxJours: 90 })
      expect(await kept()).toBe(3)
      const entry = await db()
        .selectFrom('log')
        .select('commentaire')
        .where('nom_log', '=', 'PARAMETRES_SECURITE')
        .where('utilisateur_id', '=', root.id)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow()
      expect(entry.commentaire).toBe('historiqueMoisEnLigne = 3')
    } finally {
      expect((await put(root, { historiqueMoisEnLigne: 13 })).status).toBe(200)
    }
  })

  it('are never fewer than 3 in the database itself', async () => {
    await expect(
      db().updateTable('parametre_securite').set({ historique_mois_en_ligne: 2 }).where('id', '=', 1).execute(),
    ).rejects.toThrow(/CHECK constraint failed/)
  })
})
