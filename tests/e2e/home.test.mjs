// @ts-check
// The administration home (issue 25): its figures match the lists they link to, a post about to end
// is extended from it (a refused date said on its field), and its charts show without JavaScript with
// their figures in a table. With and without JavaScript, as a delegated administrator (Direction Sud).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FIXTURES_DAY, MODES, notice, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

/**
 * The number a figure of the home shows, by its label.
 * @param {Page} page
 * @param {RegExp} label
 */
async function figure(page, label) {
  const link = page.getByRole('link', { name: label })
  const text = await link.locator('span').first().textContent()
  return Number(text)
}

/**
 * The total a list page announces ("12 utilisateurs", "3 actions"), 0 when it says it has none.
 * @param {Page} page
 * @param {string | RegExp} pattern
 */
async function listTotal(page, pattern) {
  const text = await page.getByText(pattern).first().textContent()
  return Number(/\d+/.exec(text ?? '')?.[0] ?? Number.NaN)
}

/**
 * 'dd/MM/yyyy' of the fixtures' day + `days` (as their `date('now', …)`), a year later when asked.
 * @param {number} days
 * @param {number} [years]
 */
function wireDate(days, years = 0) {
  const date = new Date(Date.parse(`${FIXTURES_DAY}T00:00:00Z`) + days * 86_400_000)
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0')
  return `${pad(date.getUTCDate())}/${pad(date.getUTCMonth() + 1)}/${date.getUTCFullYear() + years}`
}

for (const [index, mode] of MODES.entries()) {
  const [who, whom] = index === 0 ? ['Florence Finet', 'Florence'] : ['Fabien Finet', 'Fabien']

  describe(`the administration home ${mode.name}`, () => {
    it('opens from the menu and its figures are the totals of the lists they link to', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      await page
        .getByRole('navigation', { name: 'Navigation principale' })
        .last()
        .getByRole('link', { name: 'Tableau de bord' })
        .click()
      await page.getByRole('heading', { level: 1, name: 'Tableau de bord' }).waitFor()

      for (const label of ['Avec un poste en cours', 'Sans poste en cours', 'Inactifs']) {
        const shown = await figure(page, new RegExp(`^\\d+ ${label}`))
        await page.getByRole('link', { name: new RegExp(`^\\d+ ${label}`) }).click()
        await page.getByRole('heading', { level: 1, name: 'Gérer les utilisateurs' }).waitFor()
        assert.equal(await listTotal(page, /^\d+ utilisateurs?$|^Aucun utilisateur/), shown, label)
        await page.goBack()
        await page.getByRole('heading', { level: 1, name: 'Tableau de bord' }).waitFor()
      }
      const waiting = await figure(page, /^\d+ En attente de validation/)
      await page.getByRole('link', { name: /^\d+ En attente de validation/ }).click()
      await page.getByRole('heading', { level: 1 }).first().waitFor()
      assert.equal(await listTotal(page, /^\d+ inscriptions? en attente$|^Aucune inscription/), waiting)

      // The sign-ins of the month: its own sign-in at least, as many as the history's list of them.
      await page.goto('/pages/admin')
      const sentence = await page.getByText(/^\d+ connexions? sur la période\.$/).textContent()
      const signIns = Number(/\d+/.exec(sentence ?? '')?.[0])
      assert.ok(signIns >= 1)
      const table = page.getByRole('table', { name: 'Connexions par jour (30 derniers jours)' })
      assert.equal(await table.getByRole('row').count(), 31)
      await page.getByRole('link', { name: 'Voir dans l’historique' }).click()
      assert.equal(await listTotal(page, /^\d+ actions?$/), signIns)
    })

    it('extends a post about to end: a date already past is refused on its field, a year later by default', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      await page.goto('/pages/admin')
      const row = page.getByRole('row').filter({ hasText: who })
      await row.getByRole('cell', { name: wireDate(10), exact: true }).waitFor()
      // The table's caption says what it lists before it, under its heading.
      const ending = page.getByRole('table', { name: /^Les postes qui se terminent dans les 30 prochains jours/ })
      const [caption, header] = await ending.evaluate((table) => [
        table.querySelector('caption')?.getBoundingClientRect().bottom ?? Number.POSITIVE_INFINITY,
        table.querySelector('thead')?.getBoundingClientRect().top ?? 0,
      ])
      assert.ok(caption <= header, 'the caption is above the table')
      await row.getByRole('link', { name: `Prolonger le poste de ${who}` }).click()
      const panel = page.getByRole('region', { name: `Prolonger le poste de ${who}` })
      const field = panel.getByLabel('Nouvelle date de fin')
      assert.equal(await field.inputValue(), wireDate(10, 1))

      await field.fill('01/01/2020')
      await panel.getByRole('button', { name: 'Prolonger' }).click()
      await panel.locator('#prolongation-fin-error').waitFor()
      assert.equal(await field.getAttribute('aria-invalid'), 'true')
      assert.equal(await field.inputValue(), '01/01/2020')

      await field.fill(wireDate(10, 1))
      await panel.getByRole('button', { name: 'Prolonger' }).click()
      await notice(page, `Le poste de ${who} est prolongé jusqu’au ${wireDate(10, 1)}.`).waitFor()
      await page.getByRole('region', { name: `Prolonger le poste de ${who}` }).waitFor({ state: 'detached' })
      assert.equal(await page.getByRole('row').filter({ hasText: whom }).filter({ hasText: 'Finet' }).count(), 0)
    })
  })
}
