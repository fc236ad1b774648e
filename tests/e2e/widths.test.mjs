// @ts-check
// Every screen at phone and tablet widths: nothing may make the page scroll sideways, from 320 px up;
// nor may a list hide what it holds (a clipped cell, an action off-screen in a table that scrolls
// sideways, a word broken letter by letter), and the top of a phone's page leaves room for the page.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ADMIN_SCREENS,
  fixtureRecoveryCode,
  MODES,
  nextTotpCode,
  secondStepHeading,
  signIn,
  submitLogin,
  useBrowser,
} from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

/** @type {[number, number, number]} */
const WIDTHS = [320, 360, 768]
const PUBLIC = [
  '/login',
  '/forgotPassword',
  '/createAccount',
  '/renewPassword/e2e-expired-link-000000000000000000000000000',
  '/confirmMail/unknown-link',
]
const SIGNED_IN = [
  '/pages/user/acces',
  '/pages/user/me',
  '/pages/documentation',
  // A device's sign-in: the code to type (its decision's step: tests/e2e/device.test.mjs).
  '/appareil',
  ...ADMIN_SCREENS,
  // The structure's users as a table (the add-post form above them with `?ajouter=1`).
  '/pages/admin/user/structure/4',
  // The longest address the forms accept (50 characters, tests/e2e/fixtures.sql), whatever the other
  // tests left: on a registration in the queue, and on a user's entries in the history.
  '/pages/admin/autorisation?q=delacroix',
  '/pages/admin/listeLogs?q=fontaine-durand',
]

/**
 * How far the page reaches beyond the viewport, in pixels (0 when it fits).
 * @param {Page} page
 */
const overflow = (page) =>
  page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth))

/**
 * What the page's content hides or mangles, described: a table that scrolls sideways or a cell whose
 * content overflows it, a link or button of the content that reaches past the viewport, a word spread
 * over more than two lines (a mail broken letter by letter in a narrow column).
 * @param {Page} page
 */
const misfits = (page) =>
  page.evaluate(() => {
    /** @type {string[]} */
    const found = []
    const name = (/** @type {Element} */ element) =>
      (element.getAttribute('aria-label') || element.textContent || '').trim().slice(0, 40)
    const shown = (/** @type {Element} */ element) => {
      const box = element.getBoundingClientRect()
      // The visually hidden (sr-only) are 1 px: not what a person sees.
      return element.checkVisibility() && box.width > 1 && box.height > 1
    }
    for (const scroller of document.querySelectorAll('main [data-slot="table-container"]')) {
      if (scroller.scrollWidth > scroller.clientWidth + 1) {
        found.push(`table scrolls sideways by ${scroller.scrollWidth - scroller.clientWidth} px`)
      }
    }
    for (const cell of document.querySelectorAll('main td, main th')) {
      if (shown(cell) && cell.scrollWidth > cell.clientWidth + 1) found.push(`cell clipped: ${name(cell)}`)
    }
    const width = document.documentElement.clientWidth
    const outside = [...document.querySelectorAll('main a, main button')].filter((control) => {
      const box = control.getBoundingClientRect()
      return shown(control) && (box.left < -1 || box.right > width + 1)
    })
    if (outside.length > 0)
      found.push(`${outside.length} off-screen, first: ${name(/** @type {Element} */ (outside[0]))}`)
    // Every screen measured has its <main>.
    const walker = document.createTreeWalker(
      /** @type {HTMLElement} */ (document.querySelector('main')),
      NodeFilter.SHOW_TEXT,
    )
    const range = document.createRange()
    // Text nodes alone (SHOW_TEXT).
    for (
      let node = /** @type {Text | null} */ (walker.nextNode());
      node;
      node = /** @type {Text | null} */ (walker.nextNode())
    ) {
      if (!node.parentElement || !shown(node.parentElement)) continue
      for (const word of node.data.matchAll(/\S{6,}/g)) {
        range.setStart(node, word.index)
        range.setEnd(node, word.index + word[0].length)
        const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))
        if (lines.size > 2) found.push(`word over ${lines.size} lines: ${word[0].slice(0, 40)}`)
      }
    }
    return found
  })

/**
 * The page at `width`, laid out again; with JavaScript, two frames later (a script that follows the width has answered).
 * (A page without scripts draws no frame for the test to wait on: its layout is the style sheet's alone.)
 * @param {Page} page
 * @param {number} width
 * @param {import('./support.mjs').Scripting} mode
 */
async function resize(page, width, { javaScriptEnabled }) {
  await page.setViewportSize({ width, height: 800 })
  if (javaScriptEnabled) {
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))
  }
}

/**
 * The height of the page's top bar, with the menu's bar above it on a phone.
 * @param {Page} page
 */
const headerHeight = (page) =>
  page.evaluate(() =>
    // Every screen measured has its <main>.
    Math.round(
      /** @type {HTMLElement} */ (document.querySelector('main')).getBoundingClientRect().top + window.scrollY,
    ),
  )

for (const mode of MODES) {
  describe(`screen widths ${mode.name}`, () => {
    it('never scroll sideways, signed out or in (the admin, whose menu is the longest)', async () => {
      const page = await newPage(mode)
      const measured = []
      // Each screen is loaded once at the narrowest width, then measured at each width from the narrowest up: what
      // a phone turned into a tablet shows (the layout is CSS, and the scripts that read the width follow its changes).
      for (const path of PUBLIC) {
        await page.setViewportSize({ width: WIDTHS[0], height: 800 })
        await page.goto(path)
        for (const width of WIDTHS) {
          await resize(page, width, mode)
          measured.push({ width, path, overflow: await overflow(page) })
        }
      }
      await page.setViewportSize({ width: 1280, height: 800 })
      await signIn(page, mode, 'admin', 'Admin1234')
      for (const path of SIGNED_IN) {
        await page.setViewportSize({ width: WIDTHS[0], height: 800 })
        await page.goto(path)
        await page.locator('main h1').waitFor()
        for (const width of WIDTHS) {
          await resize(page, width, mode)
          measured.push({ width, path, overflow: await overflow(page) })
          const hidden = await misfits(page)
          if (hidden.length > 0) measured.push({ width, path, overflow: hidden })
        }
      }
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 })
        if (mode.javaScriptEnabled) {
          // The history's calendar, open: its days stay inside its panel (which a page that does not
          // scroll could still cut off).
          await page.goto('/pages/admin/listeLogs')
          await page.getByRole('button', { name: 'Choisir sur le calendrier' }).click()
          await page.getByRole('grid').first().waitFor()
          const spill = await page.evaluate(() => {
            const panel = document.querySelector('[aria-expanded="true"]')?.getAttribute('aria-controls') ?? ''
            const box = document.getElementById(panel)?.getBoundingClientRect()
            const parts = [...(document.getElementById(panel)?.querySelectorAll('[role=grid], button') ?? [])]
            return box
              ? Math.max(0, ...parts.map((part) => Math.ceil(part.getBoundingClientRect().right - box.right)))
              : -1
          })
          measured.push({
            width,
            path: 'calendar',
            overflow: spill === -1 ? 'no panel' : Math.max(spill, await overflow(page)),
          })
        }
      }
      // The top of a phone's page (name, menu, top bar) leaves most of the screen to the page.
      await page.setViewportSize({ width: 360, height: 800 })
      await page.goto('/pages/admin/user/structure/4')
      await page.locator('main h1').waitFor()
      const top = await headerHeight(page)
      if (top > 120) measured.push({ width: 360, path: 'header', overflow: `${top} px high` })
      // The breadcrumb of a page three steps deep keeps its first step, Home, on a phone.
      for (const width of [320, 360]) {
        await page.setViewportSize({ width, height: 800 })
        await page.goto('/pages/admin/detail/user/2')
        await page.locator('main h1').waitFor()
        const crumbs = page.getByRole('navigation', { name: "Fil d'Ariane" })
        for (const step of [crumbs.getByRole('link', { name: 'Accueil' }), crumbs.locator('[aria-current="page"]')]) {
          const visible = await step.evaluate((element) => {
            const box = element.getBoundingClientRect()
            return element.checkVisibility() && box.width > 20 && box.right <= window.innerWidth
          })
          if (!visible) measured.push({ width, path: 'breadcrumb', overflow: `${await step.textContent()} not shown` })
        }
      }
      // A list's nine page links (first, previous, five pages, next, last) keep to one line at 360 px.
      await page.setViewportSize({ width: 360, height: 800 })
      await page.goto('/pages/admin/listeUtilisateurs?page=3')
      const pages = page.getByRole('navigation', { name: 'Pagination' }).getByRole('listitem')
      assert.equal(await pages.count(), 9, 'a list of five pages at least')
      const lines = new Set(await pages.evaluateAll((items) => items.map((item) => item.getBoundingClientRect().top)))
      if (lines.size > 1) measured.push({ width: 360, path: 'pagination', overflow: `${lines.size} lines` })
      assert.deepEqual(
        // Anything but 0 fails, 'no panel' too.
        measured.filter((row) => row.overflow !== 0),
        [],
      )
      await page.context().close()
    })
  })
}

describe('refusal pages at phone and tablet widths', () => {
  it('never scroll sideways: a root-only page and a page outside the scope, for a sub-tree administrator', async () => {
    const mode = { javaScriptEnabled: true }
    const page = await newPage(mode)
    await signIn(page, mode, 'adminsud', 'Adminsud1')
    const measured = []
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 })
      for (const path of ['/pages/admin/applications', '/pages/admin/structure/detail/4']) {
        await page.goto(path)
        await page.locator('main h1').waitFor()
        measured.push({ width, path, overflow: await overflow(page) })
        const hidden = await misfits(page)
        if (hidden.length > 0) measured.push({ width, path, overflow: hidden })
      }
    }
    assert.deepEqual(
      measured.filter((row) => row.overflow !== 0),
      [],
    )
    await page.context().close()
  })
})

MODES.forEach((mode, index) => {
  const id = 988 + index
  describe(`the second factor's screens at phone and tablet widths ${mode.name}`, () => {
    it('never scroll sideways: the second step (and its error), the security page with the app on and off, an enrolment, the recovery codes shown', async () => {
      const page = await newPage(mode)
      const measured = []
      /** The page as it is, at each width (a form's answer is not opened again: the window is resized). */
      const measure = async (/** @type {string} */ what) => {
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 800 })
          measured.push({ width, path: what, overflow: await overflow(page) })
          const hidden = await misfits(page)
          if (hidden.length > 0) measured.push({ width, path: what, overflow: hidden })
        }
        await page.setViewportSize({ width: 1280, height: 800 })
      }
      await page.goto('/login')
      await submitLogin(page, mode, `mfalargeur${index + 1}`, 'Agent1234')
      await secondStepHeading(page).waitFor()
      await measure('the second step')
      await page.locator('#login-code').fill('123')
      await page.getByRole('button', { name: 'Vérifier et se connecter' }).click()
      await page.getByText('Code incorrect ou déjà utilisé.').first().waitFor()
      await measure('the second step with a wrong code')
      await page.locator('#login-code').fill(fixtureRecoveryCode(id, 1))
      await page.getByRole('button', { name: 'Vérifier et se connecter' }).click()
      await page.waitForURL((url) => url.pathname.startsWith('/pages/'))
      await page.locator('#login-code').waitFor({ state: 'detached' })

      for (const path of ['/pages/user/securite']) {
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 800 })
          await page.goto(path)
          await page.locator('main h1').waitFor()
          // The removal forms and the passkeys' forms, folded by default, open.
          await page.locator('#totp details, #passkeys details').evaluateAll((all) => {
            for (const details of all) details.setAttribute('open', '')
          })
          measured.push({ width, path, overflow: await overflow(page) })
          const hidden = await misfits(page)
          if (hidden.length > 0) measured.push({ width, path, overflow: hidden })
        }
      }
      await page.setViewportSize({ width: 1280, height: 800 })

      // The app turned off (with the password), then a new one's enrolment: its QR code, its secret,
      // its first code refused, then the recovery codes shown once.
      await page.goto('/pages/user/securite')
      await page.getByText('Désactiver l’application d’authentification').click()
      await page.locator('#totp-remove-password').fill('Agent1234')
      await page.getByRole('button', { name: 'Désactiver', exact: true }).click()
      // The page without a second factor: its button to set one up.
      const start = page.getByText("Configurer une application d'authentification")
      await start.waitFor()
      await measure('the security page without a second factor')
      await start.click()
      await page.locator('#totp-start-password').fill('Agent1234')
      await measure('the password asked before an enrolment')
      await page.getByRole('button', { name: 'Continuer', exact: true }).click()
      await page.locator('#totp-secret').waitFor()
      await measure('the enrolment step')
      const secret = (await page.locator('#totp-secret').inputValue()).replace(/\s/g, '')
      await page.locator('#totp-code').fill('12')
      await page.getByRole('button', { name: 'Activer', exact: true }).click()
      await page.locator('#totp-code[aria-invalid="true"]').waitFor()
      await measure('the enrolment step with a wrong code')
      await page.locator('#totp-code').fill((await nextTotpCode(secret)).code)
      await page.getByRole('button', { name: 'Activer', exact: true }).click()
      await page.getByRole('list', { name: 'Codes de secours' }).waitFor()
      await measure('the recovery codes shown')
      assert.deepEqual(
        measured.filter((row) => row.overflow !== 0),
        [],
      )
      await page.context().close()
    })
  })
})
