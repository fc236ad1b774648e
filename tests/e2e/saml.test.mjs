// @ts-check
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { violations } from './axe.mjs'
import { mellonInstalled, startMellon } from './mellon.mjs'
import { BASE_URL, MODES, notice, signIn, submitLogin, useBrowser } from './support.mjs'

const newPage = useBrowser()

/**
 * SAML 2.0 with an unmodified Apache httpd and mod_auth_mellon, configured from the portal's metadata alone: the root
 * administrator registers it on the application screen by pasting the metadata mellon publishes; its user then signs
 * in to it from its own page (through the portal's sign-in) and from the launcher, with and without JavaScript, and it
 * gets the attributes it was given. Signing out of the portal signs it out of mellon, and mellon's own logout signs it
 * out of the portal. A response changed on its way is refused by mellon; a request presented twice, by the portal.
 */
/** @type {Awaited<ReturnType<typeof startMellon>>} */
let mellon
/** The application's name in the catalogue (its port: one per run, a development database kept between runs). */
let NAME = 'Intranet mellon'

/** The application started and registered, once for both modes (each suite's hook waits for it). */
async function register() {
  assert.ok(mellonInstalled(), 'Apache and mod_auth_mellon are installed (.ci/run: apache2 libapache2-mod-auth-mellon)')
  mellon = await startMellon(`${BASE_URL}/portail-backend/saml/metadata`)
  NAME = `Intranet mellon ${new URL(mellon.base).port}`

  // Registered as an administrator does it: the metadata pasted, the attributes named, granted to a function of its
  // own (tests/e2e/fixtures.sql: no other test's launcher shows it).
  const page = await newPage()
  await signIn(page, MODES[0], 'admin', 'Admin1234')
  await page.goto('/pages/admin/applications/nouvelle')
  await page.getByLabel('Application').fill(NAME)
  await page.getByLabel('Adresse').fill(`${mellon.base}/prive`)
  await page.getByRole('radio', { name: 'Camion' }).check()
  await page.getByRole('radio', { name: 'SAML 2.0' }).check()
  await page.getByLabel('Métadonnées du fournisseur de services (XML)').fill(mellon.metadata)
  // mellon finds the session a logout names by its name identifier alone: one new at each sign-in (README).
  await page.getByRole('radio', { name: 'Transitoire (nouveau à chaque connexion)' }).check()
  await page.getByLabel('Nom de l’attribut : e-mail').fill('mail')
  await page.getByLabel('Nom de l’attribut : identifiant').fill('uid')
  await page.getByLabel('Nom de l’attribut : postes en cours (structure/fonction)').fill('postes')
  await page.getByRole('combobox', { name: 'Structure' }).and(page.locator('input')).fill('Relais 40')
  await page.getByRole('option', { name: 'Relais 40' }).click()
  await page.waitForURL((url) => url.searchParams.get('structure') === '9040')
  await page
    .getByRole('group', { name: 'Fonctions de Relais 40' })
    .getByRole('checkbox', { name: 'Agent intranet' })
    .check()
  await page.getByRole('button', { name: 'Enregistrer' }).click()
  await notice(page, `Application ${NAME} créée`).waitFor()
  await page.context().close()
}
/** @type {Promise<void> | undefined} */
let registered

after(() => mellon?.stop())

/**
 * The protected page as mellon shows it: the variables the assertion set.
 * @param {import('playwright-core').Page} page
 */
async function shownAttributes(page) {
  // The application's own page (the portal's posting page names it too: "Connexion à Intranet mellon …").
  await page.waitForURL((url) => url.origin === mellon.base && url.pathname === '/prive', { timeout: 20_000 })
  await page.getByRole('heading', { name: 'Intranet', exact: true }).waitFor({ timeout: 20_000 })
  const text = (await page.locator('pre').textContent()) ?? ''
  return Object.fromEntries(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  )
}

/**
 * Its user opens the application's page and signs in at the portal.
 * @param {import('playwright-core').Page} page
 * @param {(typeof MODES)[number]} mode
 */
async function signInThroughApplication(page, mode) {
  await page.goto(`${mellon.base}/prive`)
  await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('redirect'))
  await submitLogin(page, mode, 'intranet', 'Agent1234')
  if (!mode.javaScriptEnabled) await page.getByRole('button', { name: `Continuer vers ${NAME}` }).click()
  await shownAttributes(page)
}

for (const mode of MODES) {
  describe(`SAML 2.0 with mod_auth_mellon ${mode.name}`, () => {
    before(async () => {
      registered ??= register()
      await registered
    })

    it('its user opens the application, signs in at the portal and comes back signed in, with the attributes it was given', async () => {
      const page = await newPage(mode)
      await page.goto(`${mellon.base}/prive`)
      // mellon sent its request; the portal's single sign-on page sent the browser to sign in.
      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('redirect'))
      assert.match(new URL(page.url()).searchParams.get('redirect') ?? '', /^\/saml\/connexion\?demande=/)
      await submitLogin(page, mode, 'intranet', 'Agent1234')
      if (!mode.javaScriptEnabled) {
        // Without JavaScript the response goes with the page's button.
        await page.getByRole('button', { name: `Continuer vers ${NAME}` }).click()
      }
      const attributes = await shownAttributes(page)
      assert.equal(attributes.MELLON_mail, 'irene.intranet@portail.example')
      assert.equal(attributes.MELLON_uid, 'intranet')
      assert.equal(attributes.MELLON_postes, 'Relais 40/Agent intranet')
      assert.match(attributes.MELLON_NAME_ID ?? '', /^t[\w-]{20,}$/)
      await page.context().close()
    })

    it('the launcher opens it signed in (a response nobody asked for)', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'intranet', 'Agent1234')
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('button', { name: `Lancer ${NAME} (nouvel onglet)` }).click(),
      ])
      if (!mode.javaScriptEnabled) await tab.getByRole('button', { name: /^Continuer vers / }).click()
      const attributes = await shownAttributes(tab)
      assert.equal(attributes.MELLON_uid, 'intranet')
      await page.context().close()
    })

    it('signing out of the portal signs its user out of the application too (single logout, through the browser)', async () => {
      const page = await newPage(mode)
      await signInThroughApplication(page, mode)
      await page.goto('/pages/user/acces')
      await page.getByRole('button', { name: 'Déconnexion' }).click()
      // The portal sent mellon its logout request, mellon answered, the portal went on to its sign-in page.
      await page.waitForURL((url) => url.pathname === '/login', { timeout: 20_000 })
      await notice(page, 'Vous êtes déconnecté.').waitFor()
      assert.match(mellon.accessLog(), /GET \/mellon\/logout\?SAMLRequest=/)
      // mellon's own session ended: its page asks the portal again, which asks its user to sign in.
      await page.goto(`${mellon.base}/prive`)
      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('redirect'))
      await page.context().close()
    })

    it('signing out of the application signs its user out of the portal (its own logout request), and it is answered', async () => {
      const page = await newPage(mode)
      await signInThroughApplication(page, mode)
      await page.goto(`${mellon.base}/mellon/logout?${new URLSearchParams({ ReturnTo: `${mellon.base}/prive` })}`)
      // mellon got the portal's answer and went back to its page, which asks the portal: nobody is signed in there.
      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('redirect'), { timeout: 20_000 })
      assert.match(mellon.accessLog(), /GET \/mellon\/logout\?SAMLResponse=/)
      await page.goto('/pages/user/acces')
      await page.waitForURL((url) => url.pathname === '/login')
      await page.context().close()
    })

    it('a response changed on its way is refused by the application; a request presented again, by the portal', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'intranet', 'Agent1234')
      // The response's attributes changed in the form the browser posts: mellon checks the signature.
      await page.route(`${mellon.base}/mellon/postResponse`, async (route) => {
        const form = new URLSearchParams(route.request().postData() ?? '')
        const xml = Buffer.from(form.get('SAMLResponse') ?? '', 'base64').toString('utf8')
        const changed = xml.replace('Relais 40/Agent intranet', 'Groupe/Directeur')
        assert.notEqual(changed, xml)
        form.set('SAMLResponse', Buffer.from(changed).toString('base64'))
        await route.continue({ postData: form.toString() })
      })
      let request = ''
      page.on('request', (sent) => {
        if (new URL(sent.url()).pathname === '/portail-backend/saml/sso') request = sent.url()
      })
      await page.goto(`${mellon.base}/prive`)
      if (!mode.javaScriptEnabled) await page.getByRole('button', { name: `Continuer vers ${NAME}` }).click()
      await page.waitForURL((url) => url.pathname === '/mellon/postResponse')
      assert.equal(await page.getByRole('heading', { name: 'Intranet', exact: true }).count(), 0)
      assert.match(mellon.errorLog(), /signature|Signature/)
      await page.unrouteAll()

      // The same request again (its ID seen already): the portal's page says so, nothing is posted.
      assert.ok(request, 'mellon sent a request')
      await page.goto(request)
      await page.getByText('Cette demande de connexion a déjà été présentée').waitFor()
      assert.equal(await page.getByRole('button', { name: /^Continuer vers / }).count(), 0)
      await page.context().close()
    })
  })
}

/** The SAML pages a person may see without an application behind them: what the portal refused, and why. @type {[string, string][]} */
const PAGES = [
  ['a refused sign-in request', '/saml/connexion?refus=UNKNOWN_SP'],
  ['a refused logout request', '/saml/deconnexion?refus=UNSIGNED'],
]

for (const [language, acceptLanguage] of [
  ['French', 'fr-FR'],
  ['English', 'en-GB'],
]) {
  describe(`SAML pages in ${language}`, () => {
    it('have no accessibility violation and fit 320, 360 and 768 px without sideways scrolling', async () => {
      const page = await newPage({ javaScriptEnabled: true, locale: acceptLanguage, acceptLanguage })
      for (const [name, path] of PAGES) {
        const response = await page.goto(path)
        assert.equal(response?.status(), 400, name)
        await page.getByRole('alert').waitFor()
        assert.deepEqual(await violations(page, { every: true }), [], name)
        for (const width of [320, 360, 768]) {
          await page.setViewportSize({ width, height: 800 })
          const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
          assert.ok(sideways <= 0, `${name} at ${width} px scrolls sideways by ${sideways} px`)
        }
        await page.setViewportSize({ width: 1280, height: 800 })
      }
      await page.context().close()
    })
  })
}
