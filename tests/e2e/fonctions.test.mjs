// @ts-check
// A structure's functions on its page (issue 25): a delegated administrator adds one, renames it
// and creates a user with it; its delete is refused while a post holds it, saying how many; a root
// administrator ticks the applications a function opens. With and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, notice, organisationDay, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

/** What a delegated administrator reads about the applications a function opens. */
const GRANTS_BY_ROOT =
  'Les applications qu’ouvre chaque fonction sont choisies par les administrateurs de la structure racine.'

/**
 * The functions card of a structure page, and one of its functions.
 * @param {Page} page
 */
const card = (page) => page.locator('#fonctions')
/**
 * @param {Page} page
 * @param {string} libelle
 */
const itemOf = (page, libelle) =>
  card(page)
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: libelle, exact: true, level: 3 }) })

/**
 * Deletes a function through its confirmation: a dialog with JavaScript, a page without.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} libelle
 */
async function confirmDelete(page, mode, libelle) {
  await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer la fonction ${libelle}` }).click()
  const confirmation = mode.javaScriptEnabled
    ? page.getByRole('alertdialog')
    : page.getByRole('region', { name: `Supprimer la fonction ${libelle}` })
  await confirmation.getByRole('button', { name: 'Supprimer' }).click()
}

// Names of this run's own: a file run again on the same server (run.mjs) does not meet the functions its first attempt added.
const attempt = Date.now().toString(36).slice(-4)
for (const [index, mode] of MODES.entries()) {
  const suffix = `${index === 0 ? 'JS' : 'sans JS'} ${attempt}`

  describe(`a structure's functions ${mode.name}`, () => {
    it('a delegated administrator adds one, renames it, creates a user with it; its delete is refused then', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      await page.goto('/pages/admin/structure/detail/6')
      await itemOf(page, 'Agent de quai').waitFor()

      const first = `Cariste ${suffix}`
      await card(page).getByLabel('Nouvelle fonction').fill(first)
      await card(page).getByRole('button', { name: 'Ajouter la fonction' }).click()
      await notice(page, `Fonction ${first} ajoutée`).waitFor()
      await itemOf(page, first).getByText('Aucun poste').waitFor()
      await itemOf(page, first).getByText('N’ouvre aucune application').waitFor()

      // The same name in another case is the same function: said on the field, what was typed kept.
      await card(page).getByLabel('Nouvelle fonction').fill(first.toUpperCase())
      await card(page).getByRole('button', { name: 'Ajouter la fonction' }).click()
      await card(page).getByText(`${first} existe déjà dans cette structure`).waitFor()
      assert.equal(await card(page).getByLabel('Nouvelle fonction').inputValue(), first.toUpperCase())

      const renamed = `Cariste confirmé ${suffix}`
      await page.getByRole('link', { name: `Renommer ${first}` }).click()
      const field = page.getByLabel(`Nouveau nom de ${first}`)
      await field.fill(renamed)
      await field.press('Enter')
      await notice(page, `Fonction renommée ${renamed}`).waitFor()
      await itemOf(page, renamed).waitFor()

      // The create-user form of the structure offers it.
      const mail = `cariste.${index}.${Date.now()}@portail.example`
      await page.goto('/pages/admin/user/6/new')
      await page.getByLabel('Adresse e-mail', { exact: true }).fill(mail)
      await page.getByLabel('Confirmation de l’adresse e-mail').fill(mail)
      await page.getByLabel('Nom', { exact: true }).fill('Cariste')
      await page.getByLabel('Prénom').fill('Camille')
      await page.getByLabel('Fonction').selectOption({ label: renamed })
      await page.getByLabel('Date de début').fill(organisationDay(0))
      await page.getByLabel('Date de fin').fill(organisationDay(365))
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Utilisateur ${mail} créé`).waitFor()

      await page.goto('/pages/admin/structure/detail/6')
      await itemOf(page, renamed).getByText('1 poste').waitFor()
      // Held by a post, it cannot be deleted: its dialog (a panel without JavaScript) says why and
      // offers nothing that would fail, only to close.
      await page
        .getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer la fonction ${renamed}` })
        .click()
      const refusal = mode.javaScriptEnabled
        ? page.getByRole('alertdialog', { name: `Impossible de supprimer la fonction ${renamed}` })
        : page.getByRole('region', { name: `Impossible de supprimer la fonction ${renamed}` })
      await refusal.getByText('1 poste, passé compris, est de cette fonction').waitFor()
      assert.equal(await refusal.getByRole('button', { name: 'Supprimer' }).count(), 0)
      await refusal.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: 'Fermer' }).click()
      await refusal.waitFor({ state: 'detached' })
      await itemOf(page, renamed).waitFor()
      await page.context().close()
    })

    it('a root administrator ticks what a function opens; a function without posts is deleted', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/structure/detail/5')
      const libelle = `Peseur ${suffix}`
      await card(page).getByLabel('Nouvelle fonction').fill(libelle)
      await card(page).getByLabel('Nouvelle fonction').press('Enter')
      await notice(page, `Fonction ${libelle} ajoutée`).waitFor()

      await page.getByRole('link', { name: `Applications ouvertes par ${libelle}` }).click()
      const grants = page.getByRole('group', { name: `Applications ouvertes par ${libelle}` })
      await grants.getByRole('checkbox', { name: 'Pesage' }).check()
      await page.getByRole('button', { name: 'Enregistrer les applications' }).click()
      await notice(page, `Applications de ${libelle} enregistrées`).waitFor()
      await itemOf(page, libelle).getByText('Pesage').waitFor()

      await confirmDelete(page, mode, libelle)
      await notice(page, `Fonction ${libelle} supprimée`).waitFor()
      await itemOf(page, libelle).waitFor({ state: 'detached' })
      await page.context().close()
    })

    it('a delegated administrator is not offered the grants', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      await page.goto('/pages/admin/structure/detail/6?acces=10')
      await itemOf(page, "Chef d'agence").waitFor()
      assert.equal(await page.getByRole('link', { name: /^Applications ouvertes par/ }).count(), 0)
      assert.equal(await page.getByRole('group', { name: /^Applications ouvertes par/ }).count(), 0)
      // What each function opens is shown, and who sets it is said.
      await card(page).getByText(GRANTS_BY_ROOT).waitFor()
      await page.context().close()
    })

    it('a root administrator, who sets the grants, is not told who sets them', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/structure/detail/6')
      await itemOf(page, "Chef d'agence").waitFor()
      assert.equal(await card(page).getByText(GRANTS_BY_ROOT).count(), 0)
      await page.context().close()
    })
  })
}
