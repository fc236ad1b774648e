import { beforeAll, describe, expect, it } from 'vitest'
import {
  IMPORT_MAX_BLANK_LINES,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_HEADER_BYTES,
  IMPORT_MAX_ROWS,
  type ImportPreview,
} from '../../../worker-api/contract/bulk/bulk'
import { type FileChunk, fileChunks } from '../../../worker-api/services/bulk/file'
import { call, createOrganisation, createUser, currentPost, sessionFor } from '../helpers'

/**
 * A file's shape and its limits (README, "Moving an organisation in"): at most 100 000 rows and 50 MiB, the header line
 * within 64 KiB, at most 10 000 blank lines, and text — each a clear error of the file, whose cost follows the file's
 * limits rather than its shape.
 */

let root: string

beforeAll(async () => {
  await createOrganisation()
  const rootAdmin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  root = (await sessionFor(rootAdmin.id)).accessToken
})

const encoder = new TextEncoder()

const preview = async (text: string | Uint8Array, init: { language?: string; keep?: boolean } = {}) => {
  const response = await call(`/rest/bd/import?type=structures&essai=true${init.keep ? '&conserver=true' : ''}`, {
    method: 'POST',
    token: root,
    body: typeof text === 'string' ? text : (text.buffer as ArrayBuffer),
    headers: { 'Content-Type': 'text/csv', 'Accept-Language': init.language ?? 'fr' },
  })
  const raw = await response.text()
  return { response, raw, body: JSON.parse(raw) as ImportPreview & { businessCode?: string; message?: string } }
}

/**
 * A body of `first`, then `chunk` again and again, as a client that never stops sending; it fails past `bound` bytes,
 * so that a reader that would read it all fails rather than runs for an hour. `sent()`: the bytes read from it.
 */
function endless(first: string, chunk: Uint8Array, bound: number) {
  let sent = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (first) controller.enqueue(encoder.encode(first))
      },
      pull(controller) {
        if (sent >= bound) controller.error(new Error(`read past ${bound} bytes`))
        sent += chunk.length
        controller.enqueue(chunk)
      },
    },
    // Pulled only when read: `sent` is what the reader asked for.
    { highWaterMark: 0 },
  )
  return { stream, sent: () => sent }
}

const chunksOf = async (body: ReadableStream<Uint8Array>) => {
  const chunks: FileChunk[] = []
  for await (const chunk of fileChunks(body, 'structures', 100)) chunks.push(chunk)
  return chunks
}

/**
 * A test at a limit reads the file up to it: 100 001 rows parsed and planned, 50 MiB parsed up to the byte past them,
 * 10 000 blank lines, each as costly to parse as a row. A few seconds alone, five times that on a loaded two-core
 * machine: such a test gets a minute.
 */
const AT_THE_BOUND = 60_000

describe('the limits of a file', () => {
  it('are the README’s', () => {
    expect([IMPORT_MAX_ROWS, IMPORT_MAX_BYTES, IMPORT_MAX_HEADER_BYTES, IMPORT_MAX_BLANK_LINES]).toEqual([
      100_000,
      50 * 1024 * 1024,
      64 * 1024,
      10_000,
    ])
  })

  it(
    'are 100 000 rows read, the first row past them said so',
    async () => {
      const rows = Array.from({ length: 100_000 + 1 }, (_, n) => `Agence limite ${n};Agence;Direction Nord`)
      const { body } = await preview(['nom;type;parent', ...rows].join('\n'))
      expect(body).toMatchObject({ lignes: 100_000, creees: 100_000, totalErreurs: 1 })
      expect(body.erreurs).toEqual([
        {
          ligne: 100_000 + 2,
          colonne: null,
          message: 'Le fichier dépasse 100\u202f000 lignes : coupez-le en plusieurs fichiers.',
        },
      ])
    },
    AT_THE_BOUND,
  )

  it(
    'are 50 MiB: a file past them is refused with 413 REQUEST_TOO_LARGE',
    async () => {
      // Some 51 000 rows of a kilobyte: fewer than 100 000 rows, just over 50 MiB with the header.
      const line = `${'x'.repeat(1000)};Agence;Direction Nord\n`
      const header = 'nom;type;parent\n'
      const rows = Math.ceil((50 * 1024 * 1024 - header.length) / line.length)
      const text = `${header}${line.repeat(rows)}`
      expect(text.length).toBeGreaterThan(50 * 1024 * 1024)
      const { response, body } = await preview(text)
      expect(response.status).toBe(413)
      expect(body.businessCode).toBe('REQUEST_TOO_LARGE')
    },
    AT_THE_BOUND,
  )

  it('read a file whose upload breaks off as a 400 of the file, not the server’s error', async () => {
    const rows = Array.from({ length: 300 }, (_, n) => `Agence Coupee ${n};Agence;Direction Nord`).join('\n')
    // A client gone after 300 rows: their bytes, then the connection's end without the file's.
    const cut = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`nom;type;parent\n${rows}\n`))
      },
      pull(controller) {
        controller.error(new Error('connection reset'))
      },
    })
    await expect(chunksOf(cut)).rejects.toMatchObject({ businessCode: 'VALIDATION_FAILED', status: 400 })
  })
})

describe('the header line', () => {
  it('is read within 64 KiB: one just past it is refused, in French or English', async () => {
    const line = (bytes: number) => `nom;type;${'x'.repeat(bytes - 'nom;type;'.length)}\nAgence;Agence;Groupe\n`
    const within = await preview(line(64 * 1024))
    // The header is read, and is the wrong one; its error quotes a little of it, not 64 KiB.
    expect(within.body.erreurs[0]?.message).toMatch(/^La première ligne doit nommer les colonnes « nom;type;parent »/)
    expect(within.body.erreurs[0]?.message.length).toBeLessThan(400)
    const past = await preview(line(64 * 1024 + 1))
    expect(past.body).toMatchObject({ lignes: 0, totalErreurs: 1 })
    expect(past.body.erreurs).toEqual([
      {
        ligne: 1,
        colonne: null,
        message:
          'La première ligne dépasse 64 Kio : elle doit nommer les colonnes. Enregistrez le fichier au format « CSV UTF-8 » et recommencez.',
      },
    ])
    const english = await preview(line(64 * 1024 + 1), { language: 'en', keep: true })
    expect(english.response.status).toBe(400)
    expect(english.body.message).toBe(
      'The first line is longer than 64 KiB: it must name the columns. Save the file as “CSV UTF-8” and try again.',
    )
  })

  it('without a line break is refused once 64 KiB are read, the rest of the body left unread', async () => {
    const body = endless('', encoder.encode('x'.repeat(4096)), 1024 * 1024)
    expect(await chunksOf(body.stream)).toEqual([
      {
        rows: [],
        fileProblems: [{ line: 1, problem: { code: 'ENTETE_TROP_LONGUE', colonne: null, valeurs: { max: 64 } } }],
      },
    ])
    expect(body.sent()).toBeLessThanOrEqual(64 * 1024 + 4096)
  })
})

describe('blank lines', () => {
  it(
    'are read up to 10 000, lines of empty cells too; one more is refused at its line',
    async () => {
      const file = (blanks: string[]) => `nom;type;parent\n${blanks.join('\n')}\nAgence Vide;Agence;Direction Nord\n`
      const bound = Array.from({ length: 10_000 }, (_, n) => (n % 2 === 0 ? '' : ';;'))
      expect((await preview(file(bound))).body).toMatchObject({ lignes: 1, creees: 1, totalErreurs: 0 })
      const { body } = await preview(file([...bound, '']))
      expect(body).toMatchObject({ lignes: 0, totalErreurs: 1 })
      expect(body.erreurs).toEqual([
        {
          ligne: 10_002,
          colonne: null,
          message:
            'Le fichier a plus de 10\u202f000 lignes vides : supprimez-les (souvent sous le tableau) et recommencez.',
        },
      ])
    },
    AT_THE_BOUND,
  )

  it(
    'of a body of line feeds are stopped at their bound, not at the body’s end',
    async () => {
      // Sent 64 KiB at a time as a network would; past 16 MiB it fails (a reader that went on would take an hour).
      const body = endless('nom;type;parent\n', encoder.encode('\n'.repeat(64 * 1024)), 16 * 1024 * 1024)
      expect(await chunksOf(body.stream)).toEqual([
        {
          rows: [],
          fileProblems: [
            {
              line: 10_002,
              problem: { code: 'LIGNES_VIDES', colonne: null, valeurs: { max: 10_000 } },
            },
          ],
        },
      ])
    },
    AT_THE_BOUND,
  )

  it(
    'in a file sent in one piece are stopped at their bound too',
    async () => {
      const { body } = await preview(`nom;type;parent\n${'\n'.repeat(256 * 1024)}`)
      expect(body.erreurs.map(({ ligne }) => ligne)).toEqual([10_002])
    },
    AT_THE_BOUND,
  )
})

describe('a file that is not text', () => {
  // A workbook saved as .xlsx (a ZIP: its first entry's name, then binary), a text saved as UTF-16, bytes UTF-8 refuses.
  const xlsx = new Uint8Array([
    ...[0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0x62, 0xee],
    ...encoder.encode('[Content_Types].xml'),
    ...[0xec, 0x97, 0xcb, 0x6e, 0xdb, 0x30, 0x10, 0x45, 0xf7, 0x06, 0xfa, 0x0f, 0x0a, 0x6e, 0x3b, 0x72],
    ...encoder.encode('\nnom;type;parent\n'),
  ])
  const utf16 = new Uint8Array([0xff, 0xfe, ...[...'nom;type;parent\n'].flatMap((c) => [c.charCodeAt(0), 0])])
  const latin = new Uint8Array([0xc3, 0x28, ...encoder.encode('nom;type;parent\nAgence;Agence;Groupe\n')])

  it('is told to be saved as CSV UTF-8, in a short message holding none of its bytes', async () => {
    for (const file of [xlsx, utf16, latin]) {
      const { raw, body } = await preview(file)
      expect(body.erreurs).toEqual([
        {
          ligne: 1,
          colonne: null,
          message:
            'Ce fichier n’est pas un fichier texte CSV (un classeur Excel ?) : enregistrez-le au format « CSV UTF-8 » et recommencez.',
        },
      ])
      expect(raw).not.toMatch(/Content_Types|PK|\\u0000|\uFFFD/)
    }
    const kept = await preview(xlsx, { language: 'en', keep: true })
    expect(kept.response.status).toBe(400)
    expect(kept.body.message).toBe(
      'This file is not a CSV text file (an Excel workbook?): save it as “CSV UTF-8” and try again.',
    )
    expect(kept.raw).not.toMatch(/Content_Types|PK/)
  })
})
