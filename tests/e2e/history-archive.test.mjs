// @ts-check
// The history's archive (issue 64): months older than those kept are archived to R2 by the hourly cron; the history
// screen says a range reaches them, searches them in the background (progress, then the entries, paged, and their CSV),
// and a user's page gives their full history in one click — with and without JavaScript, by keyboard, at 320 px.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { noScriptViolations, violations } from './axe.mjs'
import { BASE_URL, fireCron, MODES, signIn, useBrowser, waitFor } from './support.mjs'

const newPage = useBrowser()

const HISTORY = '/pages/admin/listeLogs'
/** The fixture user whose twelve entries are of thirty months ago (tests/e2e/fixtures.sql). */
const ARCHIVED_USER = 9986

/** The month of thirty months ago, as the fixtures date it: its first and last day as the date inputs take them. */
function archivedMonth() {
  const now = new Date()
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 30, 1))
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 29, 0))
  return { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) }
}

/**
 * Waits for the search shown to end, as a person does: with JavaScript the page reads it again by itself, without it
 * the "Actualiser" link does.
 * @param {import('./support.mjs').Page} page
 * @param {import('./support.mjs').Scripting} mode
 */
async function searchDone(page, mode) {
  const done = page.getByText(/^Recherche terminée : \d+ entrées? trouvées?\.$/)
  await waitFor(
    async () => {
      if (await done.isVisible()) return true
      if (!mode.javaScriptEnabled) {
        const refresh = page.getByRole('link', { name: 'Actualiser' })
        if (await refresh.isVisible()) await refresh.click()
      }
      return false
    },
    'the search of the archive never ended',
    30_000,
  )
  return Number.parseInt((await done.textContent())?.replace(/\D+/g, ' ').trim() ?? '', 10)
}

describe('the history archive', () => {
  before(async () => {
    // The hourly cron, fired as its schedule would: it queues the oldest month beyond the 13 kept.
    assert.equal(await fireCron('17 * * * *'), 200)
  })

  for (const mode of MODES) {
    describe(mode.name, () => {
      it('says a range reaches archived months, searches them, pages and exports what it found', async () => {
        const page = await newPage(mode)
        await signIn(page, mode, 'admin', 'Admin1234')
        const { from, to } = archivedMonth()
        const range = `${HISTORY}?du=${from}&au=${to}`
        const notice = page.getByRole('button', { name: 'Rechercher aussi dans l’archive' })
        // The month's steps run on the jobs queue: the screen says so once a file of it is listed.
        await waitFor(
          async () => {
            await page.goto(range)
            return notice.isVisible()
          },
          'the month was never archived',
          60_000,
        )
        await notice.click()
        await page.waitForURL((url) => url.searchParams.has('recherche'))
        const found = await searchDone(page, mode)
        assert.ok(found >= 12, `${found} entries found`)
        const table = page.getByRole('table', { name: 'Entrées trouvées dans l’archive' })
        assert.equal(await table.locator('tbody tr').count(), 10)
        await page.locator('text="Entrée archivée 12" >> visible=true').first().waitFor()
        // The next page of what it found.
        await page.getByRole('navigation', { name: 'Pagination' }).last().getByRole('link', { name: 'Page 2' }).click()
        await page.waitForURL((url) => url.searchParams.get('pageArchive') === '2')
        assert.ok((await table.locator('tbody tr').count()) >= 2)
        // Its CSV: the header and a line per entry found.
        const link = page.getByRole('link', { name: 'Exporter ce qui a été trouvé' })
        const csv = await page.request.get(new URL((await link.getAttribute('href')) ?? '', BASE_URL).toString())
        assert.equal(csv.status(), 200)
        const lines = (await csv.text()).trim().split('\r\n')
        assert.equal(lines.length, found + 1)
        assert.ok(lines.some((line) => line.includes('odile.archivee@portail.example')))
        // No sideways scrolling on a phone, and nothing axe finds.
        await page.setViewportSize({ width: 320, height: 640 })
        const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)
        assert.equal(wide, false, 'no sideways scrolling at 320 px')
        assert.deepEqual(mode.javaScriptEnabled ? await violations(page) : await noScriptViolations(page), [])
        await page.context().close()
      })

      it("gives a user's full history, the archive included, in one click from their page", async () => {
        const page = await newPage(mode)
        await signIn(page, mode, 'admin', 'Admin1234')
        await page.goto(`/pages/admin/detail/user/${ARCHIVED_USER}`)
        await page.getByRole('button', { name: 'Historique complet' }).click()
        await page.waitForURL(
          (url) =>
            url.pathname === HISTORY &&
            url.searchParams.get('utilisateur') === String(ARCHIVED_USER) &&
            url.searchParams.has('recherche'),
        )
        assert.equal(await searchDone(page, mode), 12)
        await page.locator('text="Entrée archivée 12" >> visible=true').first().waitFor()
        await page.context().close()
      })
    })
  }
})
