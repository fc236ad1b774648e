import { beforeAll, describe, expect, it } from 'vitest'
import { browserCookieOf, createOrganisation, createUser, currentPost, db, sessionFor } from '../helpers'
import { postForm } from '../visit'

/**
 * The security settings' page answers its two forms as every form does (`FormReply`): a value it refuses stays on its
 * field with the rule, a refusal of the API on the form it came from, a hand-made post is a 400 — and a saved value
 * comes back with the notice.
 */

let rootCookie = ''

const send = (fields: Record<string, string>) => postForm('/pages/admin/securite', rootCookie, fields)

const setting = async () =>
  await db()
    .selectFrom('parametre_securite')
    .select(['demande_duree_max_jours', 'mfa_requis_administrateurs', 'historique_mois_en_ligne'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow()

beforeAll(async () => {
  await createOrganisation()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  rootCookie = await browserCookieOf({ ...root, ...(await sessionFor(root.id)) })
})

describe('the security settings’ forms', () => {
  it('saves the longest period of a request, and says so', async () => {
    const { status, location } = await send({ intent: 'requests', demandeDureeMaxJours: '45' })
    expect(status).toBe(302)
    expect(location).toBe('/pages/admin/securite')
    expect((await setting()).demande_duree_max_jours).toBe(45)
  })

  it('keeps a period out of bounds on its field, with the rule, and writes nothing', async () => {
    const before = await setting()
    for (const value of ['0', '3661', '2.5', 'abc', '']) {
      const { status, html } = await send({ intent: 'requests', demandeDureeMaxJours: value })
      expect(status, value).toBe(400)
      expect(html, value).toContain('La durée maximale doit être un nombre entier de jours, de 1 à 3660')
      expect(html, value).toMatch(
        /id="request-duration"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="request-duration"/,
      )
    }
    expect(await setting()).toEqual(before)
  })

  it('saves the months of history the database keeps, 13 until changed; refuses fewer than 3 or more than 120 on its field', async () => {
    expect((await setting()).historique_mois_en_ligne).toBe(13)
    for (const value of ['2', '121', '6.5', '']) {
      const { status, html } = await send({ intent: 'history', historiqueMoisEnLigne: value })
      expect(status, value).toBe(400)
      expect(html, value).toContain('La durée doit être un nombre entier de mois, de 3 à 120')
      expect(html, value).toMatch(
        /id="history-months"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="history-months"/,
      )
    }
    expect((await setting()).historique_mois_en_ligne).toBe(13)
    const { status, location } = await send({ intent: 'history', historiqueMoisEnLigne: '24' })
    expect(status).toBe(302)
    expect(location).toBe('/pages/admin/securite')
    expect((await setting()).historique_mois_en_ligne).toBe(24)
  })

  it('refuses the second-factor requirement to an administrator without one, on its form, with the way to get one', async () => {
    const { status, html } = await send({ intent: 'settings', mfaRequisAdministrateurs: 'on' })
    expect(status).toBe(400)
    expect(html).toContain('Enregistrez d&#x27;abord un second facteur pour votre propre compte.')
    expect(html).toContain('href="/pages/user/securite"')
    expect((await setting()).mfa_requis_administrateurs).toBe(0)
  })

  it('answers a hand-made post that names no form with a 400, never a 500', async () => {
    const posts: Record<string, string>[] = [{ intent: 'autre' }, { intent: 'requests' }, {}]
    for (const fields of posts) {
      const { status } = await send(fields)
      expect(status, JSON.stringify(fields)).toBe(400)
    }
  })
})
