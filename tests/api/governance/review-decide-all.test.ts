import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import {
  type Caller,
  callerOf,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  post,
  wireDate,
} from '../helpers'
import { reviewKit } from '../review-kit'

/**
 * Deciding every item a filter keeps (`POST rest/bd/revue/{id}/decisions/tous`), as a reviewer of 1 590 posts does
 * rather than ticking 50 a page: only what is theirs to decide, 2 000 at most a call (README, "Access reviews"), each
 * with its history entry. The organisation of helpers.ts: Groupe (1) › Direction Nord (2) › Agence Lille (4), Direction
 * Sud (3).
 */

const { campaign, itemsOf, opened, endOf } = reviewKit('CONSERVER')
const decideAll = (who: Caller, id: number, body: Record<string, unknown>) =>
  post(`/rest/bd/revue/${id}/decisions/tous`, body, { token: who.token })
const states = async (id: number) =>
  Object.fromEntries(
    (
      await db().selectFrom('revue_element').select(['utilisateur_id', 'etat']).where('revue_id', '=', id).execute()
    ).map((row) => [row.utilisateur_id, row.etat]),
  )
const entriesOf = (nom: string) =>
  db()
    .selectFrom('log')
    .select(['nom_log', 'commentaire', 'utilisateur_id'])
    .where('type_log', '=', 'REVUE_ACCES')
    .where('nom_log', 'in', ['REVUE_CONFIRMATION', 'REVUE_FIN_POSTE'])
    .where('commentaire', 'like', `${nom} : %`)
    .execute()

let root: Caller
let nord: Caller
let lilleA: { id: number; login: string }
let lilleB: { id: number; login: string }
let sudAgent: { id: number; login: string }
/** An agent of Agence Lille who also holds a post in Direction Sud: Direction Nord's administrator does not manage them. */
let both: { id: number; login: string }

beforeAll(async () => {
  await createOrganisation()
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  lilleA = await createUser({ postes: [currentPost(4, 2)] })
  lilleB = await createUser({ postes: [currentPost(4, 2)] })
  await db().updateTable('utilisateur').set({ nom: 'Arnaud' }).where('id', '=', lilleA.id).execute()
  sudAgent = await createUser({ postes: [currentPost(3, 3)] })
  both = await createUser({ postes: [currentPost(4, 2), currentPost(3, 3)] })
})

describe('deciding every item a filter keeps', () => {
  it("confirms what is the delegated administrator's in the root's campaign, not their own post nor Direction Sud's, one entry each", async () => {
    const body = campaign(1)
    const id = await opened(root, body)
    const answer = await decideAll(nord, id, { decision: 'CONFIRMER' })
    expect(answer.status).toBe(200)
    // Agence Lille's three agents (one of them also in Direction Sud: confirming changes nobody); not nord's own post.
    expect(await answer.json()).toEqual({ decides: 3, restants: 0 })
    const after = await states(id)
    for (const user of [lilleA, lilleB, both]) expect(after[user.id]).toBe('CONFIRME')
    expect(after[nord.id]).toBe('A_REVOIR')
    expect(after[sudAgent.id]).toBe('A_REVOIR')
    expect(after[root.id]).toBe('A_REVOIR')
    const entries = await entriesOf(body.nom)
    expect(entries).toHaveLength(3)
    expect(entries.every((entry) => entry.nom_log === 'REVUE_CONFIRMATION' && entry.utilisateur_id === nord.id)).toBe(
      true,
    )
    // Nothing left that is theirs: a second call decides nothing.
    expect(await (await decideAll(nord, id, { decision: 'CONFIRMER' })).json()).toEqual({ decides: 0, restants: 0 })
  })

  it('reaches nothing outside the sub-tree when a structure outside it is named', async () => {
    const id = await opened(root, campaign(1))
    expect(await (await decideAll(nord, id, { decision: 'CONFIRMER', structure: 3 })).json()).toEqual({
      decides: 0,
      restants: 0,
    })
    expect((await states(id))[sudAgent.id]).toBe('A_REVOIR')
  })

  it('ends only the posts of users the administrator manages, on the day given; the others stay to review, counted', async () => {
    const body = campaign(2)
    const id = await opened(root, body)
    const day = isoDate(20)
    const answer = await decideAll(nord, id, {
      decision: 'TERMINER',
      structure: 4,
      dateFin: wireDate(day),
      commentaire: 'Réorganisation',
    })
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ decides: 2, restants: 1 })
    const after = await states(id)
    expect([after[lilleA.id], after[lilleB.id], after[both.id]]).toEqual(['TERMINE', 'TERMINE', 'A_REVOIR'])
    const { items } = await itemsOf(root, id)
    const ended = items.filter((item) => item.etat === 'TERMINE')
    for (const item of ended) expect(await endOf(item.poste.id)).toBe(day)
    const entries = await entriesOf(body.nom)
    expect(entries.map((entry) => entry.nom_log)).toEqual(['REVUE_FIN_POSTE', 'REVUE_FIN_POSTE'])
    expect(entries[0]?.commentaire).toContain('Réorganisation')
    // The root administrator manages them: the one left is theirs.
    expect(await (await decideAll(root, id, { decision: 'TERMINER', structure: 4 })).json()).toEqual({
      decides: 1,
      restants: 0,
    })
  })

  it('keeps to the words searched, and says how many the search keeps still to review', async () => {
    const id = await opened(root, campaign(2))
    expect(await (await decideAll(nord, id, { decision: 'CONFIRMER', q: 'arnaud' })).json()).toEqual({
      decides: 1,
      restants: 0,
    })
    const after = await states(id)
    expect([after[lilleA.id], after[lilleB.id]]).toEqual(['CONFIRME', 'A_REVOIR'])
  })

  it('refuses a search past 100 characters, an end in the past, an unknown decision: 400 on the field', async () => {
    const id = await opened(root, campaign(2))
    const field = async (body: Record<string, unknown>) =>
      (
        (await expectError(await decideAll(nord, id, body), 400, 'VALIDATION_FAILED')).attributs as { field: string }[]
      )[0]?.field
    expect(await field({ decision: 'CONFIRMER', q: 'x'.repeat(101) })).toBe('q')
    expect(await field({ decision: 'TERMINER', dateFin: wireDate(isoDate(-1)) })).toBe('dateFin')
    expect(await field({ decision: 'GARDER' })).toBe('decision')
    // Many words: the first six are looked for, never a 500.
    const many = await decideAll(nord, id, { decision: 'CONFIRMER', q: 'a b c d e f g h i j k l m n o p' })
    expect(many.status).toBe(200)
    expect((await states(id))[lilleA.id]).toBe('A_REVOIR')
  })

  it('takes no decision in a campaign past its due date: 409 REVUE_FERMEE', async () => {
    const id = await opened(root, campaign(2))
    await db()
      .updateTable('revue')
      .set({ echeance: isoDate(-1) })
      .where('id', '=', id)
      .execute()
    await expectError(await decideAll(nord, id, { decision: 'CONFIRMER' }), 409, 'REVUE_FERMEE')
    expect((await states(id))[lilleA.id]).toBe('A_REVOIR')
  })

  it('lets two administrators deciding at once decide each item once', async () => {
    const body = campaign(2)
    const id = await opened(root, body)
    const decided = (who: Caller) =>
      okBody(
        api(who.token).rest.bd.revue[':id'].decisions.tous.$post({
          param: { id },
          json: { decision: 'CONFIRMER', structure: 4 },
        }),
      )
    const [first, second] = await Promise.all([decided(nord), decided(root)])
    expect(first.decides + second.decides).toBe(3)
    expect(await entriesOf(body.nom)).toHaveLength(3)
  })

  it('decides 2 000 items a call (README), the rest counted for the next call', async () => {
    const body = campaign(4)
    const id = await opened(root, body)
    // 2 001 more items of posts gone since the opening: theirs to confirm, nobody's post changed.
    await sql`insert into revue_element (revue_id, poste_id, utilisateur_id, structure_id, chemin, login, nom, prenom,
        structure_nom, fonction_libelle, date_debut, date_fin)
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 2001)
      select ${id}, null, null, 4, '/1/2/4/', 'parti' || i, 'Parti', 'Agent', 'Agence Lille', 'Agent de quai',
        ${isoDate(-30)}, ${isoDate(30)} from n`.execute(db())
    await db()
      .updateTable('revue_progression')
      .set({ total: sql`total + 2001` })
      .where('revue_id', '=', id)
      .where('structure_id', '=', 4)
      .execute()
    expect(await (await decideAll(nord, id, { decision: 'CONFIRMER' })).json()).toEqual({
      decides: 2000,
      restants: 2004 - 2000,
    })
    expect(await (await decideAll(nord, id, { decision: 'CONFIRMER' })).json()).toEqual({ decides: 4, restants: 0 })
    expect(await entriesOf(body.nom)).toHaveLength(2004)
  })
})
