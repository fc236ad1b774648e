// @ts-check
// A structure to choose among more than a form lists (the first 50 of the scope, by name): the others are
// found by name, as one types with JavaScript, through a search field without.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

for (const mode of MODES) {
  describe(`the structure choice ${mode.name}`, () => {
    it('finds a structure beyond the first 50 by its name and shows its functions', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/user/new')
      if (mode.javaScriptEnabled) {
        const combobox = page.getByRole('combobox', { name: 'Structure' }).and(page.locator('input'))
        await combobox.click()
        // Opened, the list holds the first 50 by name (whatever other files have added before them);
        // Transports Martin comes after them.
        const options = page.getByRole('listbox').getByRole('option')
        await options.nth(49).waitFor()
        assert.equal(await options.count(), 50)
        assert.equal(await options.filter({ hasText: 'Transports Martin' }).count(), 0)
        await combobox.fill('martin')
        await page.getByRole('option', { name: 'Transports Martin' }).click()
        await page.waitForURL((url) => url.searchParams.get('structure') === '7')
        assert.equal(await combobox.inputValue(), 'Transports Martin')
      } else {
        const select = page.getByLabel('Structure', { exact: true })
        assert.equal(await select.locator('option', { hasText: 'Transports Martin' }).count(), 0)
        await page.getByText(/^Les 50 premières par nom, sur \d+ : cherchez les autres par leur nom\.$/).waitFor()
        await page.getByLabel('Chercher une structure').fill('martin')
        await page.getByRole('button', { name: 'Chercher', exact: true }).click()
        await page.getByText('1 structure trouvée.').waitFor()
        assert.deepEqual(await select.locator('option').allTextContents(), [
          'Choisir une structure',
          'Transports Martin',
        ])
        await select.selectOption({ label: 'Transports Martin' })
        await page.getByRole('button', { name: 'Afficher les fonctions' }).click()
        assert.equal(await page.getByLabel('Chercher une structure').inputValue(), 'martin')
      }
      // Its one function is chosen for it (spec §4).
      await page
        .getByLabel('Fonction')
        .locator('option:checked', { hasText: 'Chauffeur' })
        .waitFor({ state: 'attached' })
      await page.context().close()
    })
  })
}
