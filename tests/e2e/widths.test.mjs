// Every screen at phone and tablet widths: nothing may make the page scroll sideways, from 320 px up.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ADMIN_SCREENS, MODES, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

const WIDTHS = [320, 360, 768]
const PUBLIC = [
  '/login',
  '/forgotPassword',
  '/createAccount',
  '/renewPassword/e2e-expired-link-000000000000000000000000000',
  '/confirmMail/unknown-link',
]
const SIGNED_IN = ['/pages/user/acces', '/pages/user/me', '/pages/documentation', ...ADMIN_SCREENS]

/** How far the page reaches beyond the viewport, in pixels (0 when it fits). */
const overflow = (page) =>
  page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth))

for (const mode of MODES) {
  describe(`screen widths ${mode.name}`, () => {
    it('never scroll sideways, signed out or in (the admin, whose menu is the longest)', async () => {
      const page = await newPage(mode)
      const measured = []
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 })
        for (const path of PUBLIC) {
          await page.goto(path)
          measured.push({ width, path, overflow: await overflow(page) })
        }
      }
      await page.setViewportSize({ width: 1280, height: 800 })
      await signIn(page, mode, 'admin', 'Admin1234')
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 })
        for (const path of SIGNED_IN) {
          await page.goto(path)
          await page.locator('main h1').waitFor()
          measured.push({ width, path, overflow: await overflow(page) })
        }
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
      assert.deepEqual(
        // Anything but 0 fails, 'no panel' too.
        measured.filter((row) => row.overflow !== 0),
        [],
      )
      await page.context().close()
    })
  })
}
