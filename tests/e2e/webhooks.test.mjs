// @ts-check
// The webhooks (/pages/admin/webhooks): an administrator subscribes an address to whole families and single events,
// sees its signing secret once (never again), finds it on the list, opens its delivery log, changes it, and deletes it
// after a confirmation — with and without JavaScript, a refusal said on its field. With JavaScript, the address is a
// receiver this test runs, which verifies with the Standard Webhooks library what the portal signs: a sign-in's event
// arrives, and the log says it was delivered.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startWebhookReceiver } from '../webhook-receiver.mjs'
import { violations } from './axe.mjs'
import { MODES, notice, signIn, useBrowser, waitFor } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

const SCREEN = '/pages/admin/webhooks'

/** This run's mark in the addresses it makes: a file run again (the runner's retry) finds none of its first run's. */
const RUN = Date.now().toString(36).slice(-5)

/** @type {Awaited<ReturnType<typeof startWebhookReceiver>>} */
let receiver

before(async () => {
  receiver = await startWebhookReceiver()
})
after(async () => {
  await receiver.close()
})

/**
 * The structure chosen as a person does: typed in the combobox and picked, or in the native select.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} nom
 */
async function chooseStructure(page, mode, nom) {
  const form = page.locator('#nouveau-webhook')
  if (mode.javaScriptEnabled) {
    await form.getByRole('combobox', { name: 'Structure' }).and(page.locator('input')).fill(nom)
    await page.getByRole('option', { name: nom, exact: true }).click()
  } else {
    await form.getByLabel('Structure', { exact: true }).selectOption({ label: nom })
  }
}

/**
 * The list's row of a subscription.
 * @param {Page} page
 * @param {string} url
 */
const rowOf = (page, url) => page.getByRole('row').filter({ hasText: url })

for (const [index, mode] of MODES.entries()) {
  describe(`webhooks ${mode.name}`, () => {
    const key = `e2e-${index}-${RUN}`

    it('subscribes an address: a refusal on its field, then the secret once, the list, the log; deleted once confirmed', async () => {
      const url = `${receiver.origin}/ok/${key}`
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin')
      await page
        .getByRole('navigation', { name: 'Navigation principale' })
        .last()
        .getByRole('link', { name: 'Webhooks' })
        .click()
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      const form = page.locator('#nouveau-webhook')
      await form.getByLabel('Adresse de réception').fill(url)
      await form.getByLabel('Description').fill(`Récepteur de test ${RUN}`)
      await chooseStructure(page, mode, 'Direction Nord')
      // No event ticked: said on the events, what was typed kept.
      await form.getByRole('button', { name: 'Abonner l’adresse' }).click()
      await form.getByText('Choisissez au moins un événement.').waitFor()
      assert.equal(await form.getByLabel('Adresse de réception').inputValue(), url)
      if (mode.javaScriptEnabled)
        assert.deepEqual(await violations(page, { every: true }), [], 'the form with its errors')
      // A family whole, and one event of another.
      await form.getByRole('checkbox', { name: 'Tous (connexion.*)' }).check()
      await form.getByRole('checkbox', { name: 'Utilisateur supprimé (utilisateur.supprime)' }).check()
      if (mode.javaScriptEnabled) {
        // Ticked whole, a family's own events are part of it.
        await form.getByRole('checkbox', { name: 'Tous (poste.*)' }).check()
        assert.ok(await form.getByRole('checkbox', { name: 'Poste créé (poste.cree)' }).isDisabled())
        await form.getByRole('checkbox', { name: 'Tous (poste.*)' }).uncheck()
        assert.ok(await form.getByRole('checkbox', { name: 'Poste créé (poste.cree)' }).isEnabled())
      }
      await form.getByRole('button', { name: 'Abonner l’adresse' }).click()
      await page.getByRole('heading', { name: `Secret de signature de ${url}`, level: 1 }).waitFor()
      await page.getByText('Copiez ce secret maintenant : il ne sera plus jamais affiché.').waitFor()
      const secret = await page.getByLabel('Secret de signature (whsec_…)').inputValue()
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/)
      if (mode.javaScriptEnabled) {
        assert.deepEqual(await violations(page, { every: true }), [], 'the secret shown once')
        await fetch(`${receiver.origin}/__secret/${key}`, { method: 'PUT', body: secret })
      }
      await page.getByRole('link', { name: 'Retour aux webhooks' }).click()
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      assert.ok(!(await page.content()).includes(secret), 'the secret is in no later page')
      const row = rowOf(page, url)
      const text = (await row.textContent()) ?? ''
      assert.match(text, /connexion\.\*/)
      assert.match(text, /utilisateur\.supprime/)
      assert.match(text, /Direction Nord/)
      assert.match(text, /Actif/)

      if (mode.javaScriptEnabled) {
        // A sign-in in the Direction Nord is told, signed, to the receiver; the log says it arrived.
        const agent = await newPage(mode)
        await signIn(agent, mode, 'agent', 'Agent1234')
        await agent.context().close()
        /** @type {{ verified: boolean, payload: { type: string, sujet: { type: string } } | null }[]} */
        let arrived = []
        await waitFor(
          async () => {
            arrived = await (await fetch(`${receiver.origin}/__received/${key}`)).json()
            return arrived.some((delivery) => delivery.verified && delivery.payload?.type === 'connexion.reussie')
          },
          'no verified connexion.reussie reached the receiver',
          30_000,
        )
        assert.ok(arrived.every((delivery) => delivery.verified))
      }

      await row.getByRole('link', { name: `Livraisons de ${url}` }).click()
      await page.getByRole('heading', { name: url, level: 1 }).waitFor()
      if (mode.javaScriptEnabled) {
        const delivered = page.getByRole('row').filter({ hasText: 'connexion.reussie' }).first()
        await waitFor(
          async () => {
            await page.reload()
            return /Livrée/.test((await delivered.textContent()) ?? '')
          },
          'the log does not say the sign-in was delivered',
          30_000,
        )
        assert.match((await delivered.textContent()) ?? '', /Code 204/)
        assert.deepEqual(await violations(page, { every: true }), [], 'the delivery log')
        // Sent again: due at once, said in a notice.
        await delivered.getByRole('button', { name: /^Renvoyer l’événement connexion\.reussie/ }).click()
        await notice(page, 'sera envoyé de nouveau').waitFor()
      } else {
        await page
          .getByText(/Aucune livraison|livraison/)
          .first()
          .waitFor()
      }

      await page.goto(`${SCREEN}?q=${encodeURIComponent(`test ${RUN}`)}`)
      await rowOf(page, url).waitFor()
      await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${url}` }).click()
      const confirmation = mode.javaScriptEnabled
        ? page.getByRole('alertdialog')
        : page.getByRole('region', { name: `Supprimer le webhook ${url} ?` })
      await confirmation.getByText('Plus rien ne lui est envoyé', { exact: false }).waitFor()
      await confirmation.getByRole('button', { name: 'Supprimer' }).click()
      await notice(page, `Webhook ${url} supprimé`).waitFor()
      await rowOf(page, url).waitFor({ state: 'detached' })
      await page.context().close()
    })

    it('changes a subscription in its panel: switched off, its events replaced', async () => {
      const url = `https://rh.transports.example/e2e/${index}-${RUN}`
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(SCREEN)
      const form = page.locator('#nouveau-webhook')
      await form.getByLabel('Adresse de réception').fill(url)
      await chooseStructure(page, mode, 'Agence Lille')
      await form.getByRole('checkbox', { name: 'Poste créé (poste.cree)' }).check()
      await form.getByRole('button', { name: 'Abonner l’adresse' }).click()
      await page.getByRole('heading', { name: `Secret de signature de ${url}`, level: 1 }).waitFor()
      await page.goto(SCREEN)
      await rowOf(page, url)
        .getByRole('link', { name: `Modifier ${url}` })
        .click()
      const panel = page.getByRole('region', { name: `Modifier le webhook ${url}` })
      await panel.waitFor()
      assert.ok(await panel.getByRole('checkbox', { name: 'Poste créé (poste.cree)' }).isChecked())
      await panel.getByRole('checkbox', { name: 'Poste créé (poste.cree)' }).uncheck()
      await panel
        .getByRole('checkbox', { name: 'Fin d’un poste (le lendemain de son dernier jour) (poste.fin)' })
        .check()
      await panel.getByRole('checkbox', { name: 'Actif', exact: true }).uncheck()
      await panel.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Webhook ${url} enregistré`).waitFor()
      const text = (await rowOf(page, url).textContent()) ?? ''
      assert.match(text, /poste\.fin/)
      assert.doesNotMatch(text, /poste\.cree/)
      assert.match(text, /Désactivé/)
      await page.context().close()
    })
  })
}
