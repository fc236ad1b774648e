// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, notice, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

/** Another browser the user signs in with, told apart in the list by its name. */
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
const PASSWORD = 'Agent1234'

/**
 * A browser of its own, signed in as `login` (its scripts on: what it does is not under test).
 * @param {string} login
 * @param {string} [userAgent]
 */
async function otherDevice(login, userAgent = FIREFOX) {
  const page = await newPage({ javaScriptEnabled: true, userAgent })
  await signIn(page, { javaScriptEnabled: true }, login, PASSWORD)
  return page
}

/**
 * Whether that browser's session is over: its next page sends it to the login form, which says the
 * session was ended from another device (or by an administrator, `by`).
 * @param {Page} page
 * @param {string} [by]
 */
async function signedOut(page, by = 'Votre session a été terminée depuis un autre appareil.') {
  await page.goto('/pages/user/acces')
  await page.waitForURL((url) => url.pathname === '/login')
  await page.getByRole('status').filter({ hasText: by }).waitFor()
}

/**
 * The list's rows, under the list's heading.
 * @param {Page} page
 */
const rows = (page) => page.locator('#sessions').getByRole('listitem')

/**
 * A confirmation's trigger: a button that opens the dialog once the page is live, else a link to the panel.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string | RegExp} name
 */
const trigger = (page, mode, name) => page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name })

/**
 * Confirms in the dialog, or without JavaScript in the panel the link led to.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} title
 * @param {string} button
 */
async function confirm(page, mode, title, button) {
  const where = mode.javaScriptEnabled
    ? page.getByRole('alertdialog', { name: title })
    : page.getByRole('region', { name: title })
  await where.waitFor()
  await where.getByRole('button', { name: button, exact: true }).click()
}

/**
 * How far the page reaches beyond the viewport, in pixels.
 * @param {Page} page
 */
const overflow = (page) =>
  page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth))

MODES.forEach((mode, index) => {
  const n = index + 1
  describe(`the list of one's sessions ${mode.name}`, () => {
    it('shows each session, this device marked; ends another one, then all the others', async () => {
      const login = `sessions${n}`
      const firefox = await otherDevice(login)
      const page = await newPage(mode)
      await signIn(page, mode, login, PASSWORD, '/login?redirect=/pages/user/me')
      await page.getByRole('heading', { name: 'Vos sessions', level: 2 }).waitFor()
      assert.equal(await rows(page).count(), 2)
      const current = rows(page).filter({ hasText: 'Cet appareil' })
      assert.equal(await current.count(), 1)
      const other = rows(page).filter({ hasText: 'Firefox 128.0' })
      await other.getByRole('heading', { name: 'Firefox 128.0', level: 3 }).waitFor()
      await other.getByText('Ouverte le', { exact: true }).waitFor()
      await other.getByText('Dernière activité', { exact: true }).waitFor()
      assert.match((await other.textContent()) ?? '', /Applications lancéesAucune/)

      // Nothing scrolls sideways on a phone or a tablet, the confirmation's panel open or not.
      for (const path of ['/pages/user/me', '/pages/user/me?confirmer=sessions-autres']) {
        for (const width of [320, 360, 768]) {
          await page.setViewportSize({ width, height: 800 })
          await page.goto(path)
          await page.locator('main h1').waitFor()
          assert.equal(await overflow(page), 0, `${path} at ${width} px`)
        }
      }
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.goto('/pages/user/me')

      // The other browser's session, from its row: a confirmation first.
      await trigger(
        page,
        mode,
        /^Terminer la session Firefox 128\.0 ouverte le \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/,
      ).click()
      await confirm(page, mode, 'Terminer la session Firefox 128.0 ?', 'Terminer')
      await notice(page, 'La session Firefox 128.0 est terminée.').waitFor()
      await page.waitForURL((url) => url.pathname === '/pages/user/me' && !url.search.includes('confirmer'))
      assert.equal(await rows(page).count(), 1)
      await signedOut(firefox)

      // Two more browsers, then every session but this one at once.
      const second = await otherDevice(login)
      const third = await otherDevice(login)
      await page.goto('/pages/user/me')
      assert.equal(await rows(page).count(), 3)
      await trigger(page, mode, 'Terminer les autres sessions').click()
      await confirm(page, mode, 'Terminer toutes les autres sessions ?', 'Terminer les autres sessions')
      await notice(page, 'Les autres sessions sont terminées.').waitFor()
      await rows(page).filter({ hasText: 'Cet appareil' }).waitFor()
      assert.equal(await rows(page).count(), 1)
      assert.equal(await trigger(page, mode, 'Terminer les autres sessions').count(), 0)
      await signedOut(second)
      await signedOut(third)
      // This one goes on.
      await page.goto('/pages/user/acces')
      await page.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()

      for (const device of [firefox, second, third, page]) await device.context().close()
    })

    it("ends this device's session from its row: a sign-out", async () => {
      const page = await newPage(mode)
      await signIn(page, mode, `sessions${n}`, PASSWORD, '/login?redirect=/pages/user/me')
      await trigger(page, mode, 'Terminer la session de cet appareil').click()
      await confirm(page, mode, 'Terminer la session de cet appareil ?', 'Se déconnecter')
      await page.waitForURL((url) => url.pathname === '/login')
      await page.goto('/pages/user/me')
      await page.waitForURL((url) => url.pathname === '/login')
      await page.context().close()
    })
  })

  describe(`an administrator ends a user's sessions ${mode.name}`, () => {
    it('lists them on the user’s profile and ends them all after a confirmation; the user is told by mail', async () => {
      const id = 971 + n
      const [prenom, mail] =
        n === 1 ? ['Fanny', 'fanny.ferme@portail.example'] : ['Félix', 'felix.ferme@portail.example']
      const user = await otherDevice(`fermees${n}`)
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(`/pages/admin/detail/user/${id}`)
      await page.getByRole('heading', { name: 'Sessions ouvertes', level: 2 }).waitFor()
      await rows(page).filter({ hasText: 'Firefox 128.0' }).waitFor()
      assert.equal(await rows(page).filter({ hasText: 'Cet appareil' }).count(), 0)

      await trigger(page, mode, 'Terminer toutes les sessions').click()
      await confirm(page, mode, `Terminer toutes les sessions de ${prenom} Fermé ?`, 'Terminer toutes les sessions')
      await notice(page, `Les sessions de ${prenom} Fermé sont terminées ; un mail le lui dit.`).waitFor()
      await page.getByText('Aucune session ouverte.').waitFor()
      await signedOut(user, 'Votre session a été terminée par un administrateur.')

      await page.goto('/dev/mails')
      await page
        .getByRole('row')
        .filter({ hasText: mail })
        .filter({ hasText: 'Vos sessions ont été fermées' })
        .waitFor()
      await user.context().close()
      await page.context().close()
    })
  })
})
