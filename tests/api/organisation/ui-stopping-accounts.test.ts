import { beforeAll, describe, expect, it } from 'vitest'
import type { ServiceAccountCreated } from '../../../worker-api/contract/machines/service-accounts'
import { api, okBody } from '../client'
import { browserCookieOf, createOrganisation, createUser, currentPost, db, ORIGIN, sessionFor } from '../helpers'
import { visit } from '../visit'

/**
 * Demoting an administrator, ending a post that alone gives them an account's structure, or deleting them stops the
 * service accounts acting for them: each confirmation names those accounts (name and structure) and leads to the service accounts' page, where
 * they are handed over. A demotion that stops none applies at once, as before.
 */

let rootCookie = ''
let maker: Awaited<ReturnType<typeof createUser>>
let account: ServiceAccountCreated

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN, Host: new URL(ORIGIN).host }

const page = async (path: string, init: RequestInit = {}) => {
  const response = await visit(path, { ...init, headers: { Cookie: rootCookie, ...init.headers } })
  return { status: response.status, location: response.headers.get('Location'), html: await response.text() }
}

const isAdmin = async (id: number) =>
  (await db().selectFrom('utilisateur').select('admin').where('id', '=', id).executeTakeFirstOrThrow()).admin === 1

beforeAll(async () => {
  await createOrganisation()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  rootCookie = await browserCookieOf({ ...root, ...(await sessionFor(root.id)) })
  maker = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  account = await okBody(
    api((await sessionFor(maker.id)).accessToken).rest.bd.compteService.$post({
      json: { nom: 'Passerelle Paie', structure: { id: 2 }, admin: false, scopes: ['api'] },
    }),
    201,
  )
})

/** The confirmation's note: the account's name and structure, and the link to hand it over. */
function expectNamed(html: string) {
  expect(html).toContain('Ce compte de service agit pour')
  expect(html).toContain('Passerelle Paie (Direction Nord)')
  expect(html).toContain(`href="/pages/admin/comptesService?responsable=${maker.id}"`)
}

describe('a confirmation names the service accounts it stops', () => {
  it('ending an administrator’s last current post', async () => {
    const poste = await db()
      .selectFrom('poste')
      .select('id')
      .where('utilisateur_id', '=', maker.id)
      .executeTakeFirstOrThrow()
    const { status, html } = await page(`/pages/admin/detail/user/${maker.id}?confirmer=poste&id=${poste.id}`)
    expect(status).toBe(200)
    expectNamed(html)
    // The post's delete leads to that panel, with JavaScript too.
    expect(html).toContain(`confirmer=poste&amp;id=${poste.id}#confirmer-fin-poste`)
    // Not read with the page itself.
    expect((await page(`/pages/admin/detail/user/${maker.id}`)).html).not.toContain('Passerelle Paie')
  })

  it('ending a post that is not the last, when the account’s structure is theirs through it alone', async () => {
    const both = await createUser({ admin: true, postes: [currentPost(2, 2), currentPost(3, 3)] })
    await okBody(
      api((await sessionFor(both.id)).accessToken).rest.bd.compteService.$post({
        json: { nom: 'Passerelle Quai', structure: { id: 3 }, admin: false, scopes: ['api'] },
      }),
      201,
    )
    const posts = await db()
      .selectFrom('poste')
      .select(['id', 'structure_id'])
      .where('utilisateur_id', '=', both.id)
      .execute()
    const at = (structure: number) => posts.find((p) => p.structure_id === structure)?.id
    const sud = await page(`/pages/admin/detail/user/${both.id}?confirmer=poste&id=${at(3)}`)
    expect(sud.status).toBe(200)
    expect(sud.html).toContain('Passerelle Quai (Direction Sud)')
    expect(sud.html).toContain(`href="/pages/admin/comptesService?responsable=${both.id}"`)
    // Each of an administrator's current posts leads to its panel, where the server says what it stops.
    expect(sud.html).toContain(`confirmer=poste&amp;id=${at(2)}#confirmer-fin-poste`)
    // Ending the Nord post stops nothing: no note.
    const nord = await page(`/pages/admin/detail/user/${both.id}?confirmer=poste&id=${at(2)}`)
    expect(nord.status).toBe(200)
    expect(nord.html).not.toContain('Passerelle Quai')
    expect(nord.html).not.toContain('Ce compte de service agit pour')
  })

  it('deleting an administrator from the users’ list', async () => {
    const { status, html } = await page(`/pages/admin/listeUtilisateurs?confirmer=supprimer&id=${maker.id}`)
    expect(status).toBe(200)
    expectNamed(html)
  })

  it('demoting an administrator: asked first, the flag kept, then done once confirmed', async () => {
    const path = `/pages/admin/detail/user/${maker.id}`
    const asked = await page(path, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ intent: 'flags', wasAdmin: 'true' }),
    })
    expect(asked.status).toBe(200)
    expectNamed(asked.html)
    expect(asked.html).toContain('Retirer à Prenom')
    expect(await isAdmin(maker.id)).toBe(true)

    const done = await page(path, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ intent: 'flags', wasAdmin: 'true', confirme: 'oui' }),
    })
    expect(done.status).toBe(302)
    expect(await isAdmin(maker.id)).toBe(false)
    // Its account is stopped now: the list says so, and a demotion of nobody else's asks nothing.
    const listed = await page(`/pages/admin/comptesService?responsable=${maker.id}`)
    expect(listed.html).toContain('Passerelle Paie')
    expect(listed.html).toContain('Arrêté')
    expect(account.clientId).toMatch(/^cs-/)
  })

  it('a demotion that stops no account applies at once', async () => {
    const plain = await createUser({ admin: true, postes: [currentPost(3, 3)] })
    const done = await page(`/pages/admin/detail/user/${plain.id}`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ intent: 'flags', wasAdmin: 'true' }),
    })
    expect(done.status).toBe(302)
    expect(await isAdmin(plain.id)).toBe(false)
  })
})
