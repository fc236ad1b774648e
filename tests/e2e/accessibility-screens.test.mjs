// @ts-check
// The administration screens under axe (WCAG 2.1 AA, every violation), in French and in English: each screen of the
// menu and its states (tests/e2e/support.mjs ADMIN_SCREENS), a delete dialog and the history's calendar. Apart from
// accessibility.test.mjs, the longest walk, so that the two run side by side.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { violations } from './axe.mjs'
import { ADMIN_SCREENS, signIn, useBrowser, waitFor } from './support.mjs'

const newPage = useBrowser()

describe('accessibility of the administration screens (axe, WCAG 2.1 AA)', () => {
  for (const [language, acceptLanguage] of [
    ['French', 'fr-FR'],
    ['English', 'en-US'],
  ]) {
    it(`has no violation at all on the organisation screens in ${language}, none in the delete dialog nor in the history's calendar`, async () => {
      const mode = { javaScriptEnabled: true }
      const page = await newPage({ ...mode, locale: acceptLanguage, acceptLanguage })
      await signIn(page, mode, 'admin', 'Admin1234')
      for (const path of ADMIN_SCREENS) {
        await page.goto(path)
        await page.locator('main h1').waitFor()
        assert.deepEqual(await violations(page, { every: true }), [], path)
      }
      await page.goto('/pages/admin/listeStructures')
      const remove = page.getByRole('button', {
        name: language === 'French' ? 'Supprimer Agence Lille' : 'Delete Agence Lille',
      })
      // The row says whose: the button shows the word alone, the name is for screen readers (read once the page's
      // styles apply: until then every span shows).
      const shown = language === 'French' ? 'Supprimer' : 'Delete'
      const visibleText = () =>
        remove.evaluate((button) =>
          [...button.querySelectorAll('span')]
            .filter((span) => span.checkVisibility() && getComputedStyle(span).position !== 'absolute')
            .map((span) => span.textContent)
            .join('')
            .trim(),
        )
      await waitFor(async () => (await visibleText()) === shown, `the button does not show ${shown} alone`)
      await remove.click()
      await page.getByRole('alertdialog').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'dialog')
      await page.goto('/pages/admin/listeLogs?du=2020-01-01')
      await page
        .getByRole('button', { name: language === 'French' ? 'Choisir sur le calendrier' : 'Pick on the calendar' })
        .click()
      await page.getByRole('grid').first().waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the history with its calendar open')
      await page.context().close()
    })
  }
})
