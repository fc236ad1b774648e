import { expect } from 'vitest'
import type { ReviewInput } from '../../worker-api/contract/governance/access-reviews'
import { api, okBody } from './client'
import { call, db, isoDate, post, wireDate } from './helpers'
import { type JobOf, jobsQueue } from './jobs-queue'

type Who = { token: string }

/**
 * What the review test files share: the imports' queue the campaigns open on, a campaign's body (what happens to a post
 * nobody reviewed: `outcome`, unless a test says otherwise), its opening delivered, its items as a reviewer lists them,
 * a decision, a campaign's row and a post's end.
 */
export function reviewKit(outcome: 'CONSERVER' | 'TERMINER') {
  const queue = jobsQueue<JobOf<'review-step'>>()
  const open = (who: Who, body: unknown) => post('/rest/bd/revue', body, { token: who.token, env: queue.env })
  const campaign = (structure: number, overrides: Record<string, unknown> = {}) => ({
    nom: `Revue ${structure} ${crypto.randomUUID().slice(0, 8)}`,
    structure: { id: structure },
    echeance: wireDate(isoDate(30)),
    siNonRevu: outcome,
    ...overrides,
  })
  const stateOf = (id: number) => db().selectFrom('revue').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const elements = (who: Who, id: number | string, query = '') =>
    call(`/rest/bd/revue/${id}/elements?page=1&taille=100${query}`, { token: who.token })
  async function itemsOf(who: Who, id: number, query = '') {
    const response = await api(who.token).rest.bd.revue[':id'].elements.$get({
      param: { id },
      query: { page: 1, taille: 100, ...Object.fromEntries(new URLSearchParams(query)) },
    })
    return { items: await okBody(response), total: response.headers.get('X-Total-Count') }
  }
  const decide = (who: Who, id: number, body: unknown, init: Parameters<typeof call>[1] = {}) =>
    post(`/rest/bd/revue/${id}/decisions`, body, { token: who.token, ...init })
  /** Opens a campaign and delivers its opening; its id. */
  async function opened(who: Who, body: ReviewInput) {
    const { id } = await okBody(api(who.token, queue.env).rest.bd.revue.$post({ json: body }), 201)
    await queue.drain()
    expect((await stateOf(id)).etat).toBe('OUVERTE')
    return id
  }
  const endOf = async (posteId: number | null) =>
    (
      await db()
        .selectFrom('poste')
        .select('date_fin')
        .where('id', '=', posteId ?? 0)
        .executeTakeFirstOrThrow()
    ).date_fin
  return { queue, open, campaign, stateOf, elements, itemsOf, decide, opened, endOf }
}
