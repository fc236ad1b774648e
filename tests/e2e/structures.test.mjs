// @ts-check
// The organisation screens (issue 10): an administrator creates, edits, staffs and deletes
// structures, and pages and sorts the list through its URL, with and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cameBackAtFragment, holdScripts, MODES, notice, organisationDay, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

/**
 * The first cell of the list's first row, once it reads `text` (the page may still be loading).
 * @param {Page} page
 * @param {string | RegExp} text
 */
const firstCellReads = (page, text) =>
  page.getByRole('table').locator('tbody tr').first().locator('td').first().filter({ hasText: text }).waitFor()

/**
 * Chooses a type in the structure form: on change with JavaScript, with its button without.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} label
 */
async function chooseType(page, mode, label) {
  await page.getByLabel('Type').selectOption({ label })
  if (!mode.javaScriptEnabled)
    await page.getByRole('button', { name: 'Afficher les structures parentes de ce type' }).click()
  await page.waitForURL((url) => url.searchParams.has('type'))
}

/**
 * Deletes a structure of the list through its confirmation: a dialog with JavaScript, a page without.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} nom
 */
async function deleteFromList(page, mode, nom) {
  const trigger = page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${nom}` })
  await trigger.click()
  const confirmation = mode.javaScriptEnabled
    ? page.getByRole('alertdialog')
    : page.getByRole('region', { name: `Supprimer ${nom}` })
  await confirmation.getByText('Êtes-vous sûr de vouloir supprimer cette structure ?').waitFor()
  await confirmation.getByRole('button', { name: 'Supprimer' }).click()
}

for (const [index, mode] of MODES.entries()) {
  describe(`the organisation screens ${mode.name}`, () => {
    it('create → edit → add a post → delete refused with children → delete', async () => {
      const page = await newPage(mode)
      const suffix = mode.javaScriptEnabled ? 'Alpha' : 'Beta'
      const direction = `Direction ${suffix}`
      const agence = `Agence ${suffix}`
      await signIn(page, mode, 'admin', 'Admin1234')

      // A direction: its only possible parent, the root, is chosen for the user.
      await page.goto('/pages/admin/listeStructures')
      await page.getByRole('link', { name: 'Créer une structure' }).click()
      await page.getByRole('heading', { name: 'Créer une structure', level: 1 }).waitFor()
      await page.getByLabel('Nom', { exact: true }).fill(direction)
      await chooseType(page, mode, 'Direction')
      assert.equal(
        await page.getByLabel('Nom', { exact: true }).inputValue(),
        direction,
        'the name typed survives the type change',
      )
      await page.getByText('Une seule structure parente possible : elle est choisie.').waitFor()
      assert.equal(await page.getByLabel('Structure parente').isDisabled(), true)
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await page.waitForURL('**/pages/admin/listeStructures')
      await notice(page, `Structure ${direction} créée`).waitFor()

      // An agence below it, among several directions; a name taken is refused on its field.
      await page.goto('/pages/admin/structure')
      await page.getByLabel('Nom', { exact: true }).fill('agence lille')
      await chooseType(page, mode, 'Agence')
      await page.getByLabel('Structure parente').selectOption({ label: direction })
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await page.getByText('Agence Lille déjà utilisé').first().waitFor()
      await page.getByLabel('Nom', { exact: true }).fill(agence)
      if (!mode.javaScriptEnabled) await page.getByLabel('Structure parente').selectOption({ label: direction })
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await page.waitForURL('**/pages/admin/listeStructures')
      await notice(page, `Structure ${agence} créée`).waitFor()

      // Edit: rename the direction, from its detail page (found by the list's search).
      await page.getByLabel('Rechercher une structure par son nom').fill(suffix)
      if (!mode.javaScriptEnabled) await page.getByRole('button', { name: 'Rechercher' }).click()
      await page.waitForURL((url) => url.searchParams.get('q') === suffix)
      await page.getByRole('link', { name: `Modifier ${direction}` }).click()
      await page.getByRole('heading', { name: 'Modifier la structure', level: 1 }).waitFor()
      await page.getByRole('navigation', { name: "Fil d'Ariane" }).getByText(direction).waitFor()
      await page.getByLabel('Nom', { exact: true }).fill(`${direction} modifiée`)
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await page.waitForURL('**/pages/admin/listeStructures')
      await notice(page, `Structure ${direction} modifiée enregistrée`).waitFor()
      await page.goto(`/pages/admin/listeStructures?q=${suffix}`)
      await page.getByRole('link', { name: `${direction} modifiée`, exact: true }).waitFor()

      // The new agence starts with the functions of its type's template: the add-post form offers them.
      await page.getByRole('link', { name: `Gérer les utilisateurs de la structure ${agence}` }).click()
      await page.getByRole('heading', { name: `Utilisateurs de la structure ${agence}`, level: 1 }).waitFor()
      await page.getByRole('link', { name: 'Ajouter un utilisateur existant' }).click()
      // A modal dialog once the page is live; a section of the page without JavaScript.
      const form = mode.javaScriptEnabled
        ? page.getByRole('dialog', { name: `Ajouter un utilisateur à la structure ${agence}` })
        : page.locator('#ajout')
      await form.getByLabel('Fonction').waitFor()
      const offered = await form.getByLabel('Fonction').locator('option').allTextContents()
      assert.ok(offered.includes("Chef d'agence") && offered.includes('Agent de quai'), offered.join(', '))
      if (mode.javaScriptEnabled) {
        await page.keyboard.press('Escape')
        await page.waitForURL((url) => !url.searchParams.has('ajouter'))
        await form.waitFor({ state: 'detached' })
      }

      // A post in Agence Rouen (two functions) for a user without any, starting in a year.
      const prenom = index === 0 ? 'Rachel' : 'Romain'
      await page.goto('/pages/admin/user/structure/5?ajouter=1')
      // With JavaScript, the section becomes a dialog once the page is live (the native select is a
      // combobox too, so the dialog is what tells that the script has run).
      if (mode.javaScriptEnabled) await page.getByRole('dialog', { name: /Ajouter un utilisateur/ }).waitFor()
      await page.getByLabel('Chercher parmi les utilisateurs (nom, prénom, mail)').fill(prenom)
      await page.getByRole('button', { name: 'Chercher', exact: true }).click()
      await page.waitForURL((url) => url.searchParams.get('recherche') === prenom)
      if (mode.javaScriptEnabled) {
        const user = page.getByRole('combobox', { name: 'Utilisateur' })
        await user.fill('Recrue')
        await page.getByRole('option', { name: new RegExp(prenom) }).click()
      } else {
        await page
          .getByLabel('Utilisateur', { exact: true })
          .selectOption({ label: `Recrue ${prenom} (${prenom.toLowerCase()}.recrue@portail.example)` })
      }
      await page.getByLabel('Fonction').selectOption({ label: "Chef d'agence" })
      await page.getByLabel('Date de début').fill(organisationDay(400 + index * 30))
      await page.getByLabel('Date de fin').fill(organisationDay(410 + index * 30))
      await page.getByRole('button', { name: 'Ajouter', exact: true }).click()
      const futurs = page.getByRole('region', { name: 'Utilisateurs futurs' })
      await futurs.getByRole('cell', { name: prenom, exact: true }).waitFor()

      // Retyped into an agence, the direction is not offered as its own parent, and its agence forbids it.
      await page.goto(`/pages/admin/listeStructures?q=${suffix}`)
      await page.getByRole('link', { name: `Modifier ${direction} modifiée` }).click()
      await page.getByRole('heading', { name: 'Modifier la structure', level: 1 }).waitFor()
      await chooseType(page, mode, 'Agence')
      // The URL changes before the page shows the new type's parents: wait for one of them.
      await page
        .getByLabel('Structure parente')
        .locator('option', { hasText: 'Direction Nord' })
        .waitFor({ state: 'attached' })
      const parents = await page.getByLabel('Structure parente').locator('option').allTextContents()
      assert.ok(parents.includes('Direction Nord'), 'the other directions are offered')
      assert.ok(!parents.includes(`${direction} modifiée`), 'a structure is not offered as its own parent')
      await page.getByLabel('Structure parente').selectOption({ label: 'Direction Nord' })
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await page
        .getByText(
          'Cette structure a des structures filles : son type ne peut pas changer tant qu’elles lui sont rattachées.',
        )
        .waitFor()

      // The root always has children: no delete is offered for it.
      await page.goto('/pages/admin/listeStructures')
      await firstCellReads(page, 'Groupe Transports et Logistique')
      const rootDelete = page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', {
        name: 'Supprimer Groupe Transports et Logistique',
      })
      assert.equal(await rootDelete.count(), 0)

      // The direction still has its agence: refused with spec §8's messages; then both go.
      await page.goto(`/pages/admin/listeStructures?q=${suffix}`)
      await deleteFromList(page, mode, `${direction} modifiée`)
      const refusal = page.getByRole('alert').filter({ hasText: 'Suppression impossible' })
      await refusal.getByText('La structure actuelle possède des structures filles').waitFor()
      await page.goto(`/pages/admin/listeStructures?q=${suffix}`)
      await deleteFromList(page, mode, agence)
      await notice(page, `Structure ${agence} supprimée`).waitFor()
      if (!mode.javaScriptEnabled) {
        // The page comes back at the row that took the deleted one's place: the keyboard goes on from there
        // (once the page has loaded, its stylesheets with it: the browser goes to the row only then).
        await cameBackAtFragment(page)
        await page.keyboard.press('Tab')
        const row = page.getByRole('row').filter({ hasText: `${direction} modifiée` })
        assert.equal(await row.evaluate((tr) => tr.contains(document.activeElement)), true, 'focus in the next row')
      }
      await deleteFromList(page, mode, `${direction} modifiée`)
      await page.getByText(`Aucune structure ne correspond à « ${suffix} ».`).waitFor()
      await page.context().close()
    })

    it('pages and sorts a long list through its URL', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/listeStructures')
      await firstCellReads(page, 'Groupe Transports et Logistique')
      await page.getByRole('navigation', { name: 'Pagination' }).getByRole('link', { name: 'Page 2' }).click()
      await page.waitForURL((url) => url.searchParams.get('page') === '2')
      assert.equal(await page.getByRole('table').locator('tbody tr').count(), 10)
      // Sorting goes back to the first page; here among the names with "transports".
      await page.goto('/pages/admin/listeStructures?q=transports&page=2')
      await page.getByRole('link', { name: /^Nom/ }).click()
      await page.waitForURL((url) => url.searchParams.get('tri') === 'nom' && !url.searchParams.has('page'))
      await firstCellReads(page, 'Groupe Transports et Logistique')
      await page.getByRole('link', { name: /^Nom/ }).click()
      await page.waitForURL((url) => url.searchParams.get('tri') === '-nom')
      await firstCellReads(page, 'Transports Martin')
      // The URL alone gives the same page: it can be shared or reloaded.
      await page.goto('/pages/admin/listeStructures?tri=nom&q=transports%20du%20sud&page=2')
      await firstCellReads(page, 'Transports du Sud 11')
      // A page past the end (a URL kept from a longer list) goes on to the last one, its search and sort kept,
      // rather than a count over "no structure".
      await page.goto('/pages/admin/listeStructures?tri=nom&q=transports&page=99')
      await page.waitForURL((url) => {
        const last = Number(url.searchParams.get('page'))
        return (
          last > 1 && last < 99 && url.searchParams.get('q') === 'transports' && url.searchParams.get('tri') === 'nom'
        )
      })
      assert.equal(await page.getByText('Aucune structure', { exact: true }).count(), 0)
      assert.equal((await page.getByRole('table').locator('tbody tr').count()) > 0, true)
      await page.context().close()
    })
  })
}

describe('a new administrator in the structure form with JavaScript', () => {
  it('after a failed save, sees the name’s error go once it is typed, and the name check speak', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'admin', 'Admin1234')
    await page.goto('/pages/admin/structure')
    await page.getByRole('button', { name: 'Enregistrer' }).click()
    const nom = page.getByLabel('Nom', { exact: true })
    const nomMessages = () => nom.evaluate((input) => document.getElementById(`${input.id}-error`)?.textContent ?? '')
    await page.getByText('Ce champ est obligatoire').first().waitFor()
    assert.match(await nomMessages(), /Ce champ est obligatoire/)
    await nom.fill('agence lille')
    await page.getByText('Agence Lille déjà utilisé').waitFor()
    assert.doesNotMatch(await nomMessages(), /Ce champ est obligatoire/)
    await page.context().close()
  })

  it("keeps what was typed in the add-post section before the page's script has run", async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'admin', 'Admin1234')
    // The scripts wait until the section is filled in.
    const release = await holdScripts(page)
    await page.goto('/pages/admin/user/structure/5?ajouter=1', { waitUntil: 'domcontentloaded' })
    const section = page.locator('#ajout')
    await section.getByLabel('Chercher parmi les utilisateurs (nom, prénom, mail)').fill('Recrue')
    const user = section.getByLabel('Utilisateur', { exact: true })
    const chosen = (await user.locator('option').nth(1).textContent()) ?? ''
    await user.selectOption({ index: 1 })
    await section.getByLabel('Fonction').selectOption({ label: 'Agent de quai' })
    await section.getByLabel('Date de début').fill('2031-03-01')
    await section.getByLabel('Date de fin').fill('2031-03-31')
    release()
    const dialog = page.getByRole('dialog', { name: /Ajouter un utilisateur/ })
    await dialog.waitFor()
    assert.equal(await dialog.getByLabel('Chercher parmi les utilisateurs (nom, prénom, mail)').inputValue(), 'Recrue')
    assert.equal(await dialog.getByRole('combobox', { name: 'Utilisateur' }).inputValue(), chosen)
    const fonction = dialog.getByLabel('Fonction')
    assert.equal(await fonction.locator('option:checked').textContent(), 'Agent de quai')
    assert.equal(await dialog.getByLabel('Date de début').inputValue(), '2031-03-01')
    assert.equal(await dialog.getByLabel('Date de fin').inputValue(), '2031-03-31')
    await page.context().close()
  })
})
