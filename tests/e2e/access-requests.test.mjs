// @ts-check
// Access requests (README, "Access requests"): Marc Girard (Opérateur pesage, Agence Lille) asks for "Module Rendez
// vous" from "Mes accès", withdraws his request after a confirmation and asks again; the root administrator finds it
// in "Demandes d'accès" and refuses it with a reason, which Marc then reads — without JavaScript. With JavaScript, he
// asks again and the administrator grants it with the function offered first: the application is in his launcher.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { notice, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

/** @type {[string, string]} */
const MARC = ['marc.girard@portail.example', 'Pesage2024']
/** @type {[string, string]} */
const ADMIN = ['admin', 'Admin1234']
const APPLICATION = 'Module Rendez vous'

/**
 * The card of an application under "Autres applications".
 * @param {Page} page
 */
const card = (page) => page.locator('section[aria-labelledby="other-applications"] li').filter({ hasText: APPLICATION })

/**
 * @param {Page} page
 * @param {string} motif
 */
async function ask(page, motif) {
  await page.goto('/pages/user/acces')
  await page.getByRole('heading', { name: 'Autres applications', level: 2 }).waitFor()
  await card(page).getByText('Demander l’accès', { exact: true }).click()
  await card(page).getByLabel('Motif').fill(motif)
  await card(page).getByRole('button', { name: 'Envoyer la demande' }).click()
  await notice(page, 'Demande envoyée.').waitFor()
  await card(page)
    .getByText(/Demande envoyée le .*, en attente/)
    .waitFor()
}

/**
 * The administrator opens Marc's request from the list.
 * @param {Page} page
 */
async function openRequest(page) {
  await page.goto('/pages/admin/demandes?q=girard')
  await page.getByRole('link', { name: `Traiter la demande de Marc Girard pour ${APPLICATION}` }).click()
  await page.getByRole('heading', { name: 'Demande de Marc Girard', level: 1 }).waitFor()
}

describe('access requests', () => {
  it('without JavaScript: asked, withdrawn after a confirmation, asked again, refused with a reason the user reads', async () => {
    const marc = await newPage({ javaScriptEnabled: false })
    await signIn(marc, { javaScriptEnabled: false }, ...MARC)
    // A reason too short is said on its field, the form opened again with the dates typed.
    await marc.goto('/pages/user/acces')
    await card(marc).getByText('Demander l’accès', { exact: true }).click()
    await card(marc)
      .locator('form')
      .evaluate((form) => form.setAttribute('novalidate', ''))
    await card(marc).getByLabel('Motif').fill('a')
    await card(marc).getByRole('button', { name: 'Envoyer la demande' }).click()
    await card(marc).getByText('Le motif doit contenir de 3 à 500 caractères').waitFor()

    await ask(marc, 'Prendre les rendez-vous des transporteurs le samedi')
    await card(marc)
      .getByRole('link', { name: `Retirer la demande d’accès à ${APPLICATION}` })
      .click()
    await marc.getByRole('heading', { name: `Retirer la demande d’accès à ${APPLICATION} ?` }).waitFor()
    await marc.getByRole('button', { name: 'Retirer la demande' }).click()
    await notice(marc, 'Demande retirée.').waitFor()
    await ask(marc, 'Prendre les rendez-vous des transporteurs le samedi')

    const admin = await newPage({ javaScriptEnabled: false })
    await signIn(admin, { javaScriptEnabled: false }, ...ADMIN)
    await openRequest(admin)
    await admin.getByText('Prendre les rendez-vous des transporteurs le samedi').waitFor()
    await admin.getByLabel('Motif du refus').fill('Le samedi est couvert par l’équipe de Rouen')
    await admin.getByRole('button', { name: 'Refuser la demande' }).click()
    await notice(admin, 'Demande refusée : Marc Girard en est prévenu par mail.').waitFor()
    await admin.goto('/pages/admin/demandes?q=girard')
    await admin.getByText('Aucune demande en attente ne correspond à « girard ».').waitFor()

    await marc.goto('/pages/user/acces')
    const history = marc.locator('section[aria-labelledby="request-history"]')
    await history.getByText(/Refusée le/).waitFor()
    await history.getByText('Motif du refus : Le samedi est couvert par l’équipe de Rouen').waitFor()
    await marc.context().close()
    await admin.context().close()
  })

  it('with JavaScript: asked, granted with the function offered first, then in the launcher', async () => {
    const marc = await newPage({ javaScriptEnabled: true })
    await signIn(marc, { javaScriptEnabled: true }, ...MARC)
    await ask(marc, 'Remplacer le chef d’agence pendant ses congés')

    const admin = await newPage({ javaScriptEnabled: true })
    await signIn(admin, { javaScriptEnabled: true }, ...ADMIN)
    await openRequest(admin)
    // The requester's own structure first: Chef d'agence, Agence Lille, saying what else the post opens.
    const fonction = admin.getByLabel('Fonction')
    assert.match(
      (await fonction.locator('option:checked').textContent()) ?? '',
      /^Chef d'agence, Agence Lille \(sa structure\) — ouvre aussi : Pesage, Suivi des expéditions, Yard dangereux$/,
    )
    await admin.getByRole('button', { name: 'Accorder et créer le poste' }).click()
    await notice(admin, 'Accès accordé : Marc Girard en est prévenu par mail.').waitFor()

    await marc.goto('/pages/user/acces')
    await marc.getByRole('button', { name: `Lancer ${APPLICATION} (nouvel onglet)` }).waitFor()
    assert.equal(await card(marc).count(), 0)
    await marc.context().close()
    await admin.context().close()
  })
})
