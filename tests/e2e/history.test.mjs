// @ts-check
// The audit history (spec §2 admin/listeLogs): what an agent does shows in the administrator's
// history, newest first, searched and filtered from the URL, exported as CSV, its users' mails in a
// tooltip, a wrong period said on its fields, and ten entries a page — with and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { holdScripts, MODES, organisationDay, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */
/**
 * A row of the history's table as `tableRows` reads it.
 * @typedef {object} Row
 * @property {string} instant
 * @property {string} date
 * @property {string} time
 * @property {string} user
 * @property {string} action
 * @property {string} structure
 * @property {string} comment
 * @property {string} browser
 */

const newPage = useBrowser()

const HISTORY = '/pages/admin/listeLogs'
const AGENT_MAIL = 'thomas.lefebvre@portail.example'
const ADMIN_MAIL = 'claire.durand@portail.example'
const SEARCH_LABEL = 'Rechercher par date (jj/mm/aaaa), adresse e-mail, prénom, nom ou action'
const TABLE_LABEL = 'Historique des actions'
const CSV_HEADER = 'Date;Heure;Nom;Prénom;Mail;Structure;Action;Code;Commentaire;Navigateur;Version;Source'

/**
 * Each mode launches its own application, so that the second mode cannot pass on the first one's
 * entries: the agent (scripts/demo-data.ts) has Pesage, Suivi des expéditions and Yard dangereux.
 */
/** @type {{ application: string, label: string }[]} */
const LAUNCHES = [
  { application: 'Pesage', label: 'Lancement de Pesage' },
  { application: 'Yard dangereux', label: 'Lancement de Yard dangereux' },
]

/** The day `offset` days from the organisation's today, as a date input holds it ('yyyy-MM-dd') and as it is shown. */
const isoDay = (/** @type {number} */ offset) => organisationDay(offset, 'en-CA')
const frenchDay = (/** @type {number} */ offset) => organisationDay(offset)

const escapeRegExp = (/** @type {string} */ text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Searches the history as a person does: typing is enough with JavaScript (the search runs a moment
 * after the last key), the search button submits it without. Waits for the page of that search.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} text
 */
async function search(page, mode, text) {
  await page.getByLabel(SEARCH_LABEL).fill(text)
  if (!mode.javaScriptEnabled) await page.getByRole('button', { name: 'Rechercher', exact: true }).click()
  await page.waitForURL((url) => url.pathname === HISTORY && url.searchParams.get('q') === text)
  await page.locator('main h1').waitFor()
  // The address changes a moment before the new rows are on the page: the table says when they are.
  await page.locator('table[aria-busy="true"]').waitFor({ state: 'detached' })
}

/**
 * The rows of the table as the reader sees them at this width: each cell's visible text (the parts
 * only shown on phones are hidden at the default 1280 px) and the instant of its `<time>`.
 * @param {Page} page
 * @returns {Promise<Row[]>}
 */
const tableRows = (page) =>
  page
    .getByRole('table', { name: TABLE_LABEL })
    .locator('tbody tr')
    .evaluateAll((/** @type {HTMLTableRowElement[]} */ rows) =>
      rows.map((row) => {
        // The table's seven columns.
        const [date, time, user, action, structure, comment, browser] =
          /** @type {[string, string, string, string, string, string, string]} */ (
            [...row.cells].map((cell) =>
              // biome-ignore lint/performance/useDomNodeTextContent: the text as shown, the phone-only parts hidden
              cell.innerText.trim(),
            )
          )
        const instant = row.querySelector('time')?.getAttribute('datetime') ?? ''
        return { instant, date, time, user, action, structure, comment, browser }
      }),
    )

/**
 * The number of entries the page says it found ('12 actions').
 * @param {Page} page
 */
async function total(page) {
  const text = await page.getByText(/^\d+ actions?$/).textContent()
  return Number.parseInt(text ?? '', 10)
}

/**
 * Signs the agent in on a page of their own and launches one application from the access page.
 * @param {import('./support.mjs').Mode} mode
 * @param {string} application
 */
async function agentLaunches(mode, application) {
  const agent = await newPage(mode)
  await signIn(agent, mode, 'agent', 'Agent1234')
  await agent.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()
  const [tab] = await Promise.all([
    agent.context().waitForEvent('page'),
    agent.getByRole('button', { name: `Lancer ${application} (nouvel onglet)` }).click(),
  ])
  // The launch is recorded by the portal before it sends the tab on to the application.
  await tab.waitForURL((url) => url.pathname.startsWith('/demo-app/') && url.searchParams.has('code'))
  await tab.getByText(`Connecté à ${application} par le portail. Thomas Lefebvre`).waitFor()
  await agent.context().close()
}

for (const [index, mode] of MODES.entries()) {
  // One launch for each mode.
  const launch = /** @type {{ application: string, label: string }} */ (LAUNCHES[index])

  describe(`history ${mode.name}`, () => {
    it("shows the agent's sign-in and launch to the administrator, newest first, and exports them", async () => {
      await agentLaunches(mode, launch.application)

      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto(HISTORY)
      await admin.getByRole('heading', { name: 'Historique', level: 1 }).waitFor()
      // The agent's mail and today's day: only their entries of today, whatever the other tests wrote
      // on other days or for other users. Words of a search must all match.
      const today = frenchDay(0)
      const query = `${AGENT_MAIL} ${today}`
      await search(admin, mode, query)
      // The search also reads the comments: an export filtered on the agent's address (an earlier run
      // of this test) names them too, and is found with them.
      const found = await tableRows(admin)
      // Two at least: asserted on the next line.
      const rows = /** @type {[Row, Row, ...Row[]]} */ (found.filter((row) => row.action !== 'Export de l’historique'))
      assert.ok(rows.length >= 2, `expected at least two entries, got ${JSON.stringify(found)}`)
      for (const row of rows) {
        assert.equal(row.date, today)
        assert.equal(row.user, 'Thomas Lefebvre')
      }
      // Nothing was done as the agent since: the launch is the newest entry, the sign-in right below.
      assert.equal(rows[0].action, launch.label)
      assert.equal(rows[1].action, 'Connexion')
      assert.ok(rows[0].instant >= rows[1].instant, 'newest first')
      assert.match(rows[0].time, /^\d{2}:\d{2}$/)
      assert.equal(rows[0].structure, 'Agence Lille')
      assert.match(rows[1].browser, /Chrom/)
      // Newest first throughout.
      const instants = rows.map((row) => row.instant)
      assert.deepEqual(instants, [...instants].sort().reverse())

      // The export link carries the same filters, and downloads rather than navigates.
      const exportLink = admin.getByRole('link', { name: 'Exporter (CSV)' })
      assert.equal(await exportLink.getAttribute('download'), '')
      const href = (await exportLink.getAttribute('href')) ?? ''
      const exportUrl = new URL(href, 'http://portail.test')
      assert.equal(exportUrl.pathname, `${HISTORY}/export`)
      assert.equal(exportUrl.searchParams.get('q'), query)

      // The file as the browser would download it, with the administrator's session (the context's cookies).
      const response = await admin.request.get(href)
      assert.equal(response.status(), 200)
      assert.match(response.headers()['content-type'] ?? '', /^text\/csv/)
      const bytes = await response.body()
      assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 byte order mark')
      const lines = bytes.subarray(3).toString('utf8').split('\r\n')
      assert.equal(lines[0], CSV_HEADER)
      // The agent's entries, and those naming the agent in their comment (the exports filtered on them).
      const all = lines.slice(1).filter(Boolean)
      const entries = all.filter((line) => line.includes(`;${AGENT_MAIL};`))
      assert.ok(
        all.every((line) => entries.includes(line) || line.includes(';HISTORIQUE_EXPORT;')),
        'only the agent, and the exports that name them',
      )
      const launched = entries.findIndex((line) => line.includes(`;${launch.label};${launch.application};`))
      const signedIn = entries.findIndex((line) => line.includes(';Connexion;CONNEXION;'))
      assert.equal(launched, 0, `launch line in ${JSON.stringify(entries)}`)
      assert.equal(signedIn, 1, `sign-in line in ${JSON.stringify(entries)}`)
      // The launch and the sign-in: the first two, asserted above.
      assert.ok(/** @type {string} */ (entries[0]).startsWith(`${today};`))
      assert.ok(/** @type {string} */ (entries[1]).includes(';Lefebvre;Thomas;'))

      // The export is itself an administrator's action in the history, naming what it exported.
      await search(admin, mode, `${ADMIN_MAIL} ${today}`)
      const adminRows = await tableRows(admin)
      assert.equal(adminRows[0]?.action, 'Export de l’historique')
      assert.equal(adminRows[0].user, 'Claire Durand')
      assert.ok(adminRows[0].comment.includes(AGENT_MAIL), adminRows[0].comment)
      await admin.context().close()
    })

    it("gives each user's mail as the description of their name", async () => {
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      // The administrator's own sign-in, just written: an entry that is there whatever ran before.
      await admin.goto(`${HISTORY}?q=${encodeURIComponent(ADMIN_MAIL)}&type=CONNEXION`)
      const table = admin.getByRole('table', { name: TABLE_LABEL })
      const user = table.getByRole('button', { name: 'Claire Durand' }).first()
      // What `toHaveAccessibleDescription` would check: the element the button names as its description.
      const describedBy = (await user.getAttribute('aria-describedby')) ?? ''
      assert.ok(describedBy, 'the name button has a description')
      const tooltip = admin.locator(`[id="${describedBy}"]`)
      assert.equal(await tooltip.getAttribute('role'), 'tooltip')
      assert.equal((await tooltip.textContent())?.trim(), ADMIN_MAIL)
      // CSS alone shows it (so without JavaScript too): hidden until the pointer or the focus comes.
      assert.equal(await tooltip.isVisible(), false)
      await user.hover()
      await tooltip.waitFor({ state: 'visible' })
      await admin.mouse.move(0, 0)
      await tooltip.waitFor({ state: 'hidden' })
      await user.focus()
      await tooltip.waitFor({ state: 'visible' })
      await admin.context().close()
    })

    it('names a service account where it names a user, found by its name, in both languages', async () => {
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto(HISTORY)
      // The fixtures' entry of the account 'Synchronisation paie' (Direction Sud).
      await search(admin, mode, 'Synchronisation paie')
      const rows = await tableRows(admin)
      const entry = rows.find((row) => row.comment === 'Agence Marseille')
      assert.ok(entry, JSON.stringify(rows))
      assert.equal(entry.user, 'Compte de service Synchronisation paie')
      assert.equal(entry.action, 'Modification d’une structure')
      // No address to give: a name, not a button with a tooltip.
      const table = admin.getByRole('table', { name: TABLE_LABEL })
      assert.equal(await table.getByRole('button', { name: 'Compte de service Synchronisation paie' }).count(), 0)
      await admin.getByRole('button', { name: 'English' }).click()
      await admin.getByRole('heading', { name: 'History', level: 1 }).waitFor()
      await admin
        .getByRole('table', { name: 'History of actions' })
        .getByText('Service account Synchronisation paie')
        .first()
        .waitFor()
      await admin.context().close()
    })

    it('filters by a period typed in the date inputs or picked on the calendar', async () => {
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto(HISTORY)
      const from = admin.getByLabel('Du', { exact: true })
      const to = admin.getByLabel('Au', { exact: true })
      assert.equal(await from.getAttribute('type'), 'date')
      await from.fill('2020-01-01')
      await to.fill(isoDay(0))
      await admin.getByRole('button', { name: 'Filtrer' }).click()
      await admin.waitForURL(
        (url) => url.searchParams.get('du') === '2020-01-01' && url.searchParams.get('au') === isoDay(0),
      )
      // The period filtered stays in its inputs.
      await admin.getByRole('table', { name: TABLE_LABEL }).waitFor()
      assert.equal(await admin.getByLabel('Du', { exact: true }).inputValue(), '2020-01-01')

      const calendar = admin.getByRole('button', { name: 'Choisir sur le calendrier' })
      if (!mode.javaScriptEnabled) {
        // Without JavaScript the date inputs are the picker.
        assert.equal(await calendar.count(), 0)
        await admin.context().close()
        return
      }
      // A usual period in one click, then two days on the grid; Escape closes it back to its button.
      await calendar.click()
      await admin.getByRole('button', { name: '7 derniers jours' }).click()
      assert.equal(await from.inputValue(), isoDay(-6))
      assert.equal(await to.inputValue(), isoDay(0))
      await admin.getByText(`Du ${frenchDay(-6)} au ${frenchDay(0)}.`).waitFor()
      // A month wholly past, whatever today is: every one of its days can be picked.
      await admin.getByRole('button', { name: 'Aller au mois précédent' }).click()
      const grid = admin.getByRole('grid').first()
      const days = grid.getByRole('button', { name: /^(Aujourd'hui, )?\w+ \d+(er)? \w+ \d{4}/ })
      await days.nth(0).click()
      assert.equal(await to.inputValue(), '', 'a click after a whole period starts a new one')
      await admin.getByText(/choisissez le dernier jour/).waitFor()
      await days.nth(2).click()
      const [picked, until] = [await from.inputValue(), await to.inputValue()]
      assert.ok(picked < until, `${picked} → ${until}`)
      await admin.keyboard.press('Escape')
      await admin.getByRole('button', { name: 'Choisir sur le calendrier', expanded: false }).waitFor()
      assert.equal(await admin.evaluate(() => document.activeElement?.textContent), 'Choisir sur le calendrier')
      await admin.getByRole('button', { name: 'Filtrer' }).click()
      await admin.waitForURL((url) => url.searchParams.get('du') === picked && url.searchParams.get('au') === until)
      await admin.context().close()
    })

    it("keeps a period typed before the page's script has run", async () => {
      if (!mode.javaScriptEnabled) return
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      // The scripts wait until both dates are typed.
      const release = await holdScripts(admin)
      await admin.goto(HISTORY, { waitUntil: 'domcontentloaded' })
      await admin.getByLabel('Du', { exact: true }).fill('2020-01-01')
      await admin.getByLabel('Au', { exact: true }).fill(isoDay(0))
      release()
      // The calendar's button is there once the script has taken the page over.
      await admin.getByRole('button', { name: 'Choisir sur le calendrier' }).waitFor()
      assert.equal(await admin.getByLabel('Du', { exact: true }).inputValue(), '2020-01-01')
      assert.equal(await admin.getByLabel('Au', { exact: true }).inputValue(), isoDay(0))
      await admin.getByRole('button', { name: 'Filtrer' }).click()
      await admin.waitForURL(
        (url) => url.searchParams.get('du') === '2020-01-01' && url.searchParams.get('au') === isoDay(0),
      )
      await admin.context().close()
    })

    it("takes today from the organisation's calendar, not from a browser's clock in another time zone", async () => {
      if (!mode.javaScriptEnabled) return
      // Whatever the hour, one of these two is on another day than Paris (UTC+14 and UTC−11).
      const dayIn = (/** @type {string} */ timeZone) =>
        new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date())
      const timezoneId = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'].find((zone) => dayIn(zone) !== isoDay(0))
      assert.ok(timezoneId)
      const admin = await newPage({ ...mode, timezoneId })
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto(HISTORY)
      await admin.getByRole('button', { name: 'Choisir sur le calendrier' }).click()
      await admin.getByRole('button', { name: '7 derniers jours' }).click()
      assert.equal(await admin.getByLabel('Au', { exact: true }).inputValue(), isoDay(0))
      assert.equal(await admin.getByLabel('Du', { exact: true }).inputValue(), isoDay(-6))
      await admin.context().close()
    })

    it('says a period that is not one on its fields, and reads nothing', async () => {
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      // A day that does not exist, as an address typed by hand or kept from elsewhere.
      const direct = await admin.goto(`${HISTORY}?du=2026-02-31`)
      assert.equal(direct?.status(), 200)
      await admin
        .getByRole('alert')
        .filter({ hasText: 'La période saisie n’est pas valide : corrigez les dates pour afficher l’historique.' })
        .waitFor()
      const from = admin.getByLabel('Du', { exact: true })
      assert.equal(await from.getAttribute('aria-invalid'), 'true')
      const errorId = ((await from.getAttribute('aria-describedby')) ?? '')
        .split(' ')
        .find((id) => id.endsWith('-error'))
      assert.ok(errorId, 'the field names its error')
      assert.equal((await admin.locator(`[id="${errorId}"]`).textContent())?.trim(), 'Ce jour n’existe pas')
      // No table, no export of a period that is not one.
      assert.equal(await admin.getByRole('table', { name: TABLE_LABEL }).count(), 0)
      assert.equal(await admin.getByRole('link', { name: 'Exporter (CSV)' }).count(), 0)

      // An end before the start: said on the end.
      await admin.goto(`${HISTORY}?du=2026-02-10&au=2026-02-01`)
      await admin.getByRole('alert').filter({ hasText: 'La période saisie n’est pas valide' }).waitFor()
      const to = admin.getByLabel('Au', { exact: true })
      assert.equal(await to.getAttribute('aria-invalid'), 'true')
      await admin.getByText('La date de fin doit suivre la date de début').waitFor()

      // The export of such a period goes back to the screen.
      const exported = await admin.request.get(`${HISTORY}/export?du=2026-02-31`, { maxRedirects: 0 })
      assert.equal(exported.status(), 302)
      assert.equal(new URL(exported.headers().location ?? '', 'http://portail.test').pathname, HISTORY)
      await admin.context().close()
    })

    it('shows ten entries a page, newest first, with links to the other pages', async () => {
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto(HISTORY)
      await admin.getByRole('heading', { name: 'Historique', level: 1 }).waitFor()
      // Run alone, this file may not have written eleven entries yet: each export is recorded, so a few
      // exports of an empty period make up the difference.
      const missing = 11 - (await total(admin))
      for (let made = 0; made < missing; made++) {
        const filler = await admin.request.get(`${HISTORY}/export?du=2000-01-01&au=2000-01-01`)
        assert.equal(filler.status(), 200)
      }
      if (missing > 0) await admin.goto(HISTORY)
      const count = await total(admin)
      assert.ok(count > 10, `${count} entries`)

      const first = await tableRows(admin)
      assert.equal(first.length, 10)
      const pages = admin.getByRole('navigation', { name: 'Pagination' })
      await pages.getByRole('link', { name: 'Page 1' }).and(admin.locator('[aria-current="page"]')).waitFor()
      await pages.getByRole('link', { name: 'Page 2' }).click()
      await admin.waitForURL((url) => url.searchParams.get('page') === '2')
      await pages.getByRole('link', { name: 'Page 2' }).and(admin.locator('[aria-current="page"]')).waitFor()
      const second = await tableRows(admin)
      assert.equal(second.length, Math.min(10, count - 10))
      // Newest first across the pages: nothing on page 2 is newer than the last of page 1.
      const instants = [...first, ...second].map((row) => row.instant)
      assert.deepEqual(instants, [...instants].sort().reverse())
      await admin.context().close()
    })

    it('speaks English once switched: labels, and the export', async () => {
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto(`${HISTORY}?q=${encodeURIComponent(ADMIN_MAIL)}&type=CONNEXION`)
      await admin.getByRole('button', { name: 'English' }).click()
      await admin.getByRole('heading', { name: 'History', level: 1 }).waitFor()
      // The switch keeps the filters.
      assert.equal(new URL(admin.url()).searchParams.get('type'), 'CONNEXION')
      const rows = await admin
        .getByRole('table', { name: 'History of actions' })
        .locator('tbody tr')
        .evaluateAll((/** @type {HTMLTableRowElement[]} */ trs) =>
          // The action's column, the fourth of seven.
          // biome-ignore lint/performance/useDomNodeTextContent: the text as shown, the phone-only parts hidden
          trs.map((tr) => /** @type {HTMLTableCellElement} */ (tr.cells[3]).innerText.trim()),
        )
      assert.ok(rows.length > 0)
      assert.ok(
        rows.every((action) => action === 'Sign-in'),
        JSON.stringify(rows),
      )
      assert.equal(await admin.getByLabel('Action', { exact: true }).locator('option:checked').textContent(), 'Sign-in')
      const href = (await admin.getByRole('link', { name: 'Export (CSV)' }).getAttribute('href')) ?? ''
      const response = await admin.request.get(href)
      assert.equal(response.status(), 200)
      const [header, line] = (await response.text()).replace(/^\uFEFF/, '').split('\r\n')
      assert.equal(header, 'Date,Time,Last name,First name,Mail,Structure,Action,Code,Comment,Browser,Version,Source')
      assert.match(line ?? '', new RegExp(`,Durand,Claire,${escapeRegExp(ADMIN_MAIL)},.*,Sign-in,CONNEXION,`))
      await admin.context().close()
    })
  })
}
