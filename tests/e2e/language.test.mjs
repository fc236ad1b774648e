// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

for (const mode of MODES) {
  describe(`language ${mode.name}`, () => {
    it('speaks English to en-GB and en-US browsers', async () => {
      for (const acceptLanguage of ['en-GB,en;q=0.9', 'en-US']) {
        const page = await newPage({ ...mode, locale: 'en-GB', acceptLanguage })
        await page.goto('/login')
        await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
        assert.equal(await page.locator('html').getAttribute('lang'), 'en')
        await page.context().close()
      }
    })

    it('speaks French to French and to any other language', async () => {
      for (const acceptLanguage of ['fr-FR,fr;q=0.9', 'de-DE,de;q=0.9,en;q=0.5']) {
        const page = await newPage({ ...mode, acceptLanguage })
        await page.goto('/login')
        await page.getByRole('heading', { name: 'Connexion', level: 1 }).waitFor()
        assert.equal(await page.locator('html').getAttribute('lang'), 'fr')
        await page.context().close()
      }
    })

    it('switches language and keeps the choice across pages', async () => {
      const page = await newPage(mode)
      await page.goto('/login')
      await page.getByRole('button', { name: 'English' }).click()
      await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
      await signIn(page, mode, 'agent', 'Agent1234')
      await page.getByRole('heading', { name: 'My access', level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
      await page.context().close()
    })
  })
}

describe('language when the words cannot be fetched', () => {
  it('comes alive in its language all the same, and switches', async () => {
    const mode = MODES[0]
    const page = await newPage({ ...mode, locale: 'en-GB', acceptLanguage: 'en-GB,en;q=0.9' })
    await page.route('**/locales/**', (route) => route.abort())
    // Signing in with JavaScript needs the live page: the verification widget is a script's.
    await signIn(page, mode, 'agent', 'Agent1234')
    await page.getByRole('heading', { name: 'My access', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Français' }).click()
    await page.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()
    await page.context().close()
  })
})
