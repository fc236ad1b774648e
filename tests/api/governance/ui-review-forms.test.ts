import { beforeAll, describe, expect, it } from 'vitest'
import type { ReviewItem } from '../../../worker-api/contract/governance/access-reviews'
import {
  browserCookieOf,
  type Caller,
  callerOf,
  createOrganisation,
  createUser,
  currentPost,
  sessionFor,
} from '../helpers'
import { reviewKit } from '../review-kit'
import { postForm } from '../visit'

/**
 * The review screens' forms answer as every form does (`FormReply`): the campaign form keeps what was typed and says
 * each rule on its field; a decision to end posts is shown for confirmation first, named, and decides nothing yet; an
 * end the API refuses is said on its field; a post no form of the page writes is a technical error, never a 500. The
 * organisation of helpers.ts: Direction Nord (2) › Agence Lille (4), its agents in fonction 2.
 */

const { campaign, itemsOf, opened } = reviewKit('CONSERVER')
let nord: Caller
let cookie = ''
let reviewId = 0
let items: ReviewItem[] = []

const send = (path: string, fields: [string, string][]) => postForm(path, cookie, fields)
const invalid = (html: string, id: string) =>
  new RegExp(`id="${id}"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="${id}"`).test(html)

beforeAll(async () => {
  await createOrganisation()
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  cookie = await browserCookieOf({ ...nord, ...(await sessionFor(nord.id)) })
  await Promise.all([1, 2].map(() => createUser({ postes: [currentPost(4, 2)] })))
  reviewId = await opened(nord, campaign(2))
  items = (await itemsOf(nord, reviewId)).items.filter((item) => item.utilisateur.id !== nord.id)
  expect(items.length).toBeGreaterThanOrEqual(2)
})

describe('the campaign form', () => {
  it('keeps what was typed and says on their fields that a structure and an outcome are needed', async () => {
    const { status, html } = await send('/pages/admin/revues', [
      ['intent', 'ouvrir'],
      ['nom', 'Revue de printemps'],
    ])
    expect(status).toBe(400)
    expect(html).toContain('value="Revue de printemps"')
    expect(html.match(/Ce champ est obligatoire/g)?.length).toBeGreaterThanOrEqual(2)
    expect(invalid(html, 'review-structure')).toBe(true)
  })

  it('says a due date the API refuses on its field', async () => {
    const { status, html } = await send('/pages/admin/revues', [
      ['intent', 'ouvrir'],
      ['nom', 'Revue passée'],
      ['structure', '4'],
      ['echeance', '01/01/2020'],
      ['siNonRevu', 'CONSERVER'],
    ])
    expect(status).toBe(400)
    expect(invalid(html, 'review-due')).toBe(true)
    expect(html).toContain('value="01/01/2020"')
  })
})

describe('a campaign’s decisions', () => {
  const page = () => `/pages/admin/revues/${reviewId}`
  const stillToReview = async () =>
    (await itemsOf(nord, reviewId)).items.filter((item) => item.etat === 'A_REVOIR').map((item) => item.id)

  it('shows ending the items ticked for confirmation first, and decides nothing yet', async () => {
    const before = await stillToReview()
    const ticked = items.slice(0, 2).map((item) => ['element', String(item.id)] as [string, string])
    const { status, html } = await send(page(), [['intent', 'decider'], ['decision', 'TERMINER'], ...ticked])
    expect(status).toBe(200)
    expect(html).toContain('Terminer 2 postes ?')
    expect(html).toContain('name="confirme" value="oui"')
    expect(await stillToReview()).toEqual(before)
  })

  it('says an end the API refuses on its field, and decides nothing', async () => {
    const before = await stillToReview()
    const { status, html } = await send(page(), [
      ['intent', 'decider'],
      ['decision', 'TERMINER'],
      ['confirme', 'oui'],
      ['element', String(items[0]?.id)],
      ['dateFin', '31/02/2020'],
    ])
    expect(status).toBe(400)
    expect(invalid(html, 'selection-fin')).toBe(true)
    expect(await stillToReview()).toEqual(before)
  })

  it('asks for a ticked item when none is, and confirms one item from its row', async () => {
    const none = await send(page(), [
      ['intent', 'decider'],
      ['decision', 'CONFIRMER'],
    ])
    expect(none.status).toBe(400)
    expect(none.html).toContain('Sélectionnez au moins un poste.')
    const one = items[1]?.id
    const confirmed = await send(page(), [
      ['intent', 'decider'],
      ['un', `CONFIRMER:${one}`],
    ])
    expect(confirmed.status).toBe(302)
    expect(await stillToReview()).not.toContain(one)
  })

  it('answers a post no form of the page writes as a technical error, never a 500', async () => {
    const posts: [string, string][][] = [
      [
        ['intent', 'decider'],
        ['un', 'GARDER:1'],
      ],
      [
        ['intent', 'decider'],
        ['decision', 'CONFIRMER'],
        ['element', 'abc'],
      ],
      [['intent', 'autre']],
      [],
    ]
    for (const fields of posts) {
      const { status, html } = await send(page(), fields)
      expect(status, JSON.stringify(fields)).toBe(400)
      expect(html, JSON.stringify(fields)).toContain('Erreur technique')
    }
  })
})
