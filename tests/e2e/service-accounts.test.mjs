// @ts-check
// The service accounts (/pages/admin/comptesService): an administrator creates a read-only account
// and sees its secret once (never again, the page reloaded), creates an administrator account (their
// password asked, a wrong one and a missing one said on the field, keys that are not JSON on theirs),
// renews its secret (the former revoked at once), deletes both after a confirmation, and edits an
// account (a refusal said in its panel, then renamed and switched off: no token since; an
// administrator account's scope added, the proof asked; a keys-only account's keys replaced) — with
// and without JavaScript. With JavaScript, the program then calls the API with its credentials: its
// calls show on the list and the administration home, its write in the history under its name.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { violations } from './axe.mjs'
import { BASE_URL, MODES, notice, signIn, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

const SCREEN = '/pages/admin/comptesService'

/**
 * The list's row of an account.
 * @param {Page} page
 * @param {string} nom
 */
const rowOf = (page, nom) => page.getByRole('row').filter({ hasText: nom })

/**
 * A new public key as a JWK (P-256), with `kid` when given.
 * @param {string} [kid]
 */
function publicJwk(kid) {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return { ...publicKey.export({ format: 'jwk' }), ...(kid ? { kid } : {}) }
}

/**
 * How far the page reaches beyond the narrow viewports (320 and 360 px), in pixels: the widest.
 * @param {Page} page
 */
async function sideways(page) {
  const size = page.viewportSize()
  let over = 0
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 800 })
    over = Math.max(
      over,
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    )
  }
  if (size) await page.setViewportSize(size)
  return over
}

/**
 * The structure chosen as a person does: typed in the combobox and picked, or in the native select.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} nom
 */
async function chooseStructure(page, mode, nom) {
  const form = page.locator('#nouveau-compte')
  if (mode.javaScriptEnabled) {
    await form.getByRole('combobox', { name: 'Structure' }).and(page.locator('input')).fill(nom)
    await page.getByRole('option', { name: nom, exact: true }).click()
  } else {
    await form.getByLabel('Structure', { exact: true }).selectOption({ label: nom })
  }
}

/**
 * The credentials the page shows once: the client id and the secret.
 * @param {Page} page
 * @param {string} nom
 */
async function shownCredentials(page, nom) {
  await page.getByRole('heading', { name: `Identifiants de ${nom}`, level: 1 }).waitFor()
  await page.getByText('Copiez ce secret maintenant : il ne sera plus jamais affiché.', { exact: false }).waitFor()
  const clientId = await page.getByLabel('Identifiant client (client_id)').inputValue()
  const secret = await page.getByLabel('Secret client (client_secret)').inputValue()
  assert.match(clientId, /^cs-[A-Za-z0-9_-]{24}$/)
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/)
  return { clientId, secret }
}

/**
 * A token of the client credentials grant (client_secret_basic), or the refusal's status.
 * @param {string} clientId
 * @param {string} secret
 */
async function tokenFor(clientId, secret) {
  const response = await fetch(`${BASE_URL}/portail-backend/oidc/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=api',
  })
  if (!response.ok) return { status: response.status, token: null }
  return {
    status: response.status,
    token: /** @type {{ access_token: string }} */ (await response.json()).access_token,
  }
}

/**
 * A REST call of the program.
 * @param {string | null} token
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
const apiCall = (token, method, path, body) =>
  fetch(`${BASE_URL}/portail-backend/rest${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })

/** This run's mark in the names it makes: a file run again (the runner's retry) finds none of its first run's. */
const RUN = Date.now().toString(36).slice(-5)

for (const [index, mode] of MODES.entries()) {
  const suffix = `${index === 0 ? 'avec JS' : 'sans JS'} ${RUN}`
  const reader = `Lecteur paie ${suffix}`
  const writer = `Passerelle RH ${suffix}`

  describe(`service accounts ${mode.name}`, () => {
    it('creates a read-only account from the menu: its secret shown once, never again', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page
        .getByRole('navigation', { name: 'Navigation principale' })
        .last()
        .getByRole('link', { name: 'Comptes de service' })
        .click()
      await page.getByRole('heading', { name: 'Comptes de service', level: 1 }).waitFor()
      const form = page.locator('#nouveau-compte')
      // A read-only account asks for no proof: with JavaScript the field shows only for an administrator.
      if (mode.javaScriptEnabled) assert.equal(await form.getByLabel('Votre mot de passe').count(), 0)
      await form.getByLabel('Nom', { exact: true }).fill(reader)
      await form.getByLabel('Description').fill('Lit les historiques pour la paie')
      await chooseStructure(page, mode, 'Agence Lille')
      // The REST API is ticked to begin with; the history added.
      assert.ok(await form.getByRole('checkbox', { name: 'API REST (api)' }).isChecked())
      await form.getByRole('checkbox', { name: 'Historique (logs)' }).check()
      await form.getByRole('button', { name: 'Créer le compte' }).click()

      await page.getByText(`Compte de service ${reader} créé.`).waitFor()
      const { secret } = await shownCredentials(page, reader)
      if (mode.javaScriptEnabled) {
        // On this page, what is shown once has no violation.
        assert.deepEqual(await violations(page, { every: true }), [], 'the credentials shown once')
        await page.reload()
      } else {
        // Reloading a posted page would post it again: the list is opened again instead.
        await page.goto(SCREEN)
      }
      await page.getByRole('heading', { name: 'Comptes de service', level: 1 }).waitFor()
      assert.equal(await page.getByLabel('Secret client (client_secret)').count(), 0)
      assert.ok(!(await page.content()).includes(secret), 'the secret is in no later page')
      const row = rowOf(page, reader)
      const text = (await row.textContent()) ?? ''
      assert.match(text, /Lecture seule/)
      assert.match(text, /API REST[\s\S]*Historique/)
      assert.match(text, /Agence Lille/)
      assert.match(text, /Jamais utilisé/)
      await page.context().close()
    })

    it('creates an administrator account: the proof asked, then renews its secret, the former revoked', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(SCREEN)
      const form = page.locator('#nouveau-compte')
      await form.getByLabel('Nom', { exact: true }).fill(writer)
      await chooseStructure(page, mode, 'Agence Lille')
      if (mode.javaScriptEnabled) {
        assert.equal(await form.getByLabel('Votre mot de passe').count(), 0)
        await form.getByRole('checkbox', { name: 'Compte administrateur' }).check()
        // Shown, and required, once the box is ticked.
        assert.equal(await form.getByLabel('Votre mot de passe').getAttribute('required'), '')
      } else {
        // Without JavaScript, always there, saying when it is needed.
        await form.getByText('Obligatoire pour un compte administrateur', { exact: false }).waitFor()
        await form.getByRole('checkbox', { name: 'Compte administrateur' }).check()
      }
      // Keys that are not JSON, and no proof: each said on its field, what was typed kept.
      await form.getByLabel('Clés publiques (JWKS, facultatif)').fill('pas du JSON')
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      await form.getByText('JSON illisible', { exact: false }).waitFor()
      await form.getByText('Un compte administrateur demande votre mot de passe (ou un code actuel)').waitFor()
      assert.equal(await form.getByLabel('Votre mot de passe').getAttribute('aria-invalid'), 'true')
      assert.equal(await form.getByLabel('Nom', { exact: true }).inputValue(), writer)
      assert.ok(await form.getByRole('checkbox', { name: 'Compte administrateur' }).isChecked())
      if (mode.javaScriptEnabled)
        assert.deepEqual(await violations(page, { every: true }), [], 'the form with its errors')

      // A wrong password, said on its field; then the right one.
      await form.getByLabel('Clés publiques (JWKS, facultatif)').fill('')
      await form.getByLabel('Votre mot de passe').fill('Wrong1234')
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      await form.getByText('Mot de passe incorrect.').waitFor()
      await form.getByLabel('Votre mot de passe').fill('Admin1234')
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      const first = await shownCredentials(page, writer)

      await page.getByRole('link', { name: 'Retour aux comptes de service' }).click()
      await page.getByRole('heading', { name: 'Comptes de service', level: 1 }).waitFor()
      assert.match((await rowOf(page, writer).textContent()) ?? '', /Administrateur/)
      await page.getByRole('link', { name: `Nouveau secret pour ${writer}` }).click()
      const panel = page.getByRole('region', { name: `Nouveau secret pour ${writer}` })
      await panel.getByText('L’ancien fonctionne encore 24 h', { exact: false }).waitFor()
      await panel.getByRole('checkbox', { name: 'Révoquer l’ancien secret immédiatement' }).check()
      await panel.getByLabel('Votre mot de passe').fill('Admin1234')
      await panel.getByRole('button', { name: 'Générer le nouveau secret' }).click()
      await page.getByText(`Nouveau secret pour ${writer}. L’ancien secret ne fonctionne plus.`).waitFor()
      const renewed = await shownCredentials(page, writer)
      assert.equal(renewed.clientId, first.clientId)
      assert.notEqual(renewed.secret, first.secret)

      if (mode.javaScriptEnabled) {
        // The program: the former secret no longer gets a token, the new one does.
        assert.equal((await tokenFor(first.clientId, first.secret)).status, 401)
        const { token } = await tokenFor(renewed.clientId, renewed.secret)
        assert.ok(token)
        // A write in its structure's sub-tree, undone: both in the history under its name.
        const made = await apiCall(token, 'POST', '/bd/fonction', {
          libelle: `Fonction ${writer}`,
          structure: { id: 4 },
        })
        assert.equal(made.status, 201)
        const { id } = /** @type {{ id: number }} */ (await made.json())
        assert.equal((await apiCall(token, 'DELETE', `/bd/fonction/${id}`)).status, 204)

        // The list counts its calls of the day and says when it last called.
        await page.getByRole('link', { name: 'Retour aux comptes de service' }).click()
        const row = rowOf(page, writer)
        await row.waitFor()
        assert.match((await row.textContent()) ?? '', /[2-9]\d* appels aujourd’hui/)
        // An element's text: a string, never null.
        assert.doesNotMatch(/** @type {string} */ (await row.textContent()), /Jamais utilisé/)
        // The history names it where it names a user.
        await page.goto(`/pages/admin/listeLogs?q=${encodeURIComponent(writer)}`)
        const history = page.getByRole('table', { name: 'Historique des actions' })
        await history.getByText(`Compte de service ${writer}`).first().waitFor()
        // The administration home lists it among the accounts that called today.
        await page.goto('/pages/admin')
        const section = page.getByRole('region', { name: 'Comptes de service actifs aujourd’hui' })
        const calls = section.getByRole('row').filter({ hasText: writer })
        await calls.waitFor()
        assert.ok(Number(await calls.getByRole('cell').nth(1).textContent()) >= 2)
        assert.deepEqual(await violations(page, { every: true }), [], 'the home with its service accounts')
      }
      await page.context().close()
    })

    it('deletes an account after its confirmation', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(`${SCREEN}?q=${encodeURIComponent(suffix)}`)
      for (const nom of [reader, writer]) {
        await rowOf(page, nom).waitFor()
        await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${nom}` }).click()
        const confirmation = mode.javaScriptEnabled
          ? page.getByRole('alertdialog')
          : page.getByRole('region', { name: `Supprimer ${nom}` })
        await confirmation.getByText('Il cessera de fonctionner dès son prochain appel', { exact: false }).waitFor()
        await confirmation.getByRole('button', { name: 'Supprimer' }).click()
        await notice(page, `Compte de service ${nom} supprimé`).waitFor()
        await rowOf(page, nom).waitFor({ state: 'detached' })
        // The search is kept.
        assert.equal(new URL(page.url()).searchParams.get('q'), suffix)
      }
      await page.context().close()
    })

    it('edits an account: a refusal said in the panel, then its new name and switched off', async () => {
      const nom = `Relais à modifier ${suffix}`
      const renamed = `Relais renommé ${suffix}`
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(SCREEN)
      const form = page.locator('#nouveau-compte')
      await form.getByLabel('Nom', { exact: true }).fill(nom)
      await chooseStructure(page, mode, 'Agence Lille')
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      const { clientId, secret } = await shownCredentials(page, nom)
      assert.ok((await tokenFor(clientId, secret)).token, 'on: it gets a token')

      // Opened from a search its new name still matches: the list kept, the focus back on its row.
      await page.goto(`${SCREEN}?q=${encodeURIComponent(suffix)}`)
      await page.getByRole('link', { name: `Modifier ${nom}` }).click()
      const panel = page.getByRole('region', { name: `Modifier le compte de service ${nom}` })
      // Prefilled with the account as it is.
      assert.equal(await panel.getByLabel('Nom', { exact: true }).inputValue(), nom)
      assert.ok(await panel.getByRole('switch', { name: 'Actif' }).isChecked())
      assert.ok(await panel.getByRole('checkbox', { name: 'API REST (api)' }).isChecked())
      await panel.getByText('refusé dès son prochain appel', { exact: false }).waitFor()
      // A read-only account asks for no proof, nor has keys to replace.
      assert.equal(await panel.getByLabel('Votre mot de passe').count(), 0)
      assert.equal(await panel.getByLabel('Nouvelles clés publiques (JWKS, facultatif)').count(), 0)
      if (mode.javaScriptEnabled) assert.deepEqual(await violations(page, { every: true }), [], 'the edit panel')
      assert.equal(await sideways(page), 0, 'the edit panel scrolls no sideways at 320 and 360 px')

      // No scope left: said on the scopes, in the panel, the name typed kept.
      await panel.getByLabel('Nom', { exact: true }).fill(renamed)
      await panel.getByRole('checkbox', { name: 'API REST (api)' }).uncheck()
      await panel.getByRole('button', { name: 'Enregistrer' }).click()
      await panel.getByText('Choisissez au moins une portée').waitFor()
      assert.equal(await panel.getByLabel('Nom', { exact: true }).inputValue(), renamed)
      if (mode.javaScriptEnabled)
        assert.deepEqual(await violations(page, { every: true }), [], 'the edit panel with its error')

      await panel.getByRole('checkbox', { name: 'API REST (api)' }).check()
      await panel.getByRole('switch', { name: 'Actif' }).uncheck()
      await panel.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Compte de service ${renamed} enregistré.`).waitFor()
      await page.getByRole('region', { name: `Modifier le compte de service ${nom}` }).waitFor({ state: 'detached' })
      assert.equal(new URL(page.url()).searchParams.get('q'), suffix)
      if (mode.javaScriptEnabled) {
        // Focus is back on the row's link that opened the panel.
        await page.getByRole('link', { name: `Modifier ${renamed}` }).waitFor()
        await page.waitForFunction(
          (label) => document.activeElement?.getAttribute('aria-label') === label,
          `Modifier ${renamed}`,
        )
      }
      const row = rowOf(page, renamed)
      await row.getByText('Désactivé', { exact: true }).waitFor()
      assert.equal(await rowOf(page, nom).count(), 0)
      // Switched off, under the same client id: refused at its next call.
      assert.match((await row.textContent()) ?? '', new RegExp(clientId))
      assert.equal((await tokenFor(clientId, secret)).token, null, 'off: no token')
      await page.context().close()
    })

    it('edits an administrator account: a scope added asks for the proof', async () => {
      const nom = `Passerelle à modifier ${suffix}`
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(SCREEN)
      const form = page.locator('#nouveau-compte')
      await form.getByLabel('Nom', { exact: true }).fill(nom)
      await chooseStructure(page, mode, 'Agence Lille')
      await form.getByRole('checkbox', { name: 'Compte administrateur' }).check()
      await form.getByLabel('Votre mot de passe').fill('Admin1234')
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      await shownCredentials(page, nom)

      await page.goto(`${SCREEN}?q=${encodeURIComponent(nom)}`)
      await page.getByRole('link', { name: `Modifier ${nom}` }).click()
      const panel = page.getByRole('region', { name: `Modifier le compte de service ${nom}` })
      const history = panel.getByRole('checkbox', { name: 'Historique (logs)' })
      if (mode.javaScriptEnabled) {
        // Asked once the change widens it, and required then.
        assert.equal(await panel.getByLabel('Votre mot de passe').count(), 0)
        await history.check()
        assert.equal(await panel.getByLabel('Votre mot de passe').getAttribute('required'), '')
      } else {
        // Without JavaScript, always there, saying when it is needed; the API's refusal said on the field.
        await panel.getByText('Obligatoire pour ajouter une portée', { exact: false }).waitFor()
        await history.check()
        await panel.getByRole('button', { name: 'Enregistrer' }).click()
        await panel.getByText('Un compte administrateur demande votre mot de passe (ou un code actuel)').waitFor()
        assert.equal(await panel.getByLabel('Votre mot de passe').getAttribute('aria-invalid'), 'true')
        assert.ok(await history.isChecked(), 'what was ticked is kept')
      }
      await panel.getByLabel('Votre mot de passe').fill('Admin1234')
      await panel.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Compte de service ${nom} enregistré.`).waitFor()
      assert.match((await rowOf(page, nom).textContent()) ?? '', /API REST[\s\S]*Historique/)
      await page.context().close()
    })

    it('replaces a keys-only account’s keys from its panel, left empty kept', async () => {
      const nom = `Signataire ${suffix}`
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(SCREEN)
      const form = page.locator('#nouveau-compte')
      await form.getByLabel('Nom', { exact: true }).fill(nom)
      await chooseStructure(page, mode, 'Agence Lille')
      await form.getByLabel('Clés publiques (JWKS, facultatif)').fill(JSON.stringify(publicJwk()))
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      await page.getByRole('heading', { name: `Identifiants de ${nom}`, level: 1 }).waitFor()
      await page.getByText('Ce compte s’authentifie avec ses clés publiques', { exact: false }).waitFor()

      await page.goto(`${SCREEN}?q=${encodeURIComponent(nom)}`)
      await page.getByRole('link', { name: `Modifier ${nom}` }).click()
      const panel = page.getByRole('region', { name: `Modifier le compte de service ${nom}` })
      const keys = panel.getByLabel('Nouvelles clés publiques (JWKS, facultatif)')
      await panel.getByText('Laissé vide, il garde sa clé actuelle.', { exact: false }).waitFor()
      assert.equal(await keys.inputValue(), '')
      await keys.fill('pas du JSON')
      await panel.getByRole('button', { name: 'Enregistrer' }).click()
      await panel.getByText('JSON illisible', { exact: false }).waitFor()
      assert.equal(await keys.getAttribute('aria-invalid'), 'true')
      await keys.fill(JSON.stringify({ keys: [publicJwk('a'), publicJwk('b')] }))
      await panel.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Compte de service ${nom} enregistré.`).waitFor()
      assert.match((await rowOf(page, nom).textContent()) ?? '', /2 clés publiques/)
      await page.context().close()
    })
  })
}

describe('service accounts: an account acts for an administrator, and another takes it over', () => {
  for (const [index, mode] of MODES.entries()) {
    it(`shows whom each acts for, and the root administrator takes over Direction Sud's (${mode.name})`, async () => {
      const nom = `Relais sud ${index === 0 ? 'avec JS' : 'sans JS'} ${RUN}`
      const sud = await newPage(mode)
      await signIn(sud, mode, 'adminsud', 'Adminsud1')
      await sud.goto(SCREEN)
      const form = sud.locator('#nouveau-compte')
      await form.getByLabel('Nom', { exact: true }).fill(nom)
      await chooseStructure(sud, mode, 'Direction Sud')
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      await shownCredentials(sud, nom)
      await sud.context().close()

      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(`${SCREEN}?q=${encodeURIComponent(nom)}`)
      await rowOf(page, nom).getByText('Agit pour Sofia Garcia').waitFor()
      await page.getByRole('link', { name: `Reprendre ${nom}` }).click()
      const panel = page.getByRole('region', { name: `Reprendre ${nom}` })
      await panel.getByText('Le compte agira désormais pour vous.', { exact: false }).waitFor()
      if (mode.javaScriptEnabled) assert.deepEqual(await violations(page, { every: true }), [], 'the take-over panel')
      await panel.getByRole('button', { name: 'Reprendre le compte' }).click()
      await page
        .getByText(`Vous avez repris le compte de service ${nom}. L’ancien secret ne fonctionne plus.`)
        .waitFor()
      await shownCredentials(page, nom)
      await page.getByRole('link', { name: 'Retour aux comptes de service' }).click()
      await page.getByRole('heading', { name: 'Comptes de service', level: 1 }).waitFor()
      await page.goto(`${SCREEN}?q=${encodeURIComponent(nom)}`)
      await rowOf(page, nom).getByText('Agit pour Claire Durand').waitFor()
      // Theirs now: nothing to take over.
      assert.equal(await page.getByRole('link', { name: `Reprendre ${nom}` }).count(), 0)
      await page.context().close()
    })

    it(`the root administrator hands an account to Direction Sud's administrator (${mode.name})`, async () => {
      const nom = `Relais transmis ${index === 0 ? 'avec JS' : 'sans JS'} ${RUN}`
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto(SCREEN)
      const form = page.locator('#nouveau-compte')
      await form.getByLabel('Nom', { exact: true }).fill(nom)
      await chooseStructure(page, mode, 'Direction Sud')
      await form.getByRole('button', { name: 'Créer le compte' }).click()
      await shownCredentials(page, nom)
      await page.goto(`${SCREEN}?q=${encodeURIComponent(nom)}`)
      await rowOf(page, nom).getByText('Agit pour Claire Durand').waitFor()
      await page.getByRole('link', { name: `Confier ${nom} à un autre administrateur` }).click()
      const panel = page.getByRole('region', { name: `Confier ${nom} à un autre administrateur` })
      await panel.getByLabel('Administrateur').selectOption({ label: 'Sofia Garcia' })
      if (mode.javaScriptEnabled) assert.deepEqual(await violations(page, { every: true }), [], 'the hand-over panel')
      await panel.getByRole('button', { name: 'Confier le compte' }).click()
      await page
        .getByText(`Le compte de service ${nom} agit désormais pour l’administrateur choisi.`, { exact: false })
        .waitFor()
      await shownCredentials(page, nom)
      await page.goto(`${SCREEN}?q=${encodeURIComponent(nom)}`)
      await rowOf(page, nom).getByText('Agit pour Sofia Garcia').waitFor()
      await page.context().close()
    })
  }
})

describe('service accounts: what a delegated administrator sees', () => {
  it('lists the accounts of their sub-tree only, and offers the screen in the menu', async () => {
    const mode = { javaScriptEnabled: true }
    const page = await newPage(mode)
    await signIn(page, mode, 'adminsud', 'Adminsud1')
    await page
      .getByRole('navigation', { name: 'Navigation principale' })
      .last()
      .getByRole('link', { name: 'Comptes de service' })
      .click()
    await page.getByRole('heading', { name: 'Comptes de service', level: 1 }).waitFor()
    // The fixtures: Direction Sud's account, not Agence Lille's.
    await rowOf(page, 'Synchronisation paie').waitFor()
    assert.equal(await rowOf(page, 'Lecture des registres').count(), 0)
    await page.context().close()
  })
})
