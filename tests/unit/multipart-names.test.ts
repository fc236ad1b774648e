import { unstable_parseMultipartFormData } from '@remix-run/cloudflare'
import { describe, expect, it } from 'vitest'

/**
 * patches/@web3-storage+multipart-parser+1.0.0.patch: the parser behind Remix's `unstable_parseMultipartFormData` (the
 * import page's streamed upload) cut a part's Content-Disposition at every ";" and "=", so that a file named as a
 * browser sends it ("rh;2026.csv", "a=b.csv") made the whole form unreadable. Patched, a quoted value is read whole.
 */
const BOUNDARY = 'portail-names'

async function fileNameOf(disposition: string) {
  const body = [
    `--${BOUNDARY}`,
    'Content-Disposition: form-data; name="type"',
    '',
    'structures',
    `--${BOUNDARY}`,
    disposition,
    'Content-Type: text/csv',
    '',
    'nom;type;parent',
    `--${BOUNDARY}--`,
    '',
  ].join('\r\n')
  const request = new Request('https://portail.example/pages/admin/import', {
    method: 'POST',
    body,
    headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
  })
  const names: (string | undefined)[] = []
  await unstable_parseMultipartFormData(request, async (part) => {
    names.push(part.filename)
    for await (const _chunk of part.data);
    return undefined
  })
  return names[1]
}

describe('file names in a multipart form (patched @web3-storage/multipart-parser)', () => {
  it('reads a quoted file name whole, whatever separators it holds', async () => {
    expect(await fileNameOf('Content-Disposition: form-data; name="fichier"; filename="rh;2026.csv"')).toBe(
      'rh;2026.csv',
    )
    expect(await fileNameOf('Content-Disposition: form-data; name="fichier"; filename="a=b; c.csv"')).toBe('a=b; c.csv')
    expect(await fileNameOf('Content-Disposition: form-data; name="fichier"; filename="dit \\"oui\\".csv"')).toBe(
      'dit "oui".csv',
    )
  })

  it('reads unquoted values, spaces around separators, a trailing one, and a part with no file name', async () => {
    expect(await fileNameOf('Content-Disposition: form-data; name=fichier; filename=simple.csv')).toBe('simple.csv')
    expect(await fileNameOf('Content-Disposition: form-data;name="fichier" ;  filename="é t.csv";')).toBe('é t.csv')
    expect(await fileNameOf('Content-Disposition: form-data; name="fichier"')).toBeUndefined()
  })

  it('still refuses a part whose quote is left open or that has no name', async () => {
    await expect(fileNameOf('Content-Disposition: form-data; name="fichier"; filename="open.csv')).rejects.toThrow(
      /malformed content-disposition/,
    )
    await expect(fileNameOf('Content-Disposition: form-data; filename="a.csv"')).rejects.toThrow(/missing field name/)
  })
})
