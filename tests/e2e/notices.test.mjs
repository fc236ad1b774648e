// @ts-check
// The notices a page gives after an action: where they show (never over the top bar's or the menu's
// controls), and the notice of a new user, which leads to the user's profile by a link that a keyboard
// reaches and a screen reader hears, with and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { violations } from './axe.mjs'
import { MODES, notice, organisationDay, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

/**
 * A toast once it has come in (its entrance over).
 * @param {Page} page
 */
async function shownToast(page) {
  const toast = page.locator('[data-sonner-toast][data-mounted="true"]').first()
  await toast.waitFor()
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'))
  return toast
}

/**
 * The controls (links, buttons, fields) of `scope` that the toasts cover: shown in the viewport, and
 * another element on top at their centre, inside the toasts' region.
 * @param {Page} page
 * @param {string} scope
 */
const covered = (page, scope) =>
  page.evaluate((selector) => {
    const found = []
    for (const root of document.querySelectorAll(selector)) {
      for (const control of root.querySelectorAll('a[href], button, input, select, textarea, summary')) {
        const box = control.getBoundingClientRect()
        // The notices' own (their close button, their link) aside.
        if (control.closest('[data-sonner-toaster]')) continue
        if (!control.checkVisibility() || box.width < 2 || box.height < 2) continue
        const [x, y] = [box.left + box.width / 2, box.top + box.height / 2]
        if (x < 0 || y < 0 || x > window.innerWidth || y > window.innerHeight) continue
        // Scrolled out of a scrolling box (the sidebar's menu, which ends above the notice): hidden by the box, reached
        // by scrolling it, not under the notice.
        let clipped = false
        for (let box = control.parentElement; box && !clipped; box = box.parentElement) {
          if (!/(auto|scroll|hidden)/.test(getComputedStyle(box).overflowY)) continue
          const edges = box.getBoundingClientRect()
          clipped = y < edges.top || y > edges.bottom
        }
        if (clipped) continue
        const top = document.elementFromPoint(x, y)
        if (top?.closest('[data-sonner-toaster]')) {
          found.push((control.getAttribute('aria-label') || control.textContent || control.tagName).trim())
        }
      }
    }
    return found
  }, scope)

describe('notices', () => {
  it('cover none of the top bar’s or the menu’s controls, nor any of the page’s on a wide screen', async () => {
    const mode = { javaScriptEnabled: true }
    const page = await newPage(mode)
    // A short laptop screen: the administrator's menu nearly fills the sidebar's height.
    await page.setViewportSize({ width: 1280, height: 720 })
    await signIn(page, mode, 'admin', 'Admin1234')
    for (const [width, height, scope] of /** @type {[number, number, string][]} */ ([
      [1280, 720, 'body'],
      // On a phone the notice lies at the screen's bottom edge, over the page for its few seconds.
      [360, 640, 'header, aside'],
      [768, 1024, 'body'],
    ])) {
      await page.setViewportSize({ width, height })
      await page.goto('/pages/user/me')
      await page.getByRole('button', { name: 'Enregistrer', exact: true }).click()
      await notice(page, 'Vos informations sont enregistrées.').waitFor()
      await shownToast(page)
      assert.deepEqual(await covered(page, scope), [], `${width}×${height}`)
    }
    await page.context().close()
  })
})

MODES.forEach((mode, index) => {
  describe(`the notice of a new user ${mode.name}`, () => {
    it('leads to the new user’s profile by a link the keyboard reaches, inside what is announced', async () => {
      const page = await newPage(mode)
      const mail = `avis${index + 1}.${Date.now()}@portail.example`
      const nom = index === 0 ? 'Avisavec' : 'Avissans'
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/user/4/new')
      await page.getByLabel('Adresse e-mail', { exact: true }).fill(mail)
      await page.getByLabel('Confirmation de l’adresse e-mail').fill(mail)
      if (mode.javaScriptEnabled) await page.getByText('Adresse disponible').waitFor()
      await page.getByLabel('Nom', { exact: true }).fill(nom)
      await page.getByLabel('Prénom').fill('Léa')
      await page.getByLabel('Fonction').selectOption({ label: 'Opérateur pesage' })
      await page.getByLabel('Date de début').fill(organisationDay(0))
      await page.getByLabel('Date de fin').fill(organisationDay(365))
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      // The spec's landing page, the notice saying who was created.
      await page.waitForURL((url) => url.pathname === '/pages/user/acces')
      const created = notice(page, `Utilisateur ${mail} créé`)
      await created.waitFor()
      const link = created.getByRole('link', { name: `Voir le profil de Léa ${nom}` })
      await link.waitFor()
      // Heard with the notice: the link is inside the region that is announced.
      assert.ok(await link.evaluate((element) => element.closest('[aria-live], [role="status"]') !== null))

      if (mode.javaScriptEnabled) {
        await shownToast(page)
        assert.deepEqual(await violations(page, { every: true }), [])
        // A notice with somewhere to go stays until it is closed or left: longer than the 5 s of the others.
        await page.waitForTimeout(6_000)
        assert.ok(await link.isVisible(), 'still there after 6 s')
        // The notices' key (Alt+T) takes the keyboard there.
        await page.keyboard.press('Alt+KeyT')
      } else {
        // First on the page, before the link that skips to the content.
        await page.keyboard.press('Tab')
      }
      for (let step = 0; step < 4; step++) {
        if (await link.evaluate((element) => element === document.activeElement)) break
        await page.keyboard.press('Tab')
      }
      assert.ok(await link.evaluate((element) => element === document.activeElement), 'the link has the focus')
      await page.keyboard.press('Enter')
      await page.waitForURL((url) => url.pathname.startsWith('/pages/admin/detail/user/'))
      await page.getByRole('heading', { name: `Léa ${nom}`, level: 1 }).waitFor()
      // Followed, the notice goes.
      await page.getByRole('link', { name: `Voir le profil de Léa ${nom}` }).waitFor({ state: 'detached' })
      await page.context().close()
    })
  })
})
