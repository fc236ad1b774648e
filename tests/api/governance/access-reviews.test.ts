import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  REVIEW_BATCH,
  REVIEW_STRUCTURES_SHOWN,
  type reviewDetailQuery,
} from '../../../worker-api/contract/governance/access-reviews'
import { backgroundContext } from '../../../worker-api/lib/context'
import { reviewDeadlines } from '../../../worker-api/services/governance/review-deadlines'
import { OPENING_WINDOW } from '../../../worker-api/services/governance/review-runs'
import { api, okBody } from '../client'
import {
  type Caller,
  call,
  callerOf,
  changedBeforeWrite,
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
 * Access reviews (README, "Access reviews"): a campaign over a sub-tree makes every current post of it an item, written
 * on the queue a window of post ids per message; the administrators of each structure confirm or end them; at the due
 * date the cron hands the undecided to the queue, which keeps or ends them as the campaign said; closed, the report
 * stays. The organisation of helpers.ts: Groupe (1) › Direction Nord (2) › Agence Lille (4), Direction Sud (3).
 */

let nord: Caller
let sud: Caller
let root: Caller

const { queue, open, campaign, stateOf, itemsOf, decide, opened, endOf } = reviewKit('TERMINER')
/** Campaign `id` with its progress, as `who` reads it; with `query`'s elements=N, a page of its items too. */
const detailOf = (who: Caller, id: number, query: z.input<typeof reviewDetailQuery> = {}) =>
  okBody(api(who.token).rest.bd.revue[':id'].$get({ param: { id }, query }))
const entries = (nomLog: string) =>
  db().selectFrom('log').select(['utilisateur_id', 'commentaire']).where('nom_log', '=', nomLog).execute()

let lille: { id: number; login: string }[]
let former: { id: number }
let elsewhere: { id: number }

beforeAll(async () => {
  await createOrganisation()
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  sud = await callerOf({ admin: true, postes: [currentPost(3, 3)] })
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
  lille = await Promise.all([1, 2, 3].map(() => createUser({ postes: [currentPost(4, 2)] })))
  // Not items: a post over, one to come, a deleted user's, a post in Direction Sud.
  former = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-60), to: isoDate(-1) }] })
  await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(5), to: isoDate(60) }] })
  await createUser({ supprime: true, postes: [currentPost(4, 2)] })
  elsewhere = await createUser({ postes: [currentPost(3, 3)] })
  // The last sign-in the history knows of one of them.
  await db()
    .insertInto('log')
    .values({
      date: new Date().toISOString(),
      utilisateur_id: lille[0]?.id ?? 0,
      type_log: 'CONNEXION',
      nom_log: 'CONNEXION',
    })
    .execute()
})

describe('opening', () => {
  it('makes every current post of the sub-tree an item, on the queue, one window of post ids per message', async () => {
    // A post far ahead in the ids: the opening goes through three windows.
    const far = await createUser()
    await db()
      .insertInto('poste')
      .values({
        id: OPENING_WINDOW * 2 + 500,
        utilisateur_id: far.id,
        structure_id: 4,
        fonction_id: 2,
        date_debut: isoDate(-10),
        date_fin: isoDate(10),
      })
      .execute()
    const sent = queue.delivered.length
    const id = await opened(nord, campaign(2))
    expect(queue.delivered.slice(sent).map((message) => message.body.depuis)).toEqual([
      0,
      OPENING_WINDOW,
      OPENING_WINDOW * 2,
    ])
    const { items } = await itemsOf(root, id)
    const users = items.map((item) => item.utilisateur.id)
    for (const user of [...lille, far, nord]) expect(users).toContain(user.id)
    expect(users).not.toContain(former.id)
    expect(users).not.toContain(elsewhere.id)
    expect(items).toHaveLength(5)
    expect((await stateOf(id)).elements).toBe(5)
    expect(await entries('REVUE_OUVERTURE')).toContainEqual(expect.objectContaining({ utilisateur_id: nord.id }))
    // A message delivered twice writes once.
    await queue.env.JOBS.send({ kind: 'review-step', revueId: id, etape: 'ouverture', depuis: 0 })
    await queue.drain()
    expect((await itemsOf(root, id)).items).toHaveLength(5)
    await db().deleteFrom('poste').where('utilisateur_id', '=', far.id).execute()
  })

  it('is for a structure of the caller’s scope, due after today and within a year', async () => {
    await expectError(await open(sud, campaign(2)), 403, 'FORBIDDEN')
    const field = async (body: Record<string, unknown>) =>
      ((await expectError(await open(nord, body), 400, 'VALIDATION_FAILED')).attributs as { field: string }[])[0]?.field
    expect(await field(campaign(2, { echeance: wireDate(isoDate(0)) }))).toBe('echeance')
    expect(await field(campaign(2, { echeance: wireDate(isoDate(400)) }))).toBe('echeance')
    expect(await field(campaign(999))).toBe('structure.id')
  })

  it('is seen by the administrators of its sub-tree and above, with the progress of their scope', async () => {
    const id = await opened(nord, campaign(2))
    const seen = async (who: Caller) =>
      (await okBody(api(who.token).rest.bd.revue.$get({ query: {} }))).find((review) => review.id === id)
    expect((await seen(nord))?.progression).toEqual({ total: 4, confirmes: 0, termines: 0 })
    expect((await seen(root))?.progression).toEqual({ total: 4, confirmes: 0, termines: 0 })
    expect(await seen(sud)).toBeUndefined()
    await expectError(await call(`/rest/bd/revue/${id}`, { token: sud.token }), 404, 'NOT_FOUND')
    await expectError(await call(`/rest/bd/revue/${id}/elements`, { token: sud.token }), 404, 'NOT_FOUND')
    const detail = await detailOf(nord, id)
    expect(detail.structures.map((s) => [s.id, s.total])).toEqual([
      [2, 1],
      [4, 3],
    ])
  })
})

describe('progress', () => {
  it(`names the ${REVIEW_STRUCTURES_SHOWN} structures with the most posts left to review, in the tree's order`, async () => {
    // Direction Est: 101 agencies of one post each, and one more post in the first (two left to review there).
    const count = REVIEW_STRUCTURES_SHOWN + 1
    await db()
      .insertInto('structure')
      .values({ id: 700, nom: 'Direction Est', type_id: 2, parent_id: 1, path: '/1/700/' })
      .execute()
    const agencies = Array.from({ length: count }, (_, n) => 701 + n)
    // In rows of 10: D1 binds 100 values a statement at most.
    for (let at = 0; at < count; at += 10) {
      const some = agencies.slice(at, at + 10)
      await db()
        .insertInto('structure')
        .values(some.map((id) => ({ id, nom: `Agence Est ${id}`, type_id: 3, parent_id: 700, path: `/1/700/${id}/` })))
        .execute()
      await db()
        .insertInto('fonction')
        .values(some.map((id) => ({ id, libelle: 'Quai', structure_id: id })))
        .execute()
    }
    for (const id of [...agencies, 701]) await createUser({ postes: [currentPost(id, id)] })
    const review = await opened(root, campaign(700))
    const read = () => detailOf(root, review)
    const before = await read()
    expect(before.structuresTronquees).toBe(true)
    expect(before.structures).toHaveLength(REVIEW_STRUCTURES_SHOWN)
    expect(before.structures[0]).toMatchObject({ id: 701, total: 2 })
    expect(before.structures.map((s) => s.id)).toEqual([...before.structures.map((s) => s.id)].sort((a, b) => a - b))
    // One agency reviewed: it has none left, and makes room for the one the list left out.
    const { items } = await itemsOf(root, review, '&structure=702')
    expect((await decide(root, review, [{ element: { id: items[0]?.id }, decision: 'CONFIRMER' }])).status).toBe(200)
    const after = await read()
    expect(after.structures.map((s) => s.id)).not.toContain(702)
    expect(after.structures.map((s) => s.id)).toContain(agencies.at(-1))
    // A hundred users made one by one: more than the default five seconds on a busy machine.
  }, 30_000)
})

describe('reviewing', () => {
  it('lists each item with what the post opens and the user’s last sign-in, filtered and searched', async () => {
    const id = await opened(nord, campaign(2))
    const response = await api(nord.token).rest.bd.revue[':id'].elements.$get({
      param: { id },
      query: { page: 1, taille: 100, structure: 4 },
    })
    const items = await okBody(response)
    expect(response.headers.get('X-Total-Count')).toBe('3')
    const first = items.find((item) => item.utilisateur.id === lille[0]?.id)
    expect(first?.applications.sort()).toEqual(['Pesage', 'Yard dangereux'])
    expect(first?.utilisateur.derniereConnexion).not.toBeNull()
    const searched = await itemsOf(nord, id, `&q=${lille[1]?.login}`)
    expect(searched.items.map((item) => item.utilisateur.login)).toEqual([lille[1]?.login])
    expect(searched.total).toBe('1')
  })

  it('confirms and ends items (today by default), audited each, never the reviewer’s own post; decided is decided', async () => {
    const id = await opened(nord, campaign(2))
    const { items } = await itemsOf(nord, id)
    const [a, b] = items.filter((item) => item.utilisateur.id !== nord.id)
    const own = items.find((item) => item.utilisateur.id === nord.id)
    if (!a || !b || !own) throw new Error('items missing')
    const response = await decide(nord, id, [
      { element: { id: a.id }, decision: 'CONFIRMER', commentaire: 'Toujours au quai' },
      { element: { id: b.id }, decision: 'TERMINER', commentaire: 'Parti à Rouen' },
      { element: { id: own.id }, decision: 'CONFIRMER' },
    ])
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ decides: [a.id, b.id], dejaDecides: [own.id] })
    expect(await endOf(b.poste.id)).toBe(isoDate(0))
    expect(await entries('REVUE_CONFIRMATION')).toContainEqual(
      expect.objectContaining({ utilisateur_id: nord.id, commentaire: expect.stringContaining('Toujours au quai') }),
    )
    expect(await entries('REVUE_FIN_POSTE')).toContainEqual(
      expect.objectContaining({ utilisateur_id: nord.id, commentaire: expect.stringContaining('Parti à Rouen') }),
    )
    const detail = await detailOf(nord, id)
    expect(detail.progression).toEqual({ total: 4, confirmes: 1, termines: 1 })
    await expectError(
      await decide(root, id, [{ element: { id: a.id }, decision: 'TERMINER' }]),
      409,
      'REVUE_DEJA_DECIDEE',
    )
    // The root reviews the Direction's administrator's post.
    expect((await decide(root, id, [{ element: { id: own.id }, decision: 'CONFIRMER' }])).status).toBe(200)
    // Sud reviews nothing of Nord's.
    const left = (await itemsOf(nord, id, '&etat=A_REVOIR')).items
    await expectError(
      await decide(sud, id, [{ element: { id: left[0]?.id ?? 0 }, decision: 'TERMINER' }]),
      404,
      'NOT_FOUND',
    )
    await expectError(
      await decide(nord, id, [
        { element: { id: left[0]?.id ?? 0 }, decision: 'TERMINER', dateFin: wireDate(isoDate(-1)) },
      ]),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('two reviewers deciding one item at once: one wins, the other is told', async () => {
    const id = await opened(nord, campaign(2))
    const [item] = (await itemsOf(nord, id, '&structure=4')).items
    if (!item) throw new Error('no item')
    const response = await decide(nord, id, [{ element: { id: item.id }, decision: 'TERMINER' }], {
      env: {
        DB: changedBeforeWrite(async () => {
          expect((await decide(root, id, [{ element: { id: item.id }, decision: 'CONFIRMER' }])).status).toBe(200)
        }),
      },
    })
    await expectError(response, 409, 'REVUE_DEJA_DECIDEE')
    expect(
      await db()
        .selectFrom('revue_element')
        .select(['etat', 'decideur_id'])
        .where('id', '=', item.id)
        .executeTakeFirst(),
    ).toEqual({ etat: 'CONFIRME', decideur_id: root.id })
    expect(await endOf(item.poste.id)).not.toBe(isoDate(0))
  })
})

describe('the due date, the reminders and the report', () => {
  it('reminds the administrators with posts left halfway to the due date, then two days before it, once each', async () => {
    const body = campaign(2, { echeance: wireDate(isoDate(10)) })
    const id = await opened(nord, body)
    const mails = () =>
      db()
        .selectFrom('outbox')
        .select(['utilisateur_id', 'subject', 'text'])
        .where('kind', '=', 'ACCESS_REVIEW')
        .where('subject', 'like', `%« ${body.nom} »%`)
        .orderBy('id')
        .execute()
    const cron = () => reviewDeadlines(backgroundContext(env))
    const set = (values: { created_at?: string; echeance?: string }) =>
      db().updateTable('revue').set(values).where('id', '=', id).execute()
    // Opened today, due in ten days: halfway is days ahead.
    await cron()
    expect(await mails()).toEqual([])
    // Opened twelve days ago: halfway has passed.
    await set({ created_at: new Date(Date.now() - 12 * 86_400_000).toISOString() })
    await cron()
    const halfway = await mails()
    expect(halfway.map((mail) => mail.utilisateur_id).sort()).toEqual([nord.id, root.id].sort())
    expect(halfway[0]?.subject).toMatch(/^Revue des accès « Revue 2 .* » : \d+ postes à revoir$/)
    for (const mail of halfway) expect(mail.text).toContain(wireDate(isoDate(10)))
    expect(await stateOf(id)).toMatchObject({ rappel_mi_parcours_at: expect.any(String), rappel_echeance_at: null })
    await cron()
    expect(await mails()).toHaveLength(2)
    // Three days before the due date is not yet two.
    await set({ echeance: isoDate(3) })
    await cron()
    expect(await mails()).toHaveLength(2)
    await set({ echeance: isoDate(2) })
    await cron()
    const last = (await mails()).slice(2)
    expect(last.map((mail) => mail.utilisateur_id).sort()).toEqual([nord.id, root.id].sort())
    for (const mail of last) expect(mail.text).toContain(wireDate(isoDate(2)))
    expect(await stateOf(id)).toMatchObject({ rappel_echeance_at: expect.any(String) })
    await cron()
    expect(await mails()).toHaveLength(4)
  })

  it(`keeps the posts nobody reviewed (CONSERVER), ${REVIEW_BATCH} items per message`, async () => {
    const id = await opened(nord, campaign(2, { siNonRevu: 'CONSERVER' }))
    const { items } = await itemsOf(nord, id)
    const ends = await Promise.all(items.map((item) => endOf(item.poste.id)))
    await db()
      .updateTable('revue')
      .set({ echeance: isoDate(-1) })
      .where('id', '=', id)
      .execute()
    await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
    await queue.drain()
    expect((await stateOf(id)).etat).toBe('ECHUE')
    expect(await Promise.all(items.map((item) => endOf(item.poste.id)))).toEqual(ends)
    expect((await itemsOf(nord, id, '&etat=CONFIRME')).total).toBe('4')
  })

  it('at the due date ends the posts nobody reviewed (TERMINER), on the queue, then closes with its report', async () => {
    const id = await opened(nord, campaign(2))
    const { items } = await itemsOf(nord, id, '&structure=4')
    const [kept] = items
    if (!kept) throw new Error('no item')
    expect(
      (await decide(nord, id, [{ element: { id: kept.id }, decision: 'CONFIRMER', commentaire: 'Oui' }])).status,
    ).toBe(200)
    await expectError(await post(`/rest/bd/revue/${id}/cloture`, {}, { token: nord.token }), 409, 'REVUE_INCOMPLETE')
    const due = isoDate(-1)
    await db().updateTable('revue').set({ echeance: due }).where('id', '=', id).execute()
    await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
    expect((await stateOf(id)).etat).toBe('ECHEANCE')
    await queue.drain()
    expect((await stateOf(id)).etat).toBe('ECHUE')
    for (const item of items.slice(1)) expect(await endOf(item.poste.id)).toBe(due)
    expect(await endOf(kept.poste.id)).not.toBe(due)
    await expectError(await decide(root, id, [{ element: { id: kept.id }, decision: 'TERMINER' }]), 409, 'REVUE_FERMEE')
    await expectError(await post(`/rest/bd/revue/${id}/cloture`, {}, { token: sud.token }), 404, 'NOT_FOUND')
    // Nord's own post was among those nobody reviewed: kept, since Nord could not end it (review-due-scope.test.ts).
    const own = (await itemsOf(root, id, '&structure=2')).items.find((item) => item.utilisateur.id === nord.id)
    expect(own?.etat).toBe('CONFIRME')
    expect(await endOf(own?.poste.id ?? null)).not.toBe(due)
    expect((await post(`/rest/bd/revue/${id}/cloture`, {}, { token: root.token })).status).toBe(204)
    expect((await stateOf(id)).etat).toBe('CLOTUREE')
    expect(await entries('REVUE_CLOTURE')).toContainEqual(
      expect.objectContaining({
        utilisateur_id: root.id,
        commentaire: expect.stringContaining('2 confirmés, 2 terminés'),
      }),
    )
    // The campaign says who opened, applied and closed it, as its report's page shows.
    const closed = await detailOf(root, id)
    expect(closed).toMatchObject({
      etat: 'CLOTUREE',
      auteur: expect.any(String),
      cloturePar: expect.any(String),
      dateEcheanceAppliquee: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      dateCloture: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    })
    const report = await call(`/rest/bd/revue/${id}/rapport.csv`, { token: root.token })
    expect(report.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    const lines = (await report.text()).replace('\uFEFF', '').trim().split('\r\n')
    expect(lines[0]).toBe(
      'Structure;Identifiant;Nom;Prénom;Fonction;Début du poste;Fin du poste;Décision;Fin décidée;Décidé le;Par;Commentaire',
    )
    expect(lines).toHaveLength(5)
    expect(lines.filter((line) => line.includes(';Terminé;') && line.includes('Échéance (non revu)'))).toHaveLength(2)
    expect(lines.filter((line) => line.includes(';Confirmé;') && line.includes('conservé, l’auteur'))).toHaveLength(1)
    expect(lines.filter((line) => line.includes(';Confirmé;') && line.endsWith(';Oui'))).toHaveLength(1)
  })

  it('writes a comment a spreadsheet would run as a formula neutralised in its report', async () => {
    // Direction Nord's administrator saw their own post ended at the due date above: the root reviews.
    const id = await opened(root, campaign(2))
    const [item] = (await itemsOf(root, id, '&structure=4')).items
    if (!item) throw new Error('no item')
    const commentaire = '=HYPERLINK("http://x";"y")'
    const decided = await decide(root, id, [{ element: { id: item.id }, decision: 'CONFIRMER', commentaire }])
    expect(decided.status).toBe(200)
    const report = await (await call(`/rest/bd/revue/${id}/rapport.csv`, { token: root.token })).text()
    expect(report).toContain(';"\'=HYPERLINK(""http://x"";""y"")"\r\n')
  })
})

describe('the reviewer’s page in one call', () => {
  const page = detailOf
  // Direction Nord's administrator of the tests above saw their own post ended at a due date: another one.
  let nord: Caller
  beforeAll(async () => {
    nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  })

  it('answers elements=N with the campaign, a page of its items and their total, as the two calls do', async () => {
    const id = await opened(nord, campaign(2))
    const { items } = await itemsOf(nord, id, '&structure=4')
    expect((await decide(nord, id, [{ element: { id: items[0]?.id }, decision: 'CONFIRMER' }])).status).toBe(200)
    const detail = await detailOf(nord, id)
    const everyFilter: Pick<z.input<typeof reviewDetailQuery>, 'etat' | 'structure' | 'q' | 'page'>[] = [
      {},
      { etat: 'A_REVOIR' },
      { etat: 'CONFIRME' },
      { structure: 4 },
      { q: `${lille[1]?.login}` },
      { page: 2 },
    ]
    for (const filters of everyFilter) {
      const alone = await api(nord.token).rest.bd.revue[':id'].elements.$get({
        param: { id },
        query: { taille: 2, page: 1, ...filters },
      })
      expect(await page(nord, id, { elements: 2, ...filters })).toEqual({
        ...detail,
        elements: await okBody(alone),
        totalElements: Number(alone.headers.get('X-Total-Count')),
      })
    }
    expect((await page(nord, id, { elements: 100 })).elements).toEqual((await itemsOf(nord, id)).items)
    // Another sub-tree's administrator learns nothing more with it.
    await expectError(await call(`/rest/bd/revue/${id}?elements=10`, { token: sud.token }), 404, 'NOT_FOUND')
  })

  it('refuses a page of the items without elements, and elements beyond 1 to 100', async () => {
    const id = await opened(nord, campaign(2))
    for (const query of [
      'page=1',
      'etat=CONFIRME',
      'structure=4',
      'q=x',
      'elements=0',
      'elements=101',
      'elements=tous',
    ]) {
      const body = await expectError(
        await call(`/rest/bd/revue/${id}?${query}`, { token: nord.token }),
        400,
        'VALIDATION_FAILED',
      )
      expect((body.attributs as { field: string }[]).map((error) => error.field)).toContain('elements')
    }
  })

  it('counts the items of a structure deleted since as it lists them, by its last path', async () => {
    await db()
      .insertInto('structure')
      .values({ id: 900, nom: 'Agence Roubaix', type_id: 3, parent_id: 2, path: '/1/2/900/' })
      .execute()
    await db().insertInto('fonction').values({ id: 900, libelle: 'Quai', structure_id: 900 }).execute()
    const user = await createUser({ postes: [currentPost(900, 900)] })
    const id = await opened(nord, campaign(900))
    // Its post ended and gone, then the structure itself: the campaign's item and its count stay.
    await db().deleteFrom('poste').where('utilisateur_id', '=', user.id).execute()
    await db().deleteFrom('fonction').where('id', '=', 900).execute()
    await db().deleteFrom('structure').where('id', '=', 900).execute()
    const seen = await page(nord, id, { elements: 10 })
    expect(seen.elements?.map((item) => item.utilisateur.id)).toEqual([user.id])
    expect(seen).toMatchObject({ totalElements: 1, progression: { total: 1, confirmes: 0, termines: 0 } })
  })
})
