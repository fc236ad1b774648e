import { beforeAll, describe, expect, it } from 'vitest'
import type { Webhook, WebhookCreated } from '../../../worker-api/contract/machines/webhooks'
import {
  browserCookieOf,
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  isoDate,
  ORIGIN,
  post,
  sessionFor,
  wireDate,
} from '../helpers'
import { type JobOf, jobsQueue } from '../jobs-queue'
import { postForm, visit } from '../visit'

/**
 * The webhooks' screens (`/pages/admin/webhooks` and a subscription's delivery log): the subscriptions of the
 * administrator's scope only, one made through the page's form (events ticked by family, the secret shown once in the
 * answer and never again), the refusals on their fields, a row changed, its secret renewed, deleted once confirmed, and
 * a delivery sent again from the log — all through plain form posts, as without JavaScript.
 */

const PATH = '/pages/admin/webhooks'

type Admin = { token: string; cookie: string }
let root: Admin
let nord: Admin
let sud: Admin

async function admin(structure: number): Promise<Admin> {
  const user = await createUser({ admin: true, postes: [currentPost(structure, structure === 1 ? 1 : 2)] })
  const session = await sessionFor(user.id)
  return { token: session.accessToken, cookie: await browserCookieOf({ ...user, ...session }) }
}

beforeAll(async () => {
  await createOrganisation()
  root = await admin(1)
  nord = await admin(2)
  sud = await admin(3)
})

/** The page's text as a browser shows it (React escapes quotes in the markup). */
const shown = (html: string) =>
  html.replaceAll('&#x27;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<')

const page = async (path: string, who: Admin) => {
  const response = await visit(path, { headers: { Cookie: who.cookie, 'Accept-Language': 'fr' } })
  return { status: response.status, html: shown(await response.text()) }
}

const send = async (fields: [string, string][], who: Admin, path = PATH, env = {}) => {
  const answer = await postForm(path, who.cookie, fields, env)
  return { ...answer, html: shown(answer.html) }
}

let sequence = 0
async function subscribe(who: Admin, structure: number, body: Record<string, unknown> = {}) {
  const url = `https://rh.example/portail/${++sequence}`
  const response = await post(
    '/rest/bd/webhook',
    { url, evenements: ['utilisateur.*'], structure: { id: structure }, ...body },
    { token: who.token },
  )
  expect(response.status).toBe(201)
  return { ...((await response.json()) as WebhookCreated), url }
}

const read = async (id: number) =>
  (await (await call(`/rest/bd/webhook/${id}`, { token: root.token })).json()) as Webhook

/** The attributes of the element whose id is `id`, as written in the page. */
const element = (html: string, id: string) => new RegExp(`<[a-z]+[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0] ?? ''

describe('the webhooks’ list', () => {
  it('shows each administrator the subscriptions of their scope only, and their delivery logs', async () => {
    const nordHook = await subscribe(nord, 4, { description: 'SIRH du Nord' })
    const sudHook = await subscribe(sud, 3)
    const seen = await page(PATH, nord)
    expect(seen.status).toBe(200)
    expect(seen.html).toContain('<title>Webhooks · Portail</title>')
    expect(seen.html).toContain(nordHook.url)
    expect(seen.html).toContain('SIRH du Nord')
    expect(seen.html).toContain('Agence Lille')
    expect(seen.html).not.toContain(sudHook.url)
    expect(seen.html).toContain(`href="${PATH}/${nordHook.id}"`)
    // The root sees both; a search keeps what it names.
    const all = await page(`${PATH}?q=${encodeURIComponent('sirh nord')}`, root)
    expect(all.html).toContain(nordHook.url)
    expect(all.html).not.toContain(sudHook.url)
    // Another sub-tree's log is not found, nor its panels opened.
    expect((await page(`${PATH}/${nordHook.id}`, sud)).status).toBe(404)
    expect((await page(`${PATH}?modifier=${nordHook.id}`, sud)).html).not.toContain(nordHook.url)
    // A long search is an answer, never a failure.
    const long = await page(`${PATH}?q=${'mot '.repeat(60)}`, nord)
    expect(long.status).toBe(200)
  })
})

describe('subscribing from the form', () => {
  it('saves the events ticked (a family whole stands for its own) and shows the secret once, never again', async () => {
    const url = `https://rh.example/form/${++sequence}`
    const made = await send(
      [
        ['intent', 'creer'],
        ['url', url],
        ['description', 'Paie'],
        ['evenements', 'poste.*'],
        ['evenements', 'poste.cree'],
        ['evenements', 'utilisateur.supprime'],
        ['structure', '4'],
        ['actif', 'on'],
      ],
      nord,
    )
    expect(made.status).toBe(200)
    const secret = /whsec_[A-Za-z0-9+/]+={0,2}/.exec(made.html)?.[0]
    expect(secret).toBeDefined()
    expect(made.html).toContain('Copiez ce secret maintenant : il ne sera plus jamais affiché.')
    const row = await db()
      .selectFrom('webhook')
      .select(['id', 'evenements', 'actif'])
      .where('url', '=', url)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(row.evenements)).toEqual(['poste.*', 'utilisateur.supprime'])
    expect(row.actif).toBe(1)
    // The list, read again, never shows it.
    const list = await page(PATH, nord)
    expect(list.html).toContain(url)
    expect(list.html).not.toContain(secret as string)
  })

  it('says a refusal on its field: no event, an address that is not https, a structure of another sub-tree', async () => {
    const url = `http://rh.example/form/${++sequence}`
    const refused = await send(
      [
        ['intent', 'creer'],
        ['url', url],
        ['structure', '4'],
      ],
      nord,
    )
    expect(refused.status).toBe(400)
    expect(refused.html).toContain('Choisissez au moins un événement.')
    expect(element(refused.html, 'webhook-evenements')).toContain('aria-invalid="true"')
    // A name no box has (a hand-made post) is said on the events too, never a failure.
    const unknown = await send(
      [
        ['intent', 'creer'],
        ['url', url],
        ['evenements', 'utilisateur.cree'],
        ['evenements', 'inconnu.*'],
        ['structure', '4'],
      ],
      nord,
    )
    expect(unknown.status).toBe(400)
    expect(element(unknown.html, 'webhook-evenements')).toContain('aria-invalid="true"')
    // The address is the API's to judge.
    const insecure = await send(
      [
        ['intent', 'creer'],
        ['url', url],
        ['evenements', 'utilisateur.cree'],
        ['structure', '4'],
      ],
      nord,
    )
    expect(insecure.status).toBe(400)
    expect(element(insecure.html, 'webhook-url')).toContain('aria-invalid="true"')
    expect(element(insecure.html, 'webhook-url')).toContain(`value="${url}"`)
    // Direction Sud from Direction Nord's administrator.
    const beyond = await send(
      [
        ['intent', 'creer'],
        ['url', `https://rh.example/form/${++sequence}`],
        ['evenements', 'utilisateur.cree'],
        ['structure', '3'],
      ],
      nord,
    )
    expect(beyond.status).toBe(400)
    expect(beyond.html).toContain('role="alert"')
    expect(
      await db().selectFrom('webhook').select('id').where('url', 'like', 'http://rh.example/form/%').execute(),
    ).toEqual([])
  })
})

describe('a row', () => {
  it('is changed in its panel: switched off, its events replaced', async () => {
    const hook = await subscribe(nord, 4)
    const panel = await page(`${PATH}?modifier=${hook.id}`, nord)
    expect(panel.html).toContain(`Modifier le webhook ${hook.url}`)
    expect(element(panel.html, 'modifier-evenements-utilisateur')).toContain('checked')
    const saved = await send(
      [
        ['intent', 'modifier'],
        ['id', String(hook.id)],
        ['url', hook.url],
        ['evenements', 'poste.fin'],
        ['description', 'Arrêté'],
        ['actifAvant', 'true'],
      ],
      nord,
      `${PATH}?modifier=${hook.id}`,
    )
    expect(saved.status).toBe(302)
    expect(saved.location).toBe(PATH)
    expect(await read(hook.id)).toMatchObject({ evenements: ['poste.fin'], actif: false, description: 'Arrêté' })
    // Another sub-tree's administrator changes nothing: told it is gone.
    const beyond = await send(
      [
        ['intent', 'modifier'],
        ['id', String(hook.id)],
        ['url', hook.url],
        ['evenements', 'poste.debut'],
      ],
      sud,
    )
    expect(beyond.status).toBe(302)
    expect((await read(hook.id)).evenements).toEqual(['poste.fin'])
  })

  it('opened from its delivery log, goes back to that log, cancelled or saved, focus on the link that opened it', async () => {
    const hook = await subscribe(nord, 4)
    const log = await page(`${PATH}/${hook.id}`, nord)
    const opener = element(log.html, 'journal-modifier')
    expect(opener).toContain(`href="${PATH}?modifier=${hook.id}&journal=1#modifier-webhook"`)
    const panel = await page(`${PATH}?modifier=${hook.id}&journal=1`, nord)
    expect(panel.html).toContain(`href="${PATH}/${hook.id}#journal-modifier"`)
    expect(panel.html).toContain('value="journal-modifier"')
    const saved = await send(
      [
        ['intent', 'modifier'],
        ['id', String(hook.id)],
        ['url', hook.url],
        ['evenements', 'utilisateur.*'],
        ['description', 'Depuis le journal'],
        ['actif', 'on'],
        ['actifAvant', 'true'],
        ['retour', 'journal-modifier'],
      ],
      nord,
      `${PATH}?modifier=${hook.id}&journal=1`,
    )
    expect(saved.status).toBe(302)
    expect(saved.location).toBe(`${PATH}/${hook.id}#journal-modifier`)
    expect((await read(hook.id)).description).toBe('Depuis le journal')
  })

  it('stopped by the portal, keeps saying why once its description is changed; switched on, delivers again', async () => {
    const hook = await subscribe(nord, 4)
    await db()
      .updateTable('webhook')
      .set({ actif: 0, desactive_motif: 'GONE', desactive_le: new Date().toISOString() })
      .where('id', '=', hook.id)
      .execute()
    expect((await page(PATH, nord)).html).toContain('l’adresse a répondu 410 Gone')
    const edit = (extra: [string, string][]) =>
      send(
        [
          ['intent', 'modifier'],
          ['id', String(hook.id)],
          ['url', hook.url],
          ['evenements', 'utilisateur.*'],
          ['actifAvant', 'false'],
          ...extra,
        ],
        nord,
      )
    expect((await edit([['description', 'Nouvelle description']])).status).toBe(302)
    expect(await read(hook.id)).toMatchObject({ actif: false, desactivation: { motif: 'GONE' } })
    expect((await edit([['actif', 'on']])).status).toBe(302)
    expect(await read(hook.id)).toMatchObject({ actif: true, desactivation: null })
  })

  it('gets a new secret, shown once, the former one stopped when asked', async () => {
    const hook = await subscribe(nord, 4)
    expect((await page(`${PATH}?secret=${hook.id}`, nord)).html).toContain(
      `Nouveau secret de signature pour ${hook.url}`,
    )
    const renewed = await send(
      [
        ['intent', 'secret'],
        ['id', String(hook.id)],
        // A page older than the address, or a form tampered with: the answer names the address as it is.
        ['url', 'https://ailleurs.example/ancienne'],
        ['revoquerAncien', 'on'],
      ],
      nord,
    )
    expect(renewed.status).toBe(200)
    expect(renewed.html).toContain(`Secret de signature de ${hook.url}`)
    expect(renewed.html).not.toContain('ailleurs.example')
    const secret = /whsec_[A-Za-z0-9+/]+={0,2}/.exec(renewed.html)?.[0]
    expect(secret).toBeDefined()
    expect(secret).not.toBe(hook.secret)
    expect(renewed.html).toContain('L’ancien ne signe plus.')
    expect((await read(hook.id)).ancienSecretExpire).toBeNull()
  })

  it('gone meanwhile, is said in a notice however long the address posted', async () => {
    const gone = await send(
      [
        ['intent', 'supprimer'],
        ['id', '99999999'],
        ['url', `https://rh.example/${'x'.repeat(5000)}`],
      ],
      nord,
    )
    expect(gone.status).toBe(302)
    expect(gone.location).toBe(PATH)
  })

  it('is deleted once confirmed', async () => {
    const hook = await subscribe(nord, 4)
    const confirm = await page(`${PATH}?confirmer=supprimer&id=${hook.id}`, nord)
    expect(confirm.html).toContain(`Supprimer le webhook ${hook.url} ?`)
    const deleted = await send(
      [
        ['intent', 'supprimer'],
        ['id', String(hook.id)],
        ['url', hook.url],
      ],
      nord,
      `${PATH}?confirmer=supprimer&id=${hook.id}`,
    )
    expect(deleted.status).toBe(302)
    expect(deleted.location).toBe(PATH)
    expect(await db().selectFrom('webhook').select('id').where('id', '=', hook.id).execute()).toEqual([])
  })
})

describe('the delivery log', () => {
  it('lists the events due, filtered by state, and sends one again', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribe(nord, 2)
    const hired = await post(
      '/rest/bd/utilisateur',
      {
        login: 'ignored',
        nom: 'Journal',
        prenom: 'Jeanne',
        mail: `journal${++sequence}@example.test`,
        admin: false,
        actif: true,
        domain: ORIGIN,
        poste: {
          structure: { id: 4 },
          fonction: { id: 2 },
          dateDebut: wireDate(isoDate(0)),
          dateFin: wireDate(isoDate(30)),
        },
      },
      { token: nord.token, env: queue.env },
    )
    expect(hired.status).toBe(201)
    const [delivery] = await db()
      .selectFrom('webhook_livraison')
      .select('id')
      .where('webhook_id', '=', hook.id)
      .execute()
    expect(delivery).toBeDefined()
    const log = await page(`${PATH}/${hook.id}`, nord)
    expect(log.status).toBe(200)
    expect(log.html).toContain(`<title>Livraisons de ${hook.url} · Portail</title>`)
    expect(log.html).toContain('utilisateur.cree')
    expect(log.html).toContain('En attente')
    expect(log.html).toContain('Pas encore tentée')
    expect((await page(`${PATH}/${hook.id}?etat=LIVREE`, nord)).html).toContain('Aucune livraison dans cet état.')
    // Sent again: its attempts counted afresh, the history says who.
    await db()
      .updateTable('webhook_livraison')
      .set({ attempts: 3 })
      .where('id', '=', delivery?.id as number)
      .execute()
    const resent = await send(
      [
        ['intent', 'renvoyer'],
        ['id', String(delivery?.id)],
      ],
      nord,
      `${PATH}/${hook.id}`,
      queue.env,
    )
    expect(resent.status).toBe(302)
    expect(resent.location).toBe(`${PATH}/${hook.id}#livraison-${delivery?.id}`)
    const row = await db()
      .selectFrom('webhook_livraison')
      .select('attempts')
      .where('id', '=', delivery?.id as number)
      .executeTakeFirstOrThrow()
    expect(row.attempts).toBe(0)
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'WEBHOOK_RENVOI')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toContain(hook.url)
    // Another sub-tree's administrator cannot: refused, nothing changed.
    await db()
      .updateTable('webhook_livraison')
      .set({ attempts: 2 })
      .where('id', '=', delivery?.id as number)
      .execute()
    const beyond = await send(
      [
        ['intent', 'renvoyer'],
        ['id', String(delivery?.id)],
      ],
      sud,
      `${PATH}/${hook.id}`,
      queue.env,
    )
    expect(beyond.status).toBe(400)
    const kept = await db()
      .selectFrom('webhook_livraison')
      .select('attempts')
      .where('id', '=', delivery?.id as number)
      .executeTakeFirstOrThrow()
    expect(kept.attempts).toBe(2)
  })
})
