import { describe, expect, it } from 'vitest'
import { wordsHref } from '../../app/lib/words.server'
import { fr } from '../../app/locales/fr'
import { loader as words } from '../../app/routes/locales.$language'
import { uiContext } from './helpers'

const ask = (path: string, language: string) =>
  words({
    request: new Request(`https://portail.example.org${path}`),
    context: uiContext,
    params: { language },
  } as Parameters<typeof words>[0])

describe("a page's words, fetched by the browser in its language", () => {
  it('answer the language at its current address, kept a year (365 days)', async () => {
    const href = wordsHref('fr')
    const response = await ask(href, 'fr')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(fr)
    expect(response.headers.get('Cache-Control')).toBe(`public, max-age=${365 * 24 * 3600}, immutable`)
  })

  it('have an address per language that a change of their words changes', async () => {
    expect(wordsHref('fr')).toMatch(/^\/locales\/fr\?v=\w+$/)
    expect(wordsHref('en')).toMatch(/^\/locales\/en\?v=\w+$/)
    expect(wordsHref('fr').split('v=')[1]).not.toBe(wordsHref('en').split('v=')[1])
  })

  it('are not kept under an address that is not the current one', async () => {
    const response = await ask('/locales/en?v=old', 'en')
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-cache')
  })

  it('are not found in a language the portal does not speak', async () => {
    expect((await ask('/locales/de', 'de')).status).toBe(404)
  })
})
