import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { IMPORT_MAX_BYTES } from '../../../worker-api/contract/bulk/bulk'
import { browserCookieOf, createOrganisation, createUser, currentPost, db, ORIGIN, sessionFor } from '../helpers'
import { visit } from '../visit'

/**
 * The import page's upload (`/pages/admin/import`, a plain multipart form, so that it works without JavaScript): the
 * file goes on to the API's preview as the browser sends it, never held whole by the page, and a form that is no
 * upload says why on the form.
 */

let cookie = ''

beforeAll(async () => {
  await createOrganisation()
  const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  cookie = await browserCookieOf({ ...admin, ...(await sessionFor(admin.id)) })
})

const BOUNDARY = '----portail-upload-test'
const SAME_ORIGIN = { Origin: ORIGIN, Host: new URL(ORIGIN).host }

/** A multipart form's parts in the order given: text fields, and a file as `[name, content]`. */
function multipart(parts: [string, string | [string, string]][]) {
  return parts
    .map(([name, value]) =>
      typeof value === 'string'
        ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
        : `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${value[0]}"\r\n` +
          `Content-Type: text/csv\r\n\r\n${value[1]}\r\n`,
    )
    .join('')
    .concat(`--${BOUNDARY}--\r\n`)
}

const upload = (body: BodyInit, headers: Record<string, string> = {}) =>
  visit('/pages/admin/import', {
    method: 'POST',
    body,
    headers: {
      Cookie: cookie,
      ...SAME_ORIGIN,
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Accept-Language': 'fr',
      ...headers,
    },
    // A stream as body is sent as it comes.
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit)

const imports = async () =>
  Number((await db().selectFrom('import').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n)

describe('the import page’s upload', () => {
  it('sends the file to the preview and opens the import it keeps', async () => {
    const file = 'nom;type;parent\r\nAgence Arras;Agence;Direction Nord\r\nAgence Douai;Agence;Direction Nord\r\n'
    const response = await upload(
      multipart([
        ['intent', 'apercu'],
        ['type', 'structures'],
        ['fichier', ['agences.csv', file]],
      ]),
    )
    expect(response.status).toBe(302)
    const id = Number(/\/pages\/admin\/import\/(\d+)$/.exec(response.headers.get('Location') ?? '')?.[1])
    const kept = await db().selectFrom('import').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(kept).toMatchObject({ etat: 'APERCU', type: 'structures', fichier: 'agences.csv', lignes: 2, creees: 2 })
  })

  it('takes a file whose name holds the separators of its part’s header', async () => {
    const response = await upload(
      multipart([
        ['type', 'structures'],
        ['fichier', ['rh;2026=v2.csv', 'nom;type;parent\r\nAgence Bethune;Agence;Direction Nord\r\n']],
      ]),
    )
    expect(response.status).toBe(302)
    const kept = await db().selectFrom('import').select('lignes').where('fichier', '=', 'rh;2026=v2.csv').execute()
    expect(kept).toEqual([{ lignes: 1 }])
  })

  it('reads the file while the browser is still sending it: a wrong header is answered before the body ends', async () => {
    const before = await imports()
    const head = multipart([
      ['intent', 'apercu'],
      ['type', 'utilisateurs'],
      ['fichier', ['mauvais.csv', 'nom;type;parent\r\nAgence;Agence;Groupe\r\n']],
    ]).replace(/\r\n--[^\r\n]*--\r\n$/, '')
    // The body's first bytes, then nothing more until the page answers: a page that waited for the whole form
    // (`request.formData()`) would never answer.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(head))
      },
    })
    const response = await upload(body)
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('La première ligne doit nommer les colonnes')
    expect(await imports()).toBe(before)
  })

  it('takes a file of any size at the page’s data address too, where a page with JavaScript posts it', async () => {
    // 2 000 agencies, 70 KB: over the bound of every other form's body (64 KiB).
    const rows = Array.from({ length: 2000 }, (_, n) => `Agence Donnees ${n};Agence;Direction Nord`)
    const file = `nom;type;parent\r\n${rows.join('\r\n')}\r\n`
    expect(file.length).toBeGreaterThan(64 * 1024)
    const response = await visit('/pages/admin/import.data?index', {
      method: 'POST',
      body: multipart([
        ['intent', 'apercu'],
        ['type', 'structures'],
        ['fichier', ['donnees.csv', file]],
      ]),
      headers: {
        Cookie: cookie,
        ...SAME_ORIGIN,
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      },
    })
    expect(response.status).toBeLessThan(400)
    const kept = await db()
      .selectFrom('import')
      .select(['etat', 'lignes', 'creees'])
      .where('fichier', '=', 'donnees.csv')
      .executeTakeFirstOrThrow()
    expect(kept).toEqual({ etat: 'APERCU', lignes: 2000, creees: 2000 })
  })

  it('asks what the file holds when the form names no type before its file', async () => {
    const before = await imports()
    const response = await upload(
      multipart([
        ['fichier', ['agences.csv', 'nom;type;parent\r\nAgence Lens;Agence;Direction Nord\r\n']],
        ['type', 'structures'],
      ]),
    )
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('Choisissez ce que contient le fichier.')
    expect(await imports()).toBe(before)
  })

  it('asks for a file when none was chosen, or an empty one', async () => {
    for (const file of [
      ['', ''],
      ['vide.csv', ''],
    ] as [string, string][]) {
      const response = await upload(
        multipart([
          ['type', 'structures'],
          ['fichier', file],
        ]),
      )
      expect(response.status).toBe(400)
      expect(await response.text()).toContain('Choisissez un fichier CSV.')
    }
  })

  it('says the file could not be read when the body is no multipart form or holds a part no form sends', async () => {
    const answers = [
      await upload('type=structures', { 'Content-Type': 'application/x-www-form-urlencoded' }),
      await upload(
        multipart([
          ['type', 'x'.repeat(1000)],
          ['fichier', ['a.csv', 'nom;type;parent\r\n']],
        ]),
      ),
      await upload(multipart([['type', 'structures']]).replace(/--\r\n$/, '\r\nContent-Disposition: form-data; na')),
      await upload(
        multipart([
          ...Array.from({ length: 20 }, (_, n): [string, string] => [`champ${n}`, 'x']),
          ['type', 'structures'],
          ['fichier', ['a.csv', 'nom;type;parent\r\nAgence Liévin;Agence;Direction Nord\r\n']],
        ]),
      ),
    ]
    for (const response of answers) {
      expect(response.status).toBe(400)
      expect(await response.text()).toContain('Le fichier n’a pas pu être lu. Réessayez.')
    }
  })

  it(`refuses an upload announced over ${IMPORT_MAX_BYTES / 1024 / 1024} MiB before reading it`, async () => {
    const response = await upload('', { 'Content-Length': String(IMPORT_MAX_BYTES + 1024 * 1024) })
    expect(response.status).toBe(413)
  })
})
