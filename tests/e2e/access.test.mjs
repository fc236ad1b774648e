// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

for (const mode of MODES) {
  describe(`access page ${mode.name}`, () => {
    it("lists the agent's applications with a launch button each", async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      const names = await page.getByRole('listitem').getByRole('heading', { level: 2 }).allTextContents()
      assert.deepEqual(names, ['Démo OpenID Connect', 'Pesage', 'Suivi des expéditions', 'Yard dangereux'])
      await page.getByRole('button', { name: 'Lancer Pesage (nouvel onglet)' }).waitFor()
      await page.context().close()
    })

    it('launches an application in a new tab, signed in through a launch code', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      // The application is reached exactly once: a second navigation would spend the single-use code
      // before the one the user sees.
      // An application slow to answer (its first byte after a second) leaves time for anything else
      // that would navigate the tab.
      const reached = []
      await page.context().route('**/demo-app/pesage?*', async (route) => {
        reached.push(route.request().url())
        await new Promise((resolve) => setTimeout(resolve, 1000))
        await route.continue().catch(() => {})
      })
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('button', { name: 'Lancer Pesage (nouvel onglet)' }).click(),
      ])
      await tab.waitForURL((url) => url.pathname === '/demo-app/pesage' && url.searchParams.has('code'))
      await tab.getByText('Connecté à Pesage par le portail. Thomas Lefebvre').waitFor()
      await tab.waitForLoadState('networkidle')
      assert.equal(reached.length, 1, `the application was requested ${reached.length} times`)
      // Whatever the browser's timing: the page between the portal and the application has one way
      // to move on, a refresh, and no script that could move it a second time.
      const between = await page.request.post('/launch', {
        form: { idApplication: '3' },
        headers: { Origin: new URL(page.url()).origin },
      })
      const html = await between.text()
      assert.equal(html.match(/http-equiv="refresh"/g)?.length, 1)
      assert.equal(html.match(/<script/g), null, 'the page carries no script')
      // The code was single use: opening the same address again is refused.
      await tab.reload()
      await tab.getByText('Le code de lancement est invalide ou a expiré', { exact: false }).waitFor()
      await page.context().close()
    })

    it('tells a user without a current post that there is no access', async () => {
      for (const [login, password] of /** @type {[string, string][]} */ ([
        ['sansposte', 'Sansposte1'],
        ['futur', 'Futur1234'],
      ])) {
        const page = await newPage(mode)
        await signIn(page, mode, login, password)
        await page.getByText('Aucun accès, merci de vous rapprocher de votre administrateur.').waitFor()
        assert.equal(await page.getByRole('button', { name: /Lancer/ }).count(), 0)
        // A future post's applications show, greyed and not launchable, with the day they open.
        const upcoming = page.getByRole('region', { name: 'Bientôt disponibles' })
        if (login === 'futur')
          await upcoming
            .getByText(/^Disponible à partir du \d{2}\/\d{2}\/\d{4}$/)
            .first()
            .waitFor()
        else assert.equal(await upcoming.count(), 0)
        await page.context().close()
      }
    })
  })
}
