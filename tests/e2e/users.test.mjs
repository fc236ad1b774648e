// @ts-check
// The user administration screens: the list of the scope's users (filters, search, pages, expandable
// rows, delete and restore) and a user's profile as an administrator sees it (switches, effective
// rights), with and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  cameBackAtFragment,
  focused,
  linkFromMailbox,
  MODES,
  notice,
  organisationDay,
  signIn,
  submitLogin,
  useBrowser,
} from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

/**
 * The list's rows (the expandable detail rows aside).
 * @param {Page} page
 */
const rows = (page) => page.getByRole('table').locator('tbody tr:not([id^="details-"])')

/**
 * Searches the list: as one types with JavaScript, with the button without.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} text
 */
async function search(page, mode, text) {
  await page.getByLabel('Rechercher par nom ou prénom').fill(text)
  if (!mode.javaScriptEnabled) await page.getByRole('button', { name: 'Rechercher' }).click()
  await page.waitForURL((url) => url.searchParams.get('q') === text)
}

for (const [index, mode] of MODES.entries()) {
  const login = `gestion${index + 1}`
  const prenom = index === 0 ? 'Gaëlle' : 'Gérard'
  const fullName = `${prenom} Gestion`

  describe(`the user administration screens ${mode.name}`, () => {
    it('creates a user in a structure → invitation in the mailbox → the user chooses a password and launches', async () => {
      const page = await newPage(mode)
      const mail = `invite${index + 1}.${Date.now()}@portail.example`
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/user/structure/4')
      await page.getByRole('main').getByRole('link', { name: 'Créer un utilisateur' }).click()
      await page.getByRole('heading', { name: 'Créer un utilisateur', level: 1 }).waitFor()
      await page.getByLabel('Adresse e-mail', { exact: true }).fill(mail)
      await page.getByLabel('Confirmation de l’adresse e-mail').fill(mail)
      if (mode.javaScriptEnabled) await page.getByText('Adresse disponible').waitFor()
      await page.getByLabel('Nom', { exact: true }).fill('Invité')
      await page.getByLabel('Prénom').fill('Inès')
      await page.getByLabel('Fonction').selectOption({ label: 'Opérateur pesage' })
      await page.getByLabel('Date de début').fill(organisationDay(0))
      await page.getByLabel('Date de fin').fill(organisationDay(365))
      await page.getByText('Un e-mail sera envoyé à l’utilisateur pour l’inviter à choisir son mot de passe').waitFor()
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await page.waitForURL('**/pages/user/acces')
      await notice(page, `Utilisateur ${mail} créé`).waitFor()

      // The invitation, followed as the new user would.
      const link = await linkFromMailbox(page, mail, 'Votre compte sur le portail')
      assert.match((await link.getAttribute('href')) ?? '', /\/renewPassword\/[A-Za-z0-9_-]{43}$/)
      const invited = await newPage(mode)
      await invited.goto((await link.getAttribute('href')) ?? '')
      await invited.getByLabel('Nouveau mot de passe').fill('Invite123')
      await invited.getByLabel('Confirmation du mot de passe').fill('Invite123')
      await invited.getByRole('button', { name: 'Enregistrer le mot de passe' }).click()
      await invited.waitForURL((url) => url.pathname === '/login')
      await signIn(invited, mode, mail, 'Invite123')
      await invited.getByRole('button', { name: 'Lancer Pesage (nouvel onglet)' }).waitFor()
    })

    it('searches without accents, filters and expands a row', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/listeUtilisateurs')
      // One name for the list: the menu's, its heading's, its title's and every breadcrumb's.
      await page.getByRole('heading', { name: 'Gérer les utilisateurs', level: 1 }).waitFor()
      assert.equal(await page.title(), 'Gérer les utilisateurs · Portail')
      const crumbs = page.getByRole('navigation', { name: "Fil d'Ariane" })
      await crumbs.getByText('Gérer les utilisateurs', { exact: true }).waitFor()
      for (const path of ['/pages/admin/user/new', '/pages/admin/detail/user/2']) {
        await page.goto(path)
        await crumbs.getByRole('link', { name: 'Gérer les utilisateurs', exact: true }).waitFor()
      }
      await page.goto('/pages/admin/listeUtilisateurs')

      // Spec §5: first and last names, whatever their case — and their accents.
      await search(page, mode, 'ZOE lefevre')
      await rows(page).first().getByText('Lefèvre', { exact: true }).waitFor()
      assert.equal(await rows(page).count(), 1)

      // The row opens on its posts.
      await page
        .getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: 'Afficher les postes de Zoé Lefèvre' })
        .click()
      await page.getByText('Agence Rouen, Agent de quai : du 01/01/2024 au 31/12/2035').waitFor()

      // A filter is a link that stays in the URL; its reset takes it away.
      await search(page, mode, '')
      await page.getByRole('link', { name: 'Inactifs' }).click()
      await page.waitForURL((url) => url.searchParams.get('actif') === 'false')
      await rows(page).filter({ hasText: 'Roux' }).waitFor()
      assert.equal(await rows(page).filter({ hasText: 'Lefebvre' }).count(), 0, 'the active agent is filtered out')
      await page.getByRole('link', { name: 'Réinitialiser le filtre « État »' }).click()
      await page.waitForURL((url) => !url.searchParams.has('actif'))
      await page.getByRole('link', { name: 'Supprimés', exact: true }).click()
      await rows(page).filter({ hasText: 'Fournier' }).waitFor()
      assert.match((await rows(page).filter({ hasText: 'Fournier' }).getAttribute('class')) ?? '', /destructive/)
    })

    it('deactivates from the profile (sign-in refused), then deletes and restores from the list', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/listeUtilisateurs?q=gestion')
      await page.getByRole('link', { name: `Détail de ${fullName}` }).click()
      await page.getByRole('heading', { name: fullName, level: 1 }).waitFor()
      // What the delegation grants: Agence Rouen's dock agents launch three applications.
      const rights = page.getByRole('region', { name: "Applications qu'il peut lancer aujourd'hui" })
      for (const name of ['Yard dangereux', 'Pesage', 'Suivi des expéditions']) await rights.getByText(name).waitFor()

      await page.getByRole('switch', { name: 'Actif' }).uncheck()
      if (!mode.javaScriptEnabled) await page.getByRole('button', { name: 'Appliquer' }).click()
      await notice(page, 'Le compte est mis à jour.').waitFor()
      assert.equal(await page.getByRole('switch', { name: 'Actif' }).isChecked(), false)
      // Keyboard focus stays on the control the action came from (WCAG 2.4.3), not on the page's body:
      // the switch with JavaScript, the button that applied it without (the page came back focused on it).
      await focused(
        mode.javaScriptEnabled
          ? page.getByRole('switch', { name: 'Actif' })
          : page.getByRole('button', { name: 'Appliquer' }),
      )

      const other = await newPage(mode)
      await other.goto('/login')
      await submitLogin(other, mode, login, 'Agent1234')
      await other.getByText('Votre compte est désactivé, merci de contacter votre administrateur.').waitFor()

      await page.getByRole('switch', { name: 'Actif' }).check()
      if (!mode.javaScriptEnabled) await page.getByRole('button', { name: 'Appliquer' }).click()
      await notice(page, 'Le compte est mis à jour.').waitFor()

      // Delete, after its confirmation: a dialog with JavaScript, a page section without.
      await page.goto('/pages/admin/listeUtilisateurs?q=gestion')
      await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${fullName}` }).click()
      const confirmation = mode.javaScriptEnabled
        ? page.getByRole('alertdialog')
        : page.getByRole('region', { name: `Supprimer ${fullName} ?` })
      await confirmation.getByRole('button', { name: 'Supprimer' }).click()
      await notice(page, `${fullName} est supprimé.`).waitFor()
      // The delete button is gone: focus goes to what took its place, the row's restore (without
      // JavaScript too, once the page is back from the confirmation).
      await focused(page.getByRole('button', { name: `Rétablir ${fullName}` }))
      await page.getByRole('button', { name: `Rétablir ${fullName}` }).click()
      await notice(page, `${fullName} est rétabli.`).waitFor()
      await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${fullName}` }).waitFor()
      await focused(page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${fullName}` }))
    })
  })
}

for (const [index, mode] of MODES.entries()) {
  describe(`a user's posts ${mode.name}`, () => {
    it('deletes a post after its confirmation; the keyboard goes on from the post that took its place', async () => {
      const page = await newPage(mode)
      const id = 924 + index
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(`/pages/admin/detail/user/${id}`)
      await page.getByRole('heading', { level: 1 }).waitFor()
      const chief = "Chef d'agence, Agence Rouen"
      const name = `Supprimer le poste ${chief}`
      await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name }).click()
      const confirmation = mode.javaScriptEnabled
        ? page.getByRole('alertdialog')
        : page.getByRole('region', { name: `${name} ?` })
      await confirmation.getByRole('button', { name: 'Supprimer le poste' }).click()
      await notice(page, `Le poste ${chief} est supprimé.`).waitFor()
      const remaining = page.getByRole('row').filter({ hasText: 'Agent de quai' })
      if (mode.javaScriptEnabled) {
        // Its delete button is gone: focus goes to the control that took its place, the next post's.
        await focused(remaining.getByRole('button', { name: 'Supprimer le poste Agent de quai, Agence Rouen' }))
      } else {
        // The page comes back at the post that took the deleted one's place (once loaded, its
        // stylesheets with it: the browser goes to the row only then).
        await cameBackAtFragment(page)
        await page.keyboard.press('Tab')
        assert.equal(await remaining.evaluate((row) => row.contains(document.activeElement)), true)
      }
      await page.context().close()
    })
  })
}

describe('a new administrator creating a user with JavaScript', () => {
  /**
   * The create-user form of Agence Lille, filled but for the address.
   * @param {Page} page
   */
  async function fillAllButTheAddress(page) {
    await signIn(page, { javaScriptEnabled: true }, 'admin', 'Admin1234')
    await page.goto('/pages/admin/user/4/new')
    await page.getByLabel('Nom', { exact: true }).fill('Martin')
    await page.getByLabel('Prénom').fill('Léa')
    await page.getByLabel('Fonction').selectOption({ label: 'Opérateur pesage' })
    await page.getByLabel('Date de début').fill(organisationDay(0))
    await page.getByLabel('Date de fin').fill(organisationDay(30))
  }

  it('is told an address is malformed or too long, not that it is available, and cannot save it', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await fillAllButTheAddress(page)
    const long = `${'a'.repeat(41)}@portail.example`
    for (const [typed, message] of /** @type {[string, string][]} */ ([
      ['abc', 'Adresse e-mail invalide'],
      [long, "L'adresse e-mail compte 50 caractères au plus"],
    ])) {
      await page.getByLabel('Adresse e-mail', { exact: true }).fill(typed)
      await page.getByLabel('Confirmation de l’adresse e-mail').fill(typed)
      await page.getByText(message).waitFor()
      assert.equal(await page.getByText('Adresse disponible').count(), 0, typed)
      assert.equal(await page.getByRole('button', { name: 'Enregistrer' }).isDisabled(), true, typed)
    }
    await page.context().close()
  })

  it('can save once both the last and the first name are there, as the hint says (spec §5)', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await fillAllButTheAddress(page)
    const free = `lea.martin.${Date.now()}@portail.example`
    await page.getByLabel('Adresse e-mail', { exact: true }).fill(free)
    await page.getByLabel('Confirmation de l’adresse e-mail').fill(free)
    await page.getByText('Adresse disponible').waitFor()
    const save = page.getByRole('button', { name: 'Enregistrer' })
    assert.equal(await save.isEnabled(), true)
    await page.getByLabel('Prénom').fill('')
    await page.getByText('et que le nom, le prénom, la structure, la fonction et la période sont renseignés').waitFor()
    assert.equal(await save.isDisabled(), true)
    await page.context().close()
  })
})

for (const [index, mode] of MODES.entries()) {
  describe(`a new administrator creating a user ${mode.name}`, () => {
    it('sees the functions of the structure chosen with no address in the URL, and saves with Enter', async () => {
      const page = await newPage(mode)
      const mail = `entree${index + 1}.${Date.now()}@portail.example`
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/user/new')
      await page.getByLabel('Adresse e-mail', { exact: true }).fill(mail)
      await page.getByLabel('Confirmation de l’adresse e-mail').fill(mail)
      await page.getByLabel('Nom', { exact: true }).fill('Entrée')
      await page.getByLabel('Prénom').fill('Eva')
      if (mode.javaScriptEnabled) {
        // The enhanced combobox (an input), not the native select it replaces once the page is live.
        await page.getByRole('combobox', { name: 'Structure' }).and(page.locator('input')).fill('Agence Lille')
        await page.getByRole('option', { name: 'Agence Lille' }).click()
        await page.waitForURL((url) => url.searchParams.get('structure') === '4')
      } else {
        await page.getByLabel('Structure', { exact: true }).selectOption({ label: 'Agence Lille' })
        await page.getByRole('button', { name: 'Afficher les fonctions' }).click()
      }
      await page.getByLabel('Fonction').selectOption({ label: 'Opérateur pesage' })
      // Only the structure may go in the address bar (and so in histories and logs), never the mail.
      assert.ok(!decodeURIComponent(page.url()).includes(mail), page.url())
      assert.equal(await page.getByLabel('Adresse e-mail', { exact: true }).inputValue(), mail)
      assert.equal(await page.getByLabel('Prénom').inputValue(), 'Eva')
      if (mode.javaScriptEnabled) await page.getByText('Adresse disponible').waitFor()
      await page.getByLabel('Date de début').fill(organisationDay(0))
      await page.getByLabel('Date de fin').fill(organisationDay(30))
      // Enter sends the form to be saved (what the save answers is the first test's business).
      const sent = page.waitForRequest(
        (request) =>
          request.method() === 'POST' && new URLSearchParams(request.postData() ?? '').get('intent') === 'user',
      )
      await page.getByLabel('Date de fin').press('Enter')
      assert.equal(new URLSearchParams((await sent).postData() ?? '').get('mail'), mail)
      await page.context().close()
    })
  })
}
