import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { backgroundContext } from '../../../worker-api/lib/context'
import { reviewDeadlines } from '../../../worker-api/services/governance/review-deadlines'
import { type Caller, call, callerOf, createOrganisation, createUser, currentPost, db, isoDate } from '../helpers'
import { reviewKit } from '../review-kit'

/**
 * A campaign's due date ends only what its author could have ended that day (README, "Access reviews"): their own post,
 * a user they do not manage (one who also holds a post outside their sub-tree) and everything once they no longer
 * administer the sub-tree are kept, and the report and the history say so. The organisation of helpers.ts: Groupe (1)
 * › Direction Nord (2) › Agence Lille (4), Direction Sud (3).
 */

const { queue, campaign, itemsOf, opened, endOf } = reviewKit('TERMINER')

let root: Caller

beforeAll(async () => {
  await createOrganisation()
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
})

/** Moves the campaign's due date to yesterday and lets the cron and the queue apply it. */
async function applyDueDate(id: number) {
  const due = isoDate(-1)
  await db().updateTable('revue').set({ echeance: due }).where('id', '=', id).execute()
  await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
  await queue.drain()
  expect((await db().selectFrom('revue').select('etat').where('id', '=', id).executeTakeFirstOrThrow()).etat).toBe(
    'ECHUE',
  )
  return due
}

const dueEntry = async (nom: string) =>
  (
    await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'REVUE_ECHEANCE')
      .where('commentaire', 'like', `${nom} :%`)
      .executeTakeFirstOrThrow()
  ).commentaire

/** The report's lines (as the root reads it) of the logins given, by login. */
async function reportLines(id: number, logins: string[]) {
  const text = await (await call(`/rest/bd/revue/${id}/rapport.csv`, { token: root.token })).text()
  const lines = text.replace('\uFEFF', '').trim().split('\r\n')
  return Object.fromEntries(logins.map((login) => [login, lines.find((line) => line.split(';')[1] === login)]))
}

describe('the due date of a campaign that ends the posts nobody reviewed', () => {
  it('ends what its author manages, and keeps their own post and a user with a post outside their sub-tree', async () => {
    const nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
    const managed = await createUser({ postes: [currentPost(4, 2)] })
    // Also at Direction Sud: managed from above, as the users' page shows it to Nord (read-only).
    const shared = await createUser({ postes: [currentPost(4, 2), currentPost(3, 3)] })
    const body = campaign(2)
    const id = await opened(nord, body)
    const { items } = await itemsOf(nord, id)
    const postOf = (userId: number) => items.find((item) => item.utilisateur.id === userId)?.poste.id ?? null
    const due = await applyDueDate(id)

    expect(await endOf(postOf(managed.id))).toBe(due)
    expect(await endOf(postOf(shared.id))).not.toBe(due)
    expect(await endOf(postOf(nord.id))).not.toBe(due)
    const lines = await reportLines(id, [managed.login, shared.login, nord.login])
    expect(lines[managed.login]).toContain(';Terminé;')
    for (const kept of [shared.login, nord.login]) {
      expect(lines[kept]).toContain(';Confirmé;;')
      expect(lines[kept]).toContain(
        'Échéance (non revu) : conservé, l’auteur de la campagne ne pouvait pas le terminer',
      )
    }
    expect(await dueEntry(body.nom)).toMatch(/postes non revus terminés, 2 conservés : l’auteur de la campagne/)
    // As the reviewer's page says it, in both languages' words from the same state.
    const { items: after } = await itemsOf(root, id)
    expect(after.find((item) => item.utilisateur.id === shared.id)).toMatchObject({
      etat: 'CONFIRME',
      decision: { automatique: true },
    })
  })

  it('keeps every post once its author no longer administers the sub-tree', async () => {
    const nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
    const managed = await createUser({ postes: [currentPost(4, 2)] })
    const body = campaign(2)
    const id = await opened(nord, body)
    const { items } = await itemsOf(nord, id)
    const post = items.find((item) => item.utilisateur.id === managed.id)?.poste.id ?? null
    await db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', nord.id).execute()
    const due = await applyDueDate(id)

    expect(await endOf(post)).not.toBe(due)
    const { items: after } = await itemsOf(root, id)
    expect(after.filter((item) => item.etat === 'TERMINE')).toEqual([])
    expect(await dueEntry(body.nom)).toContain(`${after.length} conservés`)
  })
})
