// The catalogue's list (issue 25): a root administrator switches an application off and on and
// deletes one after a confirmation that says who loses it, with and without JavaScript; the menu
// entry and the page are theirs alone.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, notice, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

/** The list's row of an application. */
const rowOf = (page, libelle) => page.getByRole('row').filter({ hasText: libelle })

for (const [index, mode] of MODES.entries()) {
  const libelle = index === 0 ? 'Essai catalogue avec JS' : 'Essai catalogue sans JS'

  describe(`the catalogue ${mode.name}`, () => {
    it('switch off, on again, then delete after the confirmation', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.getByRole('navigation').first().getByRole('link', { name: 'Applications' }).first().click()
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor()
      // The demo's launchers: the agents of Lille and Rouen and their heads may launch Pesage.
      const pesage = rowOf(page, 'Pesage')
      assert.match(await pesage.innerText(), /Opérateur pesage/)

      await page.getByLabel('Rechercher une application par son nom').fill('Essai catalogue')
      await page.getByLabel('Rechercher une application par son nom').press('Enter')
      await rowOf(page, libelle).waitFor()
      await page.getByRole('button', { name: `Désactiver ${libelle}` }).click()
      await notice(page, `${libelle} est désactivée`).waitFor()
      await rowOf(page, libelle).getByText('Désactivée : absente des accès').waitFor()
      // Focus stays on the row's switch, now the other way round.
      await page.waitForFunction(
        (name) => document.activeElement?.getAttribute('aria-label') === name,
        `Activer ${libelle}`,
      )
      await page.getByRole('button', { name: `Activer ${libelle}` }).click()
      await notice(page, `${libelle} est activée`).waitFor()
      assert.equal(await rowOf(page, libelle).getByText('Désactivée : absente des accès').count(), 0)

      const trigger = page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${libelle}` })
      await trigger.click()
      const confirmation = mode.javaScriptEnabled
        ? page.getByRole('alertdialog')
        : page.getByRole('region', { name: `Supprimer ${libelle}` })
      await confirmation.getByText('Aucun utilisateur ne peut la lancer aujourd’hui.').waitFor()
      await confirmation.getByRole('button', { name: 'Supprimer' }).click()
      await notice(page, `Application ${libelle} supprimée`).waitFor()
      await rowOf(page, libelle).waitFor({ state: 'detached' })
    })

    it('is not offered to an administrator of a sub-tree, and refuses them', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      assert.equal(await page.getByRole('link', { name: 'Applications' }).count(), 0)
      await page.goto('/pages/admin/applications')
      await page.getByRole('heading', { level: 1 }).waitFor()
      assert.equal(await page.getByRole('table').count(), 0)
    })
  })
}
