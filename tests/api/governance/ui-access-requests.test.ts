import { beforeAll, describe, expect, it } from 'vitest'
import {
  browserCookieOf,
  createOrganisation,
  createUser,
  currentPost,
  db,
  isoDate,
  sessionFor,
  wireDate,
} from '../helpers'
import { postForm } from '../visit'

/**
 * "Mes accès"' two forms answer as every form does (`FormReply`): a request the API refuses comes back on the
 * application's own form, opened, with what was typed and the rule on its field; a withdrawal refused says why; a post
 * whose ids no form writes is a technical error, never a 500; a request sent or withdrawn comes back with its notice.
 * The organisation of helpers.ts; Module Rendez vous (3) is made demandable and the requester holds Agent de quai in
 * Agence Lille, which does not grant it.
 */

let cookie = ''
let requesterId = 0

const send = (fields: Record<string, string>) => postForm('/pages/user/acces', cookie, fields)

const requests = () =>
  db().selectFrom('demande_acces').select(['id', 'etat', 'motif']).where('utilisateur_id', '=', requesterId).execute()

const period = { dateDebut: wireDate(isoDate(0)), dateFin: wireDate(isoDate(9)) }

beforeAll(async () => {
  await createOrganisation()
  await db().updateTable('application').set({ demandable: 1 }).where('id', '=', 3).execute()
  const requester = await createUser({ postes: [currentPost(4, 2)] })
  requesterId = requester.id
  cookie = await browserCookieOf({ ...requester, ...(await sessionFor(requester.id)) })
})

describe('“Mes accès”’ forms', () => {
  it('keeps a refused request on its application’s form, opened, with what was typed and the rule on its field', async () => {
    const { status, html } = await send({ intent: 'request', application: '3', motif: 'ab', ...period })
    expect(status).toBe(400)
    expect(html).toContain('Le motif doit contenir de 3 à 500 caractères')
    expect(html).toMatch(/id="motif-3"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="motif-3"/)
    expect(html).toMatch(/<details open=""/)
    expect(html).toContain(`value="${period.dateFin}"`)
    expect(await requests()).toEqual([])
  })

  it('sends a request and comes back with its notice; the request waits', async () => {
    const { status, location } = await send({
      intent: 'request',
      application: '3',
      motif: 'Planifier le quai',
      ...period,
    })
    expect(status).toBe(302)
    expect(location).toBe('/pages/user/acces')
    expect(await requests()).toMatchObject([{ etat: 'EN_ATTENTE', motif: 'Planifier le quai' }])
  })

  it('withdraws the waiting request; one already withdrawn says why on the page', async () => {
    const [waiting] = await requests()
    const id = String(waiting?.id)
    const first = await send({ intent: 'withdraw', id, application: '3' })
    expect(first.status).toBe(302)
    expect((await requests())[0]?.etat).toBe('RETIREE')
    const again = await send({ intent: 'withdraw', id, application: '3' })
    expect(again.status).toBe(400)
    expect(again.html).toContain('role="alert"')
  })

  it('answers a post whose ids no form writes as a technical error, never a 500, and stores nothing', async () => {
    const before = await requests()
    const posts: Record<string, string>[] = [
      { intent: 'request', application: 'abc', motif: 'Planifier le quai', ...period },
      { intent: 'request', motif: 'Planifier le quai', ...period },
      { intent: 'withdraw', id: '-1' },
      { intent: 'autre' },
      {},
    ]
    for (const fields of posts) {
      const { status, html } = await send(fields)
      expect(status, JSON.stringify(fields)).toBe(400)
      expect(html, JSON.stringify(fields)).toContain('Erreur technique')
    }
    expect(await requests()).toEqual(before)
  })
})
