import { beforeAll, describe, expect, it } from 'vitest'
import type { ServiceAccountCreated } from '../../../worker-api/contract/machines/service-accounts'
import { api, okBody } from '../client'
import { browserCookieOf, createOrganisation, createUser, currentPost, db, ORIGIN, sessionFor } from '../helpers'
import { visit } from '../visit'

/**
 * The service accounts' screen hands an account to another administrator of its structure (`?confier=<id>`): a select
 * of those the admin sees, a refusal of the API on that field, and the new secret shown once — all through plain form
 * posts, as without JavaScript.
 */

let rootCookie = ''
let heir: Awaited<ReturnType<typeof createUser>>
let agent: Awaited<ReturnType<typeof createUser>>
let account: ServiceAccountCreated

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN, Host: new URL(ORIGIN).host }
const PATH = '/pages/admin/comptesService'

const page = async (path: string, init: RequestInit = {}) => {
  const response = await visit(path, { ...init, headers: { Cookie: rootCookie, ...init.headers } })
  return { status: response.status, html: await response.text() }
}

const handOver = (utilisateur: string) =>
  page(`${PATH}?confier=${account.id}`, {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams({
      intent: 'confier',
      id: String(account.id),
      nom: 'Passerelle Achats',
      clientId: account.clientId,
      admin: 'false',
      utilisateur,
    }),
  })

beforeAll(async () => {
  await createOrganisation()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  rootCookie = await browserCookieOf({ ...root, ...(await sessionFor(root.id)) })
  const maker = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  heir = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  agent = await createUser({ postes: [currentPost(4, 2)] })
  account = await okBody(
    api((await sessionFor(maker.id)).accessToken).rest.bd.compteService.$post({
      json: { nom: 'Passerelle Achats', structure: { id: 2 }, admin: false, scopes: ['api'] },
    }),
    201,
  )
})

describe('handing a service account to another administrator', () => {
  it('offers the administrators of its structure in a select', async () => {
    const { status, html } = await page(`${PATH}?confier=${account.id}`)
    expect(status).toBe(200)
    expect(html).toContain('Confier Passerelle Achats à un autre administrateur')
    const select = /<select[^>]*name="utilisateur"[^>]*>(.*?)<\/select>/s.exec(html)?.[1] ?? ''
    expect(select).toMatch(new RegExp(`<option value="${heir.id}">[^<]*${heir.login.replace('user', 'Nom')}</option>`))
    expect(select).not.toContain(`<option value="${agent.id}">`)
    expect(html).toContain(`href="${PATH}?confier=${account.id}#confier-compte"`)
  })

  it('says a refusal on the field: no one chosen, or someone who does not administer the structure', async () => {
    const empty = await handOver('')
    expect(empty.status).toBe(400)
    expect(empty.html).toMatch(
      /id="confier-utilisateur"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="confier-utilisateur"/,
    )
    const refused = await handOver(String(agent.id))
    expect(refused.status).toBe(400)
    expect(refused.html).toContain('Cette personne n’administre pas la structure du compte')
    expect(refused.html).toContain('id="confier-utilisateur-error"')
  })

  it('hands it over and shows its new secret once', async () => {
    const done = await handOver(String(heir.id))
    expect(done.status).toBe(200)
    expect(done.html).toContain('Le compte de service Passerelle Achats agit désormais pour l’administrateur choisi.')
    expect(done.html).toMatch(/<textarea[^>]*id="service-client-secret"[^>]*>[A-Za-z0-9_-]{43}<\/textarea>/)
    const row = await db()
      .selectFrom('compte_service')
      .select('cree_par')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow()
    expect(row.cree_par).toBe(heir.id)
  })
})
