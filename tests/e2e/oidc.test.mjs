// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { violations } from './axe.mjs'
import { MODES, signIn, submitLogin, useBrowser } from './support.mjs'

const newPage = useBrowser()

/**
 * OpenID Connect in a real browser, with the demo relying party `npm start` serves (openid-client, at
 * /demo-app/oidc): sign-in through the portal's login page and back, single sign-on from the launcher,
 * RP-initiated logout, and the back-channel logout the portal posts when its session ends — JavaScript
 * on and off for the portal's pages.
 */
for (const mode of MODES) {
  describe(`OpenID Connect ${mode.name}`, () => {
    it('an anonymous visitor of the application signs in at the portal and comes back signed in; no address on the way, redirects included, carries a token', async () => {
      const page = await newPage(mode)
      // Every address the browser asked for, and every one it was sent to (a redirect's, Remix's own).
      const addresses = []
      page.on('request', (request) => addresses.push(request.url()))
      page.on('response', (response) => {
        for (const header of ['location', 'x-remix-redirect']) {
          const to = response.headers()[header]
          if (to) addresses.push(new URL(to, response.url()).href)
        }
      })
      await page.goto('/demo-app/oidc')
      await page.getByRole('button', { name: 'Se connecter avec le portail' }).click()
      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('redirect'))
      assert.match(new URL(page.url()).searchParams.get('redirect') ?? '', /^\/oidc\/authorize\?/)
      await submitLogin(page, mode, 'agent', 'Agent1234')
      await page.waitForURL((url) => url.pathname === '/demo-app/oidc', { timeout: 20_000 })
      await page.getByText('Connecté par le portail : Thomas Lefebvre').waitFor()
      await page.getByText('Agent de quai — Agence Lille').waitFor()
      // The way back went through the authorization and the application's callback, with the code alone.
      addresses.push(page.url())
      const callbacks = addresses
        .map((address) => new URL(address))
        .filter((url) => url.pathname === '/demo-app/oidc/callback')
      assert.ok(
        addresses.some((address) => new URL(address).pathname === '/oidc/authorize'),
        'the authorization was on the way',
      )
      assert.ok(
        callbacks.length > 0 && callbacks.every((url) => url.searchParams.has('code')),
        'the callback got the code',
      )
      for (const address of addresses) assert.doesNotMatch(address, /access_token|id_token|refresh_token/)
      await page.context().close()
    })

    it('the launcher opens it already signed in; signing out of the portal signs it out too (back-channel)', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('button', { name: 'Lancer Démo OpenID Connect (nouvel onglet)' }).click(),
      ])
      await tab.waitForURL((url) => url.pathname === '/demo-app/oidc', { timeout: 20_000 })
      await tab.getByText('Connecté par le portail : Thomas Lefebvre').waitFor()
      // No password asked again: the portal's session was reused.
      assert.equal(await tab.getByLabel('Mot de passe').count(), 0)

      await page.getByRole('button', { name: 'Déconnexion' }).click()
      await page.waitForURL((url) => url.pathname === '/login')
      // The portal posts the logout token to the demo's back-channel address right after the sign-out.
      let told = false
      for (let attempt = 0; attempt < 20 && !told; attempt++) {
        await tab.reload()
        told = (await tab.getByText('Votre session du portail est terminée', { exact: false }).count()) > 0
        if (!told) await new Promise((resolve) => setTimeout(resolve, 500))
      }
      assert.ok(told, 'the demo application was told of the sign-out')
      // Told, it ended its own session: nothing of the user is shown any more, a new sign-in is offered.
      await tab.getByRole('button', { name: 'Se connecter avec le portail' }).waitFor()
      for (const gone of ['Thomas Lefebvre', 'thomas.lefebvre@portail.example', 'Agent de quai — Agence Lille']) {
        assert.equal(await tab.getByText(gone, { exact: false }).count(), 0, gone)
      }
      assert.equal(await tab.getByRole('button', { name: 'Se déconnecter' }).count(), 0)
      assert.equal(await tab.getByRole('button', { name: 'Renouveler les jetons' }).count(), 0)
      if (mode.javaScriptEnabled)
        assert.deepEqual(await violations(tab, { every: true }), [], 'the demo told of the sign-out')
      // Opened again, it stays signed out.
      await tab.reload()
      await tab.getByRole('button', { name: 'Se connecter avec le portail' }).waitFor()
      assert.equal(await tab.getByText('Thomas Lefebvre', { exact: false }).count(), 0)
      await page.context().close()
    })

    it('signing out of the application ends the portal session (RP-initiated logout) and comes back', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      await page.goto('/demo-app/oidc')
      await page.getByRole('button', { name: 'Se connecter avec le portail' }).click()
      await page.getByText('Connecté par le portail : Thomas Lefebvre').waitFor({ timeout: 20_000 })
      await page.getByRole('button', { name: 'Se déconnecter' }).click()
      await page.waitForURL((url) => url.pathname === '/demo-app/oidc', { timeout: 20_000 })
      await page.getByRole('button', { name: 'Se connecter avec le portail' }).waitFor()
      await page.goto('/pages/user/acces')
      await page.waitForURL((url) => url.pathname === '/login')
      await page.context().close()
    })

    it('says on the page when an application asks with an address it did not register', async () => {
      const page = await newPage(mode)
      const response = await page.goto(
        '/oidc/authorize?client_id=demo-oidc&redirect_uri=https%3A%2F%2Fevil.example.test%2Fcb&response_type=code&scope=openid',
      )
      assert.equal(response?.status(), 400)
      await page.getByRole('alert').getByText("L'adresse de retour demandée n'est pas enregistrée").waitFor()
      assert.equal(new URL(page.url()).host, new URL(response?.url() ?? '').host)
      await page.context().close()
    })
  })
}

/** The OpenID Connect pages a person sees: the portal's and the demo application's. @type {[string, string][]} */
const PAGES = [
  ['the demo signed out', '/demo-app/oidc'],
  ['a refused authorization', '/oidc/authorize?client_id=inconnu&redirect_uri=https%3A%2F%2Frp.example.test%2Fcb'],
  ['the logout confirmation', '/oidc/logout?client_id=demo-oidc'],
]

for (const [language, acceptLanguage] of [
  ['French', 'fr-FR'],
  ['English', 'en-GB'],
]) {
  describe(`OpenID Connect pages in ${language}`, () => {
    it('have no accessibility violation and fit 320, 360 and 768 px without sideways scrolling', async () => {
      const mode = { javaScriptEnabled: true }
      const page = await newPage({ ...mode, locale: acceptLanguage, acceptLanguage })
      await signIn(page, mode, 'agent', 'Agent1234')
      const check = async (/** @type {string} */ name) => {
        assert.deepEqual(await violations(page, { every: true }), [], name)
        for (const width of [320, 360, 768]) {
          await page.setViewportSize({ width, height: 800 })
          const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
          assert.ok(sideways <= 0, `${name} at ${width} px scrolls sideways by ${sideways} px`)
        }
        await page.setViewportSize({ width: 1280, height: 800 })
      }
      for (const [name, path] of PAGES) {
        await page.goto(path)
        await page.locator('h1').first().waitFor()
        await check(name)
      }
      // Signed in to the demo: its claims, posts and ID token.
      await page.goto('/demo-app/oidc')
      await page.getByRole('button', { name: /Se connecter avec le portail|Sign in with the portal/ }).click()
      await page.waitForURL((url) => url.pathname === '/demo-app/oidc' && !url.search, { timeout: 20_000 })
      await page.getByRole('status').waitFor()
      await check('the demo signed in')
      await page.context().close()
    })
  })
}
