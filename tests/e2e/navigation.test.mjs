// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, signIn, submitLogin, useBrowser } from './support.mjs'

const newPage = useBrowser()

for (const mode of MODES) {
  describe(`guard and layout ${mode.name}`, () => {
    it('sends a visitor from / to /login, and a signed-in user from / to the access page', async () => {
      const page = await newPage(mode)
      await page.goto('/')
      assert.equal(new URL(page.url()).pathname, '/login')
      await signIn(page, mode, 'agent', 'Agent1234')
      await page.goto('/')
      assert.equal(new URL(page.url()).pathname, '/pages/user/acces')
      await page.context().close()
    })

    it('sends a visitor to /login with the wanted page, and back there after sign-in', async () => {
      const page = await newPage(mode)
      await page.goto('/pages/user/me')
      const url = new URL(page.url())
      assert.equal(url.pathname, '/login')
      assert.equal(url.searchParams.get('redirect'), '/pages/user/me')
      await submitLogin(page, mode, 'agent', 'Agent1234')
      await page.waitForURL('**/pages/user/me')
      await page.getByRole('heading', { name: 'Mon profil', level: 1 }).waitFor()
      await page.getByText('Agence Lille').first().waitFor()
      await page.context().close()
    })

    it('keeps a non-admin out of admin pages and unknown pages', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      const nav = page.getByRole('navigation', { name: 'Navigation principale' }).last()
      assert.equal(await nav.getByText('Administration').count(), 0)
      await nav.getByText('Thomas Lefebvre').waitFor()
      await page.goto('/pages/admin/listeStructures')
      assert.equal(new URL(page.url()).pathname, '/pages/user/acces')
      await page.goto('/pages/nimporte/quoi')
      assert.equal(new URL(page.url()).pathname, '/pages/user/acces')
      await page.context().close()
    })

    it("says 'not allowed' inside the layout on every admin page outside a sub-tree administrator's scope", async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      // Agence Lille (4) and its users are Direction Nord's; so is user 2 (the agent).
      for (const path of [
        '/pages/admin/structure/detail/4',
        '/pages/admin/user/structure/4',
        '/pages/admin/user/4/new',
        '/pages/admin/detail/user/2',
        '/pages/admin/user/detail/2',
      ]) {
        const response = await page.goto(path)
        assert.equal(response?.status(), 403, path)
        await page.getByRole('heading', { level: 1, name: 'Accès non autorisé' }).waitFor()
        assert.equal(await page.title(), 'Accès non autorisé · Portail', path)
        const nav = page.getByRole('navigation', { name: 'Navigation principale' }).last()
        await nav.getByRole('heading', { name: 'Administration' }).waitFor()
        await page.getByRole('link', { name: 'Aller à mes accès' }).waitFor()
      }
      await page.context().close()
    })

    it('tells a sub-tree administrator that the catalogue, the templates and the security settings are the root administrators’, in a titled page as wide as any other', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      // Where every page's heading starts: a refusal's starts there too, not in a narrower column.
      await page.goto('/pages/admin/listeStructures')
      const left = await page.locator('main h1').evaluate((h1) => h1.getBoundingClientRect().left)
      const heading = page.getByRole('heading', {
        level: 1,
        name: 'Réservé aux administrateurs de la structure racine',
      })
      for (const path of [
        '/pages/admin/applications',
        '/pages/admin/applications/nouvelle',
        '/pages/admin/applications/3',
        '/pages/admin/modeles',
        '/pages/admin/modeles/3',
        '/pages/admin/securite',
      ]) {
        const response = await page.goto(path)
        assert.equal(response?.status(), 403, path)
        await heading.waitFor()
        assert.equal(await page.title(), 'Réservé aux administrateurs de la structure racine · Portail', path)
        assert.equal(await heading.evaluate((h1) => h1.getBoundingClientRect().left), left, path)
        assert.equal(await page.getByText("que vous n'administrez pas").count(), 0, path)
        await page.getByRole('link', { name: 'Aller à mes accès' }).waitFor()
      }
      // An unknown page is titled too.
      await page.goto('/pages/admin/structure/detail/999999')
      await page.getByRole('heading', { level: 1, name: 'Page introuvable' }).waitFor()
      assert.equal(await page.title(), 'Page introuvable · Portail')
      await page.context().close()
    })

    it('shows the Administration group to an admin, with the breadcrumb from Home', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      const nav = page.getByRole('navigation', { name: 'Navigation principale' }).last()
      await nav.getByRole('heading', { name: 'Administration' }).waitFor()
      for (const link of [
        'Tableau de bord',
        'Structures',
        'Créer un utilisateur',
        'Gérer les utilisateurs',
        'Autoriser un utilisateur',
        'Historique',
        // The catalogue's screens: the root's administrators alone.
        'Applications',
        'Modèles de fonctions',
      ]) {
        await nav.getByRole('link', { name: link }).waitFor()
      }
      const crumbs = page.getByRole('navigation', { name: "Fil d'Ariane" })
      await crumbs.getByRole('link', { name: 'Accueil' }).waitFor()
      await crumbs.getByText('Mes accès').waitFor()
      await page.context().close()
    })

    it('signs out: back to /login, and the pages are closed again', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      await page.getByRole('button', { name: 'Déconnexion' }).click()
      await page.waitForURL('**/login')
      await page.goto('/pages/user/acces')
      assert.equal(new URL(page.url()).pathname, '/login')
      await page.context().close()
    })
  })
}
