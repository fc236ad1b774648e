import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { backgroundContext } from '../../../worker-api/lib/context'
import { reviewDeadlines } from '../../../worker-api/services/governance/review-deadlines'
import {
  type Caller,
  callerOf,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
} from '../helpers'
import { reviewKit } from '../review-kit'

/**
 * Access reviews, each guard on its own: what a delegated administrator may confirm in a campaign over the whole tree,
 * the day a due date is applied, and the Worker's minute cron applying it. The organisation of helpers.ts: Groupe (1) ›
 * Direction Nord (2) › Agence Lille (4), Direction Sud (3).
 */

const { queue, campaign, stateOf, itemsOf, decide, opened } = reviewKit('CONSERVER')
const rowOf = (itemId: number) =>
  db().selectFrom('revue_element').selectAll().where('id', '=', itemId).executeTakeFirstOrThrow()
const entriesAbout = (nom: string, login: string) =>
  db()
    .selectFrom('log')
    .select('nom_log')
    .where('type_log', '=', 'REVUE_ACCES')
    .where('commentaire', 'like', `${nom}% : ${login}, %`)
    .execute()
const setDueDate = (id: number, echeance: string) =>
  db().updateTable('revue').set({ echeance }).where('id', '=', id).execute()

let sud: Caller
let root: Caller
let lilleAgent: { id: number; login: string }
let sudAgent: { id: number; login: string }

beforeAll(async () => {
  await createOrganisation()
  sud = await callerOf({ admin: true, postes: [currentPost(3, 3)] })
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
  lilleAgent = await createUser({ postes: [currentPost(4, 2)] })
  sudAgent = await createUser({ postes: [currentPost(3, 3)] })
})

describe("a delegated administrator in the root's campaign", () => {
  // Ending a post also needs a user the reviewer manages, which refuses it on its own; confirming changes nobody, and
  // only the item's structure lying in the reviewer's scope refuses it.
  it('confirms no post outside their sub-tree: 409 REVUE_DEJA_DECIDEE naming it, the item left to review, no entry', async () => {
    const body = campaign(1)
    const id = await opened(root, body)
    const { items } = await itemsOf(root, id)
    const lille = items.find((item) => item.utilisateur.id === lilleAgent.id)
    const inSud = items.find((item) => item.utilisateur.id === sudAgent.id)
    if (!lille || !inSud) throw new Error('items missing')
    const refused = await expectError(
      await decide(sud, id, [{ element: { id: lille.id }, decision: 'CONFIRMER' }]),
      409,
      'REVUE_DEJA_DECIDEE',
    )
    expect(refused.attributs).toEqual([[lille.id]])
    expect(await rowOf(lille.id)).toMatchObject({ etat: 'A_REVOIR', decideur_id: null })
    expect(await entriesAbout(body.nom, lilleAgent.login)).toEqual([])
    // The same confirmation of a post of Direction Sud is taken.
    const taken = await decide(sud, id, [{ element: { id: inSud.id }, decision: 'CONFIRMER' }])
    expect(taken.status).toBe(200)
    expect(await taken.json()).toEqual({ decides: [inSud.id], dejaDecides: [] })
  })
})

describe('the due date', () => {
  it('is applied the day after it, not on it: on the due date the campaign stays open and takes decisions', async () => {
    const id = await opened(sud, campaign(3))
    const item = (await itemsOf(sud, id)).items.find((candidate) => candidate.utilisateur.id === sudAgent.id)
    if (!item) throw new Error('no item')
    await setDueDate(id, isoDate(0))
    await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
    expect((await stateOf(id)).etat).toBe('OUVERTE')
    expect(queue.waiting).toEqual([])
    const decided = await decide(sud, id, [{ element: { id: item.id }, decision: 'CONFIRMER' }])
    expect(decided.status).toBe(200)
    expect(await decided.json()).toEqual({ decides: [item.id], dejaDecides: [] })
    // The day after: the cron starts applying it, on the queue.
    await setDueDate(id, isoDate(-1))
    await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
    expect((await stateOf(id)).etat).toBe('ECHEANCE')
    expect(queue.waiting.map((message) => message.body)).toEqual([
      { kind: 'review-step', revueId: id, etape: 'echeance', depuis: 0 },
    ])
    await queue.drain()
    expect((await stateOf(id)).etat).toBe('ECHUE')
  })

  it("is applied by the Worker's minute cron trigger (server.ts `scheduled`): a campaign past it goes to the queue, which applies it", async () => {
    const id = await opened(sud, campaign(3))
    await setDueDate(id, isoDate(-1))
    await queue.cron()
    expect((await stateOf(id)).etat).toBe('ECHEANCE')
    expect(queue.waiting.map((message) => message.body)).toEqual([
      { kind: 'review-step', revueId: id, etape: 'echeance', depuis: 0 },
    ])
    await queue.drain()
    expect((await stateOf(id)).etat).toBe('ECHUE')
  })
})
