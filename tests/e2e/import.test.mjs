// @ts-check
// Import and export (/pages/admin/import): an administrator uploads a users file, reads its preview (what each row
// will do, the errors), imports it and follows its progress to the summary — with JavaScript (the page reads the
// import again by itself) and without (the page reloads itself) — then downloads the errors file and finds the new
// users in the export. A file that is no import says why on the upload form; the same file imported twice changes
// nothing the second time, and one renaming a user says whom before it is imported; at 320 and 360 px the preview and
// its list of changes read without sideways scrolling.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, organisationDay, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

const SCREEN = '/pages/admin/import'
const HEADER = 'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif'

/**
 * A users file: two new people in Agence Lille and a row naming a function the agency does not have.
 * @param {string} tag
 */
function usersFile(tag) {
  const dates = `${organisationDay(0)};${organisationDay(365)}`
  return [
    HEADER,
    `ines.import.${tag}@portail.example;Import;Inès;;non;Groupe Transports et Logistique / Direction Nord / Agence Lille;Agent de quai;${dates};oui`,
    `jules.import.${tag}@portail.example;Import;Jules;;non;Agence Lille;Agent de quai;${dates};non`,
    `karim.import.${tag}@portail.example;Import;Karim;;non;Agence Lille;Cariste;${dates};oui`,
  ].join('\r\n')
}

/**
 * The figure a summary shows under `label`.
 * @param {Page} page
 * @param {string} label
 */
const figure = (page, label) =>
  page
    .locator('dl > div')
    .filter({ has: page.getByText(label, { exact: true }) })
    .locator('dd')

/**
 * Uploads `text` as `name`, holding what `kind` says, and waits for the page the form leads to.
 * @param {Page} page
 * @param {string} kind
 * @param {string} name
 * @param {string} text
 */
async function upload(page, kind, name, text) {
  await page.goto(SCREEN)
  await page.getByRole('heading', { name: 'Import et export', level: 1 }).waitFor()
  await page.getByRole('radio', { name: kind }).check()
  await page.getByLabel('Fichier CSV').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) })
  await page.getByRole('button', { name: 'Voir l’aperçu' }).click()
}

for (const [index, mode] of MODES.entries()) {
  const tag = index === 0 ? 'js' : 'nojs'

  describe(`import and export ${mode.name}`, () => {
    it('previews a users file, imports it and follows it to its summary, with the errors file', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page
        .getByRole('navigation', { name: 'Navigation principale' })
        .last()
        .getByRole('link', { name: 'Import et export' })
        .click()
      const name = `rh-${tag}.csv`
      await upload(page, 'Des utilisateurs et leurs postes', name, usersFile(tag))
      await page.waitForURL(/\/pages\/admin\/import\/\d+$/)
      await page.getByRole('heading', { name: `Aperçu de l’import de ${name}`, level: 1 }).waitFor()
      assert.equal(await figure(page, 'À créer').textContent(), '2')
      assert.equal(await figure(page, 'En erreur').textContent(), '1')
      const errors = page.getByRole('table', { name: /Erreurs/ })
      assert.match(
        (await errors.getByRole('row').nth(1).textContent()) ?? '',
        /4\s*fonction\s*Pas de fonction « Cariste »/,
      )
      // Nothing is written by the preview.
      const exportBefore = await (await page.request.get('/pages/admin/export/utilisateurs.csv')).text()
      assert.ok(!exportBefore.includes(`ines.import.${tag}`))

      await page.getByRole('checkbox', { name: 'Envoyer leur invitation aux nouveaux utilisateurs actifs' }).check()
      await page.getByRole('button', { name: 'Importer', exact: true }).click()
      // Running, then done: read again by the page itself (a script, or the page reloading without one).
      await page.getByRole('heading', { name: `Import de ${name} terminé`, level: 1 }).waitFor({ timeout: 60_000 })
      assert.equal(await figure(page, 'Créées').textContent(), '2')
      assert.equal(await figure(page, 'En erreur').textContent(), '1')

      const id = /\/pages\/admin\/import\/(\d+)/.exec(page.url())?.[1]
      const errorsFile = await page.request.get(`/pages/admin/import/${id}/erreurs`)
      assert.equal(errorsFile.headers()['content-type'], 'text/csv; charset=utf-8')
      const lines = (await errorsFile.text()).split('\r\n')
      assert.equal(lines[0], '\uFEFFLigne;Colonne;Message')
      // Quoted: the message holds the separator.
      assert.match(lines[1] ?? '', /^4;fonction;"Pas de fonction « Cariste » dans « Agence Lille »/)

      const exported = await (await page.request.get('/pages/admin/export/utilisateurs.csv')).text()
      assert.match(exported, new RegExp(`ines\\.import\\.${tag}@portail\\.example;Import;Inès;`))
      assert.match(exported, new RegExp(`jules\\.import\\.${tag}@portail\\.example;Import;Jules;.*;non\\r\\n`))

      // The same file again: nothing to create or change.
      await upload(page, 'Des utilisateurs et leurs postes', name, usersFile(tag))
      await page.getByRole('heading', { name: `Aperçu de l’import de ${name}`, level: 1 }).waitFor()
      assert.equal(await figure(page, 'À créer').textContent(), '0')
      assert.equal(await figure(page, 'À modifier').textContent(), '0')
      assert.equal(await figure(page, 'Inchangées').textContent(), '2')

      // A file renaming one of them: the preview says whom and how before anything is imported.
      await upload(
        page,
        'Des utilisateurs et leurs postes',
        name,
        usersFile(tag).replace(';Import;Jules;', ';Importé;Jules;'),
      )
      await page.getByRole('heading', { name: `Aperçu de l’import de ${name}`, level: 1 }).waitFor()
      const changes = page.getByRole('table', { name: /Ce que l’import changera/ })
      assert.match(
        (await changes.getByRole('row').nth(1).textContent()) ?? '',
        new RegExp(`^3\\s*jules\\.import\\.${tag}@portail\\.example\\s*Nom : Import → Importé$`),
      )
      await page.context().close()
    })

    it('says on the upload form why a file is no import, and keeps nothing', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await upload(
        page,
        'Des utilisateurs et leurs postes',
        'mauvais.csv',
        'nom;type;parent\r\nAgence;Agence;Groupe\r\n',
      )
      await page
        .getByRole('alert')
        .filter({ hasText: `La première ligne doit nommer les colonnes « ${HEADER} »` })
        .waitFor()
      assert.equal(new URL(page.url()).pathname, SCREEN)
      assert.equal(await page.getByRole('link', { name: /mauvais\.csv/ }).count(), 0)
      await page.context().close()
    })
  })
}

describe('import and export at 360 px', () => {
  it('shows a preview without sideways scrolling', async () => {
    const page = await newPage()
    await page.setViewportSize({ width: 360, height: 740 })
    await signIn(page, MODES[0], 'admin', 'Admin1234')
    await upload(
      page,
      'Des structures',
      'structures-etroit.csv',
      'nom;type;parent\r\nAgence Étroite;Agence;Groupe Transports et Logistique / Direction Nord\r\nAgence Perdue;Agence;Direction Inconnue\r\n',
    )
    await page.getByRole('heading', { name: 'Aperçu de l’import de structures-etroit.csv', level: 1 }).waitFor()
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    )
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`)
    await page.context().close()
  })

  it('lists what a users file changes without sideways scrolling, at 320 and 360 px', async () => {
    const page = await newPage()
    await signIn(page, MODES[0], 'admin', 'Admin1234')
    const dates = `${organisationDay(0)};${organisationDay(365)}`
    const file = [
      HEADER,
      `odile.oubli@portail.example;Oubli-de-Montmorency-Laval-Étendue;Odile-Marie-Éléonore;;non;Agence Lille;Agent de quai;${dates};oui`,
    ].join('\r\n')
    for (const width of [320, 360]) {
      await page.setViewportSize({ width, height: 740 })
      await upload(page, 'Des utilisateurs et leurs postes', 'renommer.csv', file)
      await page.getByRole('heading', { name: 'Aperçu de l’import de renommer.csv', level: 1 }).waitFor()
      const changes = page.getByRole('table', { name: /Ce que l’import changera/ })
      assert.match((await changes.textContent()) ?? '', /Oubli → Oubli-de-Montmorency-Laval-Étendue/)
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      assert.ok(overflow <= 0, `the changes scroll the page sideways by ${overflow} px at ${width} px`)
    }
    await page.context().close()
  })
})
