// @ts-check
// The function templates (issue 25) and the story that was a dead end: a root administrator adds a
// function to the agencies' template; a delegated administrator creates an agency under their
// direction, which starts with it; a user created there with it is invited, signs in and launches.
// With and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { linkFromMailbox, MODES, notice, organisationDay, signIn, until, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

/**
 * A function of the template form, by its place (1 for the first).
 * @param {Page} page
 * @param {number} n
 */
const fonction = (page, n) => page.getByRole('group', { name: `Fonction ${n}`, exact: true })

/**
 * The names of the template form's functions, in order.
 * @param {Page} page
 */
const names = (page) =>
  page
    .locator('#modele input[name$=".libelle"]')
    .evaluateAll((/** @type {HTMLInputElement[]} */ inputs) => inputs.map((i) => i.value))

for (const [index, mode] of MODES.entries()) {
  const suffix = index === 0 ? 'JS' : 'sans JS'
  const added = `Préparateur ${suffix}`

  describe(`the function templates ${mode.name}`, () => {
    it('a root administrator adds a function to the agencies’ template, moves it, and saves', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.getByRole('navigation').getByRole('link', { name: 'Modèles de fonctions' }).click()
      await page.getByRole('heading', { name: 'Modèles de fonctions', level: 1 }).waitFor()
      await page.getByRole('link', { name: 'Modifier le modèle Agence' }).click()
      await page.getByRole('heading', { name: 'Modèle Agence', level: 1 }).waitFor()
      const before = await names(page)
      assert.equal(before[0], "Chef d'agence", 'the demo template, in its order')

      // Added at the end, its name takes the focus; a name already in the list is refused on its field.
      await page.getByRole('button', { name: 'Ajouter une fonction' }).click()
      const last = fonction(page, before.length + 1)
      await last.getByLabel('Nom de la fonction').waitFor()
      if (mode.javaScriptEnabled) {
        await until(page, () => document.activeElement?.getAttribute('name')?.endsWith('.libelle'))
      }
      await last.getByLabel('Nom de la fonction').fill('agent de quai')
      await page.getByRole('button', { name: 'Enregistrer le modèle' }).click()
      await fonction(page, before.length + 1)
        .getByText('Ce nom figure déjà dans la liste')
        .waitFor()
      await fonction(page, before.length + 1)
        .getByLabel('Nom de la fonction')
        .fill(added)
      await fonction(page, before.length + 1)
        .getByLabel('Suivi des expéditions')
        .check()

      // Moved up one place; another added then removed changes nothing.
      await page.getByRole('button', { name: `Monter la fonction ${before.length + 1}` }).click()
      await until(
        page,
        (/** @type {[string, number]} */ [name, at]) =>
          /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#modele input[name$=".libelle"]'))[at]
            ?.value === name,
        [added, before.length - 1],
      )
      await page.getByRole('button', { name: 'Ajouter une fonction' }).click()
      await fonction(page, before.length + 2).waitFor()
      await page.getByRole('button', { name: `Retirer la fonction ${before.length + 2}` }).click()
      await fonction(page, before.length + 2).waitFor({ state: 'detached' })
      assert.deepEqual(await names(page), [...before.slice(0, -1), added, before.at(-1)])
      // What was ticked survived the moves.
      assert.equal(await fonction(page, before.length).getByLabel('Suivi des expéditions').isChecked(), true)

      await page.getByRole('button', { name: 'Enregistrer le modèle' }).click()
      await page.waitForURL((url) => url.pathname === '/pages/admin/modeles')
      await notice(page, 'Modèle Agence enregistré').waitFor()
      const agence = page.getByRole('listitem').filter({ hasText: added })
      await agence.getByText('Ouvre : Suivi des expéditions').waitFor()
      await page.context().close()
    })

    it('an agency created under a direction starts with it: a user created there signs in and launches', async () => {
      const page = await newPage(mode)
      const nom = `Agence Nîmes ${suffix}`
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      await page.goto('/pages/admin/structure')
      await page.getByLabel('Nom', { exact: true }).fill(nom)
      await page.getByLabel('Type').selectOption({ label: 'Agence' })
      if (!mode.javaScriptEnabled) {
        await page.getByRole('button', { name: 'Afficher les structures parentes de ce type' }).click()
      }
      await page.waitForURL((url) => url.searchParams.has('type'))
      await page.getByText('Une seule structure parente possible : elle est choisie.').waitFor()
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Structure ${nom} créée`).waitFor()

      // Its page lists the template's functions, the one just added with what it opens.
      await page.goto(`/pages/admin/listeStructures?q=${encodeURIComponent(nom)}`)
      await page.getByRole('link', { name: nom, exact: true }).click()
      await page.getByRole('heading', { name: 'Modifier la structure', level: 1 }).waitFor()
      assert.equal(await page.getByLabel('Nom', { exact: true }).inputValue(), nom)
      const card = page.locator('#fonctions')
      await card.getByRole('heading', { name: added, level: 3 }).waitFor()
      await card.getByRole('heading', { name: "Chef d'agence", level: 3 }).waitFor()
      const id = new URL(page.url()).pathname.split('/').at(-1)

      // A user with that function: invited, chooses a password, signs in and launches.
      const mail = `preparateur.${index}.${Date.now()}@portail.example`
      await page.goto(`/pages/admin/user/${id}/new`)
      await page.getByLabel('Adresse e-mail', { exact: true }).fill(mail)
      await page.getByLabel('Confirmation de l’adresse e-mail').fill(mail)
      await page.getByLabel('Nom', { exact: true }).fill('Prépa')
      await page.getByLabel('Prénom').fill('Paule')
      await page.getByLabel('Fonction').selectOption({ label: added })
      await page.getByLabel('Date de début').fill(organisationDay(0))
      await page.getByLabel('Date de fin').fill(organisationDay(365))
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Utilisateur ${mail} créé`).waitFor()

      const link = await linkFromMailbox(page, mail, 'Votre compte sur le portail')
      const invited = await newPage(mode)
      await invited.goto((await link.getAttribute('href')) ?? '')
      await invited.getByLabel('Nouveau mot de passe').fill('Prepa1234')
      await invited.getByLabel('Confirmation du mot de passe').fill('Prepa1234')
      await invited.getByRole('button', { name: 'Enregistrer le mot de passe' }).click()
      await invited.waitForURL((url) => url.pathname === '/login')
      await signIn(invited, mode, mail, 'Prepa1234')
      await invited.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()
      const [tab] = await Promise.all([
        invited.context().waitForEvent('page'),
        invited.getByRole('button', { name: 'Lancer Suivi des expéditions (nouvel onglet)' }).click(),
      ])
      await tab.waitForURL((url) => url.pathname === '/demo-app/suivi' && url.searchParams.has('code'))
      await tab.getByText(/Connecté à .* par le portail\. Paule Prépa/).waitFor()
      await invited.context().close()
      await page.context().close()
    })

    it('is not offered to an administrator of a sub-tree, and refuses them', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      assert.equal(await page.getByRole('link', { name: 'Modèles de fonctions' }).count(), 0)
      for (const path of ['/pages/admin/modeles', '/pages/admin/modeles/3']) {
        const response = await page.goto(path)
        assert.equal(response?.status(), 403, path)
        await page.getByRole('heading', { level: 1 }).waitFor()
        assert.equal(await page.getByLabel('Nom de la fonction').count(), 0, path)
      }
      // Nor can they post the form.
      const posted = await page.request.post('/pages/admin/modeles/3', {
        form: { 'fonctions[0].libelle': 'Intrus', intent: 'modele', type: 'Agence' },
        headers: { Origin: new URL(page.url()).origin },
      })
      assert.equal(posted.status(), 403)
      await page.context().close()
    })
  })
}
