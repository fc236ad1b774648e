// @ts-check
// Access reviews (README, "Access reviews"). Without JavaScript, the administrator opens a campaign over Agence Rouen,
// whose current posts (Marie-Christine Fontaine-Durand's and the others of tests/e2e/fixtures.sql) are written by the
// queue; asked to end hers, they cancel at the confirmation, then confirm hers with the selection and all the others at
// once ("Tout confirmer", after its confirmation), close the campaign after its confirmation and download its report.
// With JavaScript, on the open campaign of Direction Nord (fixtures), they find the driver by a search and end his post
// by the keyboard after the confirmation, the focus following. Ending "today" keeps the post current today: the
// other tests of the run are not changed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { notice, organisationDay, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

describe('access reviews', () => {
  it('without JavaScript: opened on the queue, confirmed, closed, its report downloaded', async () => {
    const mode = { javaScriptEnabled: false }
    const page = await newPage(mode)
    await signIn(page, mode, 'admin', 'Admin1234')
    await page.goto('/pages/admin/revues')
    await page.getByLabel('Nom de la campagne').fill('Revue de Rouen')
    await page.getByLabel('Structure', { exact: true }).selectOption({ label: 'Agence Rouen' })
    await page.getByLabel('Échéance').fill(organisationDay(30))
    await page.getByLabel('terminé ce jour-là').check()
    await page.getByRole('button', { name: 'Ouvrir la campagne' }).click()
    await page.getByRole('heading', { name: 'Revue de Rouen', level: 1 }).waitFor()
    await notice(page, 'Campagne ouverte : ses postes s’ajoutent en arrière-plan.').waitFor()
    // The queue writes the items in the background.
    const item = page.getByRole('checkbox', { name: 'Sélectionner le poste de Marie-Christine Fontaine-Durand' })
    for (let attempt = 0; attempt < 30 && (await item.count()) === 0; attempt++) {
      await page.waitForTimeout(500)
      await page.reload()
    }
    await item.waitFor()

    await page.getByRole('button', { name: 'Terminer le poste de Marie-Christine Fontaine-Durand' }).click()
    await page.getByRole('heading', { name: 'Terminer 1 poste ?' }).waitFor()
    await page.getByRole('link', { name: 'Annuler' }).click()
    await page.getByRole('heading', { name: 'Terminer 1 poste ?' }).waitFor({ state: 'detached' })

    // Her post ticked and confirmed with a comment; then every other post of the agency at once, after its confirmation.
    const count = await page.getByRole('checkbox', { name: /^Sélectionner le poste de / }).count()
    await item.check()
    await page.getByLabel('Commentaire (facultatif)').fill('Toujours à Rouen')
    await page.getByRole('button', { name: 'Confirmer la sélection' }).click()
    await notice(page, '1 poste confirmé.').waitFor()
    await page.getByRole('button', { name: 'Tout confirmer' }).click()
    const rest = count - 1
    const title = rest === 1 ? 'Confirmer 1 poste à revoir ?' : `Confirmer les ${rest} postes à revoir ?`
    await page.getByRole('heading', { name: title }).waitFor()
    await page.getByText('Filtre : Toutes les structures ; recherche : —.').waitFor()
    await page.getByRole('button', { name: rest === 1 ? 'Confirmer 1 poste' : `Confirmer les ${rest} postes` }).click()
    await notice(page, rest === 1 ? '1 poste confirmé.' : `${rest} postes confirmés.`).waitFor()
    await page.getByText(`${count} / ${count}`).first().waitFor()

    await page.getByRole('link', { name: 'Clôturer la campagne' }).click()
    await page.getByRole('heading', { name: 'Clôturer « Revue de Rouen » ?' }).waitFor()
    await page.getByRole('button', { name: 'Clôturer la campagne' }).click()
    await notice(page, 'Campagne clôturée.').waitFor()
    await page.getByText(/· Clôturée$/).waitFor()
    // The campaign's page is its report: who opened and closed it, and what it ends with.
    await page.getByRole('heading', { name: 'Rapport de la campagne' }).waitFor()
    await page.getByText(/^Clôturée le \d{2}\/\d{2}\/\d{4} \d{2}:\d{2} par /).waitFor()
    await page.getByText(`Postes : ${count} · confirmés : ${count} · terminés : 0`).waitFor()

    const href = (await page.getByRole('link', { name: 'Rapport (CSV)' }).getAttribute('href')) ?? ''
    const report = await page.request.get(href)
    assert.equal(report.status(), 200)
    const lines = (await report.text()).replace('\uFEFF', '').trim().split('\r\n')
    assert.equal(lines.length, count + 1)
    const fontaine = lines.find((line) => line.includes(';Fontaine-Durand;')) ?? ''
    assert.match(
      fontaine,
      /^Agence Rouen;fontaine;Fontaine-Durand;Marie-Christine;Agent de quai;.*;Confirmé;;.*;Toujours à Rouen$/,
    )
    await page.context().close()
  })

  it('with JavaScript: a post found by a search and ended after the confirmation', async () => {
    const mode = { javaScriptEnabled: true }
    const page = await newPage(mode)
    await signIn(page, mode, 'admin', 'Admin1234')
    await page.goto('/pages/admin/revues/970')
    await page.getByRole('heading', { name: 'Revue annuelle de la Direction Nord', level: 1 }).waitFor()
    await page.getByLabel('Rechercher un utilisateur ou une fonction').fill('chauffeur')
    await page.getByRole('button', { name: 'Filtrer' }).click()
    await page.getByText('1 poste', { exact: true }).waitFor()
    // By the keyboard: the confirmation takes the focus, and once the post is ended the focus is on the list's heading,
    // not on the next person's buttons.
    await page.getByRole('button', { name: 'Terminer le poste de Lucas Martin' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Terminer 1 poste ?' }).waitFor()
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-labelledby') !== null)
    await page.getByRole('button', { name: 'Terminer 1 poste' }).click()
    await notice(page, '1 poste terminé.').waitFor()
    await page.waitForFunction(() => document.activeElement?.id === 'items')
    await page
      .getByRole('row')
      .filter({ hasText: 'Lucas Martin' })
      .getByText('Terminé', { exact: true })
      .filter({ visible: true })
      .waitFor()
    await page.context().close()
  })
})
