// The catalogue (issue 25): a root administrator registers an application and grants it to the
// agent's function, the agent launches it at once; switches one off and on and deletes one after a
// confirmation that says who loses it, with and without JavaScript; the menu entry and the pages
// are theirs alone.
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
      // Sixty functions grant it: the row names the first three and counts the rest.
      assert.match(await rowOf(page, libelle).textContent(), /Quai 00 · Transports du Sud 06[\s\S]*et 57 autres/)
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

      // Its form cannot list sixty grants: it says so and saves the rest, the grants kept.
      await page.goto(`/pages/admin/applications/${901 + index}`)
      await page.getByText('60 fonctions y donnent accès : trop pour les choisir ici.', { exact: false }).waitFor()
      await page.getByLabel('Adresse').fill(`https://essai.example.test/v2-${index}`)
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${libelle} enregistrée`).waitFor()
      await page.getByLabel('Rechercher une application par son nom').fill(libelle)
      await page.getByLabel('Rechercher une application par son nom').press('Enter')
      assert.match(await rowOf(page, libelle).textContent(), /v2-\d[\s\S]*et 57 autres/)

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

    it('register an application, grant it to the agent’s function: the agent launches it at once', async () => {
      const name = index === 0 ? 'Quai express avec JS' : 'Quai express sans JS'
      const slug = index === 0 ? 'quai-js' : 'quai-sans-js'
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/applications')
      await page.getByRole('link', { name: 'Nouvelle application' }).click()
      await page.getByRole('heading', { name: 'Nouvelle application', level: 1 }).waitFor()
      await page.getByLabel('Application').fill(name)
      await page.getByLabel('Adresse').fill(`/demo-app/${slug}`)
      await page.getByRole('radio', { name: 'Camion' }).check()
      // The functions are chosen structure by structure: Agence Lille's, then its dock agents.
      if (mode.javaScriptEnabled) {
        // The enhanced combobox (an input), not the native select it replaces once the page is live.
        await page.getByRole('combobox', { name: 'Structure' }).and(page.locator('input')).fill('Agence Lille')
        await page.getByRole('option', { name: 'Agence Lille' }).click()
        await page.waitForURL((url) => url.searchParams.get('structure') === '4')
      } else {
        await page.getByLabel('Structure').selectOption({ label: 'Agence Lille' })
        await page.getByRole('button', { name: 'Afficher ses fonctions' }).click()
      }
      const lille = page.getByRole('group', { name: 'Fonctions de Agence Lille' })
      await lille.getByRole('checkbox', { name: 'Agent de quai' }).check()
      // What was typed is still there once the structure's functions are shown.
      assert.equal(await page.getByLabel('Application').inputValue(), name)
      assert.ok(await page.getByRole('radio', { name: 'Camion' }).isChecked())
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${name} créée`).waitFor()
      const row = rowOf(page, name)
      await row.getByText('Agent de quai · Agence Lille').waitFor({ state: 'attached' })

      const agent = await newPage(mode)
      await signIn(agent, mode, 'agent', 'Agent1234')
      await agent.getByRole('heading', { name, level: 2 }).waitFor()
      const [tab] = await Promise.all([
        agent.context().waitForEvent('page'),
        agent.getByRole('button', { name: `Lancer ${name} (nouvel onglet)` }).click(),
      ])
      await tab.waitForURL((url) => url.pathname === `/demo-app/${slug}` && url.searchParams.has('code'))
      await tab.getByText(/Connecté à .* par le portail\. Thomas Lefebvre/).waitFor()

      // The grant taken back on the edit page: the agent's launcher no longer has it.
      await page.getByRole('link', { name, exact: true }).click()
      await page.getByRole('heading', { name: `Modifier ${name}`, level: 1 }).waitFor()
      const chosen = page.getByRole('group', { name: 'Fonctions retenues' })
      await chosen.getByRole('checkbox', { name: 'Agent de quai · Agence Lille' }).uncheck()
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${name} enregistrée`).waitFor()
      await agent.reload()
      await agent.getByRole('heading', { name: 'Pesage', level: 2 }).waitFor()
      assert.equal(await agent.getByRole('heading', { name, level: 2 }).count(), 0)

      // Deleted, so that the demo's launchers are as the other tests know them.
      await rowOf(page, name).waitFor()
      await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${name}` }).click()
      const confirmation = mode.javaScriptEnabled
        ? page.getByRole('alertdialog')
        : page.getByRole('region', { name: `Supprimer ${name}` })
      await confirmation.getByRole('button', { name: 'Supprimer' }).click()
      await notice(page, `Application ${name} supprimée`).waitFor()
      await agent.context().close()
      await page.context().close()
    })

    it('a name already used is said on its field, with what was typed kept', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/applications/nouvelle')
      await page.getByLabel('Application').fill('PESAGE')
      await page.getByLabel('Adresse').fill('https://pesage.example/entree')
      await page.getByRole('radio', { name: 'Balance' }).check()
      await page.getByLabel('Adresse').press('Enter')
      await page.getByText('Pesage déjà utilisé').first().waitFor()
      const field = page.getByLabel('Application')
      await page.waitForFunction(
        () => document.querySelector('input[name="libelle"]')?.getAttribute('aria-invalid') === 'true',
      )
      assert.equal(await field.inputValue(), 'PESAGE')
      assert.equal(await page.getByLabel('Adresse').inputValue(), 'https://pesage.example/entree')
      assert.ok(await page.getByRole('radio', { name: 'Balance' }).isChecked())
      await page.context().close()
    })

    it('is not offered to an administrator of a sub-tree, and refuses them', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      assert.equal(await page.getByRole('link', { name: 'Applications' }).count(), 0)
      for (const path of [
        '/pages/admin/applications',
        '/pages/admin/applications/nouvelle',
        '/pages/admin/applications/3',
      ]) {
        await page.goto(path)
        await page.getByRole('heading', { level: 1 }).waitFor()
        assert.equal(await page.getByRole('table').count(), 0, path)
        assert.equal(await page.getByLabel('Application').count(), 0, path)
      }
    })
  })
}
