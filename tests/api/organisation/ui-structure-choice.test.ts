import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { StructureChoices } from '../../../app/features/organisation/structure-choice'
import { browserCookieOf, createOrganisation, createUser, currentPost, db, ORIGIN, sessionFor } from '../helpers'
import { visit } from '../visit'

/**
 * A structure to choose (the create-user and application forms) lists the first 50 of the admin's scope by name;
 * the others are found by name: without JavaScript through a search field that posts the form back, with it through
 * the combobox's search route. Nothing beyond the scope is ever offered.
 */

const AGENCES = 60
let rootCookie = ''
let sudCookie = ''
let agentCookie = ''
const agenceId = (n: number) => 100 + n
const agenceNom = (n: number) => `Agence Nord ${String(n).padStart(2, '0')}`

async function cookieOf(options: Parameters<typeof createUser>[0]) {
  const user = await createUser(options)
  return browserCookieOf({ ...user, ...(await sessionFor(user.id)) })
}

beforeAll(async () => {
  await createOrganisation()
  // D1 binds 100 values a statement: 20 structures of 5 columns.
  for (let first = 1; first <= AGENCES; first += 20) {
    await db()
      .insertInto('structure')
      .values(
        Array.from({ length: 20 }, (_, i) => first + i).map((n) => ({
          id: agenceId(n),
          nom: agenceNom(n),
          type_id: 3,
          parent_id: 2,
          path: `/1/2/${agenceId(n)}/`,
        })),
      )
      .execute()
  }
  rootCookie = await cookieOf({ admin: true, postes: [currentPost(1, 1)] })
  sudCookie = await cookieOf({ admin: true, postes: [currentPost(3, 3)] })
  agentCookie = await cookieOf({ postes: [currentPost(4, 2)] })
})

const page = async (path: string, cookie: string, init: RequestInit = {}) => {
  const response = await visit(path, { ...init, headers: { Cookie: cookie, ...init.headers } })
  return { status: response.status, html: await response.text() }
}

/** The options of the native structure select, by label, and the one selected. */
function structureOptions(html: string) {
  const select = /<select[^>]*name="structure"[^>]*>(.*?)<\/select>/s.exec(html)?.[1] ?? ''
  const options = [...select.matchAll(/<option value="(\d*)"( selected="")?[^>]*>([^<]*)<\/option>/g)]
  return {
    labels: options.filter(([, value]) => value !== '').map(([, , , label]) => label ?? ''),
    selected: options.find(([, value, selected]) => value !== '' && selected)?.[3] ?? null,
  }
}

/**
 * The structures the search route answers (its loader's `StructureChoices`), read strictly: a test compares them whole.
 */
const structureChoices = z.strictObject({
  structures: z.array(z.strictObject({ id: z.number(), nom: z.string() })),
  shown: z.number(),
  total: z.number(),
  recherche: z.string(),
}) satisfies z.ZodType<StructureChoices>

const search = async (recherche: string, cookie: string) => {
  const response = await visit(`/pages/admin/structure/choix?structureRecherche=${encodeURIComponent(recherche)}`, {
    headers: { Cookie: cookie },
  })
  return { status: response.status, body: structureChoices.parse(await response.json()) }
}

describe('choosing a structure among more than a form lists', () => {
  it('lists the first 50 of the scope by name, says how many there are, and offers to search the others', async () => {
    const { status, html } = await page('/pages/admin/user/new', rootCookie)
    expect(status).toBe(200)
    const { labels } = structureOptions(html)
    expect(labels).toHaveLength(50)
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b, 'fr', { sensitivity: 'base' })))
    expect(html).toContain('Les 50 premières par nom, sur 64 : cherchez les autres par leur nom.')
    expect(html).toContain('name="structureRecherche"')
  })

  it('narrows the list to the names searched, the search kept in its field', async () => {
    const { html } = await page('/pages/admin/user/new?structureRecherche=nord%2059', rootCookie)
    expect(structureOptions(html).labels).toEqual([agenceNom(59)])
    expect(html).toContain('1 structure trouvée.')
    expect(html).toMatch(/name="structureRecherche"[^>]*value="nord 59"/)
  })

  it('keeps a structure chosen beyond the first 50 chosen, with its functions asked for', async () => {
    const { html } = await page(`/pages/admin/user/new?structure=${agenceId(60)}`, rootCookie)
    const { labels, selected } = structureOptions(html)
    expect(selected).toBe(agenceNom(60))
    expect(labels).toHaveLength(51)
  })

  it('without JavaScript, a search posts the form back: what was typed stays, the list is the matches', async () => {
    const form = new URLSearchParams({
      intent: 'fonctions',
      nom: 'Durand',
      structureRecherche: 'Nord 07',
      structure: '',
    })
    const { status, html } = await page('/pages/admin/user/new', rootCookie, {
      method: 'POST',
      body: form,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN, Host: new URL(ORIGIN).host },
    })
    expect(status).toBe(200)
    expect(structureOptions(html).labels).toEqual([agenceNom(7)])
    expect(html).toMatch(/name="nom"[^>]*value="Durand"|value="Durand"[^>]*name="nom"/)
  })

  it('a delegated admin is offered only their own sub-tree, whatever they search', async () => {
    const { html } = await page('/pages/admin/user/new', sudCookie)
    expect(structureOptions(html).labels).toEqual(['Direction Sud'])
    // A list that holds the whole scope needs no search.
    expect(html).not.toContain('name="structureRecherche"')
    expect((await search('Agence', sudCookie)).body).toMatchObject({ structures: [], total: 0 })
    expect((await search('Nord', sudCookie)).body).toMatchObject({ structures: [], total: 0 })
    // Another sub-tree's structure asked for by id is not chosen, nor listed.
    const { html: asked } = await page(`/pages/admin/user/new?structure=${agenceId(3)}`, sudCookie)
    expect(structureOptions(asked)).toEqual({ labels: ['Direction Sud'], selected: null })
  })
})

describe('a form for a structure given in its path (/pages/admin/user/{idStructure}/new)', () => {
  const fonctions = (path: string, cookie: string, structure: string) =>
    page(path, cookie, {
      method: 'POST',
      body: new URLSearchParams({ intent: 'fonctions', structure }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN, Host: new URL(ORIGIN).host },
    })

  it('refuses a structure outside the scope, even with one of the scope chosen in the form', async () => {
    expect((await page('/pages/admin/user/4/new', sudCookie)).status).toBe(403)
    expect((await fonctions('/pages/admin/user/4/new', sudCookie, '3')).status).toBe(403)
  })

  it('says an unknown structure is not found, and keeps its own chosen when another is', async () => {
    expect((await page('/pages/admin/user/99999/new', rootCookie)).status).toBe(404)
    const { status, html } = await fonctions(`/pages/admin/user/${agenceId(60)}/new`, rootCookie, String(agenceId(1)))
    expect(status).toBe(200)
    expect(structureOptions(html).selected).toBe(agenceNom(1))
  })
})

describe("the combobox's structure search (GET /pages/admin/structure/choix)", () => {
  it('answers the first 50 matches by name and how many match', async () => {
    const { status, body } = await search('agence nord', rootCookie)
    expect(status).toBe(200)
    expect(body?.total).toBe(AGENCES)
    expect(body?.shown).toBe(50)
    expect(body?.structures[0]).toEqual({ id: agenceId(1), nom: agenceNom(1) })
    expect((await search('Nord 4', rootCookie)).body?.structures.map((s) => s.nom)).toEqual(
      Array.from({ length: 10 }, (_, i) => agenceNom(40 + i)),
    )
  })

  it('answers a long or many-word search, never a 500', async () => {
    const long = await search('Agence '.repeat(60), rootCookie)
    expect(long.status).toBe(200)
    const words = await search(Array.from({ length: 40 }, (_, i) => `mot${i}`).join(' '), rootCookie)
    expect(words).toMatchObject({ status: 200, body: { structures: [], total: 0 } })
  })

  it('is for administrators only: an anonymous visitor is sent to sign in, an agent to their access', async () => {
    const anonymous = await visit('/pages/admin/structure/choix?structureRecherche=Agence')
    expect(anonymous.status).toBe(302)
    expect(anonymous.headers.get('Location')).toMatch(/^\/login\?redirect=/)
    const agent = await visit('/pages/admin/structure/choix?structureRecherche=Agence', {
      headers: { Cookie: agentCookie },
    })
    expect(agent.status).toBe(302)
    expect(agent.headers.get('Location')).toBe('/pages/user/acces')
  })
})
