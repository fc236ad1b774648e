// @ts-check
// The catalogue (issue 25): a root administrator registers an application and grants it to the
// agent's function, the agent launches it at once; switches one off and on and deletes one after a
// confirmation that says who loses it, with and without JavaScript; the menu entry and the pages
// are theirs alone. An application registered as an OpenID Connect client from the form: a
// confidential client's secret shown once and renewed after a confirmation, a public client's
// addresses checked on their fields, without JavaScript too.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { noScriptViolations, violations } from './axe.mjs'
import { BASE_URL, MODES, notice, signIn, until, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Locator} Locator */
/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

/**
 * The list's row of an application.
 * @param {Page} page
 * @param {string} libelle
 */
const rowOf = (page, libelle) => page.getByRole('row').filter({ hasText: libelle })

for (const [index, mode] of MODES.entries()) {
  const libelle = index === 0 ? 'Essai catalogue avec JS' : 'Essai catalogue sans JS'

  describe(`the catalogue ${mode.name}`, () => {
    it('switch off, on again, then delete after the confirmation', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.getByRole('navigation').first().getByRole('link', { name: 'Applications' }).first().click()
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor()
      // The demo's launchers: the agents of Lille and Rouen and their heads may launch Pesage.
      const pesage = rowOf(page, 'Pesage')
      assert.match((await pesage.textContent()) ?? '', /Opérateur pesage/)

      await page.getByLabel('Rechercher une application par son nom').fill('Essai catalogue')
      await page.getByLabel('Rechercher une application par son nom').press('Enter')
      await rowOf(page, libelle).waitFor()
      // Sixty functions grant it: the row names the first three and counts the rest.
      assert.match(
        (await rowOf(page, libelle).textContent()) ?? '',
        /Quai 00 · Transports du Sud 06[\s\S]*et 57 autres/,
      )
      await page.getByRole('button', { name: `Désactiver ${libelle}` }).click()
      await notice(page, `${libelle} est désactivée`).waitFor()
      await rowOf(page, libelle).getByText('Désactivée : absente des accès').waitFor()
      // Focus stays on the row's switch, now the other way round.
      await until(page, (name) => document.activeElement?.getAttribute('aria-label') === name, `Activer ${libelle}`)
      await page.getByRole('button', { name: `Activer ${libelle}` }).click()
      await notice(page, `${libelle} est activée`).waitFor()
      assert.equal(await rowOf(page, libelle).getByText('Désactivée : absente des accès').count(), 0)

      // Its form cannot list sixty grants: it says so and saves the rest, the grants kept.
      await page.goto(`/pages/admin/applications/${901 + index}`)
      await page.getByText('60 fonctions y donnent accès : trop pour les choisir ici.', { exact: false }).waitFor()
      await page.getByLabel('Adresse').fill(`https://essai.example.test/v2-${index}`)
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${libelle} enregistrée`).waitFor()
      await page.getByLabel('Rechercher une application par son nom').fill(libelle)
      await page.getByLabel('Rechercher une application par son nom').press('Enter')
      // The search's page is there (the row was already listed before it): a click now reaches it.
      await page.waitForURL((url) => url.searchParams.get('q') === libelle)
      assert.match((await rowOf(page, libelle).textContent()) ?? '', /v2-\d[\s\S]*et 57 autres/)

      const trigger = page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${libelle}` })
      await trigger.click()
      const confirmation = mode.javaScriptEnabled
        ? page.getByRole('alertdialog')
        : page.getByRole('region', { name: `Supprimer ${libelle}` })
      await confirmation.getByText('Aucun utilisateur ne peut la lancer aujourd’hui.').waitFor()
      await confirmation.getByRole('button', { name: 'Supprimer' }).click()
      await notice(page, `Application ${libelle} supprimée`).waitFor()
      await rowOf(page, libelle).waitFor({ state: 'detached' })
    })

    it('register an application, grant it to the agent’s function: the agent launches it at once', async () => {
      const name = index === 0 ? 'Quai express avec JS' : 'Quai express sans JS'
      const slug = index === 0 ? 'quai-js' : 'quai-sans-js'
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/applications')
      await page.getByRole('link', { name: 'Nouvelle application' }).click()
      await page.getByRole('heading', { name: 'Nouvelle application', level: 1 }).waitFor()
      await page.getByLabel('Application').fill(name)
      await page.getByLabel('Adresse').fill(`/demo-app/${slug}`)
      await page.getByRole('radio', { name: 'Camion' }).check()
      // The functions are chosen structure by structure: Agence Lille's, then its dock agents.
      if (mode.javaScriptEnabled) {
        // The enhanced combobox (an input), not the native select it replaces once the page is live.
        await page.getByRole('combobox', { name: 'Structure' }).and(page.locator('input')).fill('Agence Lille')
        await page.getByRole('option', { name: 'Agence Lille' }).click()
        await page.waitForURL((url) => url.searchParams.get('structure') === '4')
      } else {
        await page.getByLabel('Structure', { exact: true }).selectOption({ label: 'Agence Lille' })
        await page.getByRole('button', { name: 'Afficher ses fonctions' }).click()
      }
      const lille = page.getByRole('group', { name: 'Fonctions de Agence Lille' })
      await lille.getByRole('checkbox', { name: 'Agent de quai' }).check()
      // What was typed is still there once the structure's functions are shown.
      assert.equal(await page.getByLabel('Application').inputValue(), name)
      assert.ok(await page.getByRole('radio', { name: 'Camion' }).isChecked())
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${name} créée`).waitFor()
      const row = rowOf(page, name)
      await row.getByText('Agent de quai · Agence Lille').waitFor({ state: 'attached' })

      const agent = await newPage(mode)
      await signIn(agent, mode, 'agent', 'Agent1234')
      await agent.getByRole('heading', { name, level: 2 }).waitFor()
      const [tab] = await Promise.all([
        agent.context().waitForEvent('page'),
        agent.getByRole('button', { name: `Lancer ${name} (nouvel onglet)` }).click(),
      ])
      await tab.waitForURL((url) => url.pathname === `/demo-app/${slug}` && url.searchParams.has('code'))
      await tab.getByText(/Connecté à .* par le portail\. Thomas Lefebvre/).waitFor()

      // The grant taken back on the edit page: the agent's launcher no longer has it.
      await page.getByRole('link', { name, exact: true }).click()
      await page.getByRole('heading', { name: `Modifier ${name}`, level: 1 }).waitFor()
      const chosen = page.getByRole('group', { name: 'Fonctions retenues' })
      await chosen.getByRole('checkbox', { name: 'Agent de quai · Agence Lille' }).uncheck()
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${name} enregistrée`).waitFor()
      await agent.reload()
      await agent.getByRole('heading', { name: 'Pesage', level: 2 }).waitFor()
      assert.equal(await agent.getByRole('heading', { name, level: 2 }).count(), 0)

      // Deleted, so that the demo's launchers are as the other tests know them.
      await rowOf(page, name).waitFor()
      await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${name}` }).click()
      const confirmation = mode.javaScriptEnabled
        ? page.getByRole('alertdialog')
        : page.getByRole('region', { name: `Supprimer ${name}` })
      await confirmation.getByRole('button', { name: 'Supprimer' }).click()
      await notice(page, `Application ${name} supprimée`).waitFor()
      await agent.context().close()
      await page.context().close()
    })

    it('each row offers its edit as a button that says so, beside the switch and the delete', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/applications?q=Pesage')
      const edit = rowOf(page, 'Pesage').getByRole('link', { name: 'Modifier Pesage' })
      // Shaped as the row's other buttons, its word visible on a wide screen.
      assert.ok(await edit.getByText('Modifier', { exact: true }).isVisible())
      const remove = rowOf(page, 'Pesage').getByRole(mode.javaScriptEnabled ? 'button' : 'link', {
        name: 'Supprimer Pesage',
      })
      assert.equal((await edit.boundingBox())?.height, (await remove.boundingBox())?.height)
      await edit.click()
      await page.getByRole('heading', { name: 'Modifier Pesage', level: 1 }).waitFor()
      await page.context().close()
    })

    it('a name already used is said on its field, with what was typed kept', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      await page.goto('/pages/admin/applications/nouvelle')
      await page.getByLabel('Application').fill('PESAGE')
      await page.getByLabel('Adresse').fill('https://pesage.example/entree')
      await page.getByRole('radio', { name: 'Balance' }).check()
      await page.getByLabel('Adresse').press('Enter')
      await page.getByText('Pesage déjà utilisé').first().waitFor()
      const field = page.getByLabel('Application')
      await until(page, () => document.querySelector('input[name="libelle"]')?.getAttribute('aria-invalid') === 'true')
      assert.equal(await field.inputValue(), 'PESAGE')
      assert.equal(await page.getByLabel('Adresse').inputValue(), 'https://pesage.example/entree')
      assert.ok(await page.getByRole('radio', { name: 'Balance' }).isChecked())
      await page.context().close()
    })

    it('a SAML application shows its registered provider and keeps it while what it is sent changes; a new one is registered from its metadata', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'admin', 'Admin1234')
      const saml =
        index === 0
          ? { id: 903, name: 'Paie SAML avec JS', path: 'js' }
          : { id: 904, name: 'Paie SAML sans JS', path: 'nojs' }
      await page.goto(`/pages/admin/applications/${saml.id}`)
      assert.ok(await page.getByRole('radio', { name: 'SAML 2.0' }).isChecked())
      const provider = page.getByRole('region', { name: 'Fournisseur enregistré' })
      await provider.getByText(`https://paie.example.test/${saml.path}/mellon/metadata`).waitFor()
      await provider.getByText(`https://paie.example.test/${saml.path}/mellon/postResponse`).waitFor()
      await provider.getByText(/CN=ERP Paie \(démo\), expire le 20\d\d-\d\d-\d\d/).waitFor()
      assert.ok(
        await page.getByRole('radio', { name: 'Persistant (opaque, différent pour chaque service)' }).isChecked(),
      )
      const attribute = (/** @type {string} */ source) => page.getByLabel(`Nom de l’attribut : ${source}`)
      assert.equal(await attribute('e-mail').inputValue(), 'mail')
      assert.equal(await attribute('postes en cours (structure/fonction)').inputValue(), 'postes')

      // What the portal sends changes; the provider, without new metadata, stays.
      await page.getByLabel('Adresse').fill(`https://paie.example.test/${saml.path}/v2`)
      await page.getByRole('radio', { name: 'Transitoire (nouveau à chaque connexion)' }).check()
      await attribute('identifiant').fill('uid, login')
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${saml.name} enregistrée`).waitFor()
      await page.goto(`/pages/admin/applications/${saml.id}`)
      assert.equal(await page.getByLabel('Adresse').inputValue(), `https://paie.example.test/${saml.path}/v2`)
      assert.ok(await page.getByRole('radio', { name: 'Transitoire (nouveau à chaque connexion)' }).isChecked())
      assert.equal(await attribute('identifiant').inputValue(), 'uid, login')
      await page
        .getByRole('region', { name: 'Fournisseur enregistré' })
        .getByText(`https://paie.example.test/${saml.path}/mellon/metadata`)
        .waitFor()

      // A new one: its metadata is required, then read.
      await page.goto('/pages/admin/applications/nouvelle')
      const libelle = `Compta SAML ${mode.name}`
      await page.getByLabel('Application').fill(libelle)
      await page.getByLabel('Adresse').fill(`https://compta.example.test/${saml.path}/`)
      await page.getByRole('radio', { name: 'Balance' }).check()
      await page.getByRole('radio', { name: 'SAML 2.0' }).check()
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      const metadata = page.getByLabel('Métadonnées du fournisseur de services (XML)')
      await until(
        page,
        () => document.getElementById('application-saml-metadata')?.getAttribute('aria-invalid') === 'true',
      )
      await metadata.fill(spMetadata(`https://compta.example.test/${saml.path}`))
      await page.getByRole('button', { name: 'Enregistrer' }).click()
      await notice(page, `Application ${libelle} créée`).waitFor()
      await page.goto(`/pages/admin/applications?${new URLSearchParams({ q: libelle })}`)
      await page.getByRole('link', { name: libelle }).first().click()
      await page
        .getByRole('region', { name: 'Fournisseur enregistré' })
        .getByText(`https://compta.example.test/${saml.path}/acs`)
        .waitFor()
      await page.context().close()
    })

    it('is not offered to an administrator of a sub-tree, and refuses them', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      assert.equal(await page.getByRole('link', { name: 'Applications' }).count(), 0)
      for (const path of [
        '/pages/admin/applications',
        '/pages/admin/applications/nouvelle',
        '/pages/admin/applications/3',
      ]) {
        await page.goto(path)
        await page.getByRole('heading', { level: 1 }).waitFor()
        assert.equal(await page.getByRole('table').count(), 0, path)
        assert.equal(await page.getByLabel('Application').count(), 0, path)
      }
    })
  })
}

/**
 * A service provider's metadata, as an application publishes it (no certificate: it does not sign its requests).
 * @param {string} base
 */
const spMetadata = (base) => `<?xml version="1.0"?>
<EntityDescriptor entityID="${base}/metadata" xmlns="urn:oasis:names:tc:SAML:2.0:metadata">
  <SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <AssertionConsumerService index="0" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}/acs"/>
  </SPSSODescriptor>
</EntityDescriptor>`

/**
 * What a control's `aria-describedby` says.
 * @param {Locator} locator
 */
const description = (locator) =>
  locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  )

/**
 * How far the page reaches beyond a 320 px viewport, in pixels.
 * @param {Page} page
 */
async function overflowAt320(page) {
  const size = page.viewportSize()
  await page.setViewportSize({ width: 320, height: 800 })
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  if (size) await page.setViewportSize(size)
  return over
}

/**
 * Deletes an application from the catalogue, after its confirmation.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} libelle
 */
async function deleteApplication(page, mode, libelle) {
  await page.goto(`/pages/admin/applications?q=${encodeURIComponent(libelle)}`)
  await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Supprimer ${libelle}` }).click()
  const confirmation = mode.javaScriptEnabled
    ? page.getByRole('alertdialog')
    : page.getByRole('region', { name: `Supprimer ${libelle}` })
  await confirmation.getByRole('button', { name: 'Supprimer' }).click()
  await notice(page, `Application ${libelle} supprimée`).waitFor()
}

describe('OpenID Connect clients from the application form', () => {
  it('with JavaScript: a confidential client, its secret shown once, the client id kept, the secret renewed after a confirmation', async () => {
    const mode = MODES[0]
    const name = 'Client OIDC avec JS'
    const page = await newPage(mode)
    await signIn(page, mode, 'admin', 'Admin1234')
    await page.goto('/pages/admin/applications/nouvelle')
    await page.getByRole('heading', { name: 'Nouvelle application', level: 1 }).waitFor()
    // The launch code by default: the client's fields are hidden until OpenID Connect is chosen.
    const client = page.getByRole('group', { name: 'Client OpenID Connect' })
    assert.ok(await page.getByRole('radio', { name: 'Code de lancement' }).isChecked())
    await client.waitFor({ state: 'hidden' })
    await page.getByLabel('Application').fill(name)
    await page.getByLabel('Adresse').fill('https://oidc-js.example.test/')
    await page.getByRole('radio', { name: 'Camion' }).check()
    await page.getByRole('radio', { name: 'OpenID Connect' }).check()
    await client.waitFor()
    assert.deepEqual(await violations(page, { every: true }), [], 'the form with the client’s fields')
    assert.ok((await overflowAt320(page)) <= 0, 'the form scrolls sideways at 320 px')
    const redirect = client.getByLabel('URI de redirection')
    assert.match(await description(redirect), /Une adresse par ligne, 10 au plus.*https, ou http sur localhost, sans #/)
    assert.match(await description(client.getByLabel('URI de lancement')), /https, ou http sur localhost/)
    // An address refused is said on its field, named.
    await redirect.fill('https://oidc-js.example.test/callback\nhttp://oidc-js.example.test/callback')
    await page.getByRole('button', { name: 'Enregistrer' }).click()
    await client.getByText('« http://oidc-js.example.test/callback » : Adresse https complète attendue').waitFor()
    assert.equal(await redirect.getAttribute('aria-invalid'), 'true')
    assert.match(await description(redirect), /« http:\/\/oidc-js\.example\.test\/callback » : Adresse https/)
    await redirect.fill('https://oidc-js.example.test/callback\nhttp://localhost:3000/callback')
    await client.getByLabel('URI de déconnexion back-channel').fill('https://oidc-js.example.test/backchannel')
    await page.getByRole('button', { name: 'Enregistrer' }).click()

    // The secret, this once: in the page the save answered, in no address and no cookie.
    await page.getByRole('heading', { name: `Secret du client ${name}`, level: 1 }).waitFor()
    await page
      .getByRole('status')
      .filter({ hasText: `Application ${name} créée.` })
      .waitFor()
    // It replaced the form: focus is on its heading, not lost.
    await until(page, () => document.activeElement?.tagName === 'H1')
    await page.getByText('Copiez ce secret maintenant : il ne sera plus jamais affiché.').waitFor()
    const clientId = await page.getByRole('textbox', { name: 'Identifiant client (client_id)' }).inputValue()
    const secret = await page.getByRole('textbox', { name: 'Secret client (client_secret)' }).inputValue()
    assert.match(clientId, /^[\w-]{16,}$/)
    assert.match(secret, /^[\w-]{32,}$/)
    assert.match(
      await description(page.getByRole('textbox', { name: 'Secret client (client_secret)' })),
      /il ne sera plus jamais affiché/,
    )
    assert.ok(!page.url().includes(secret))
    assert.ok((await page.context().cookies()).every((cookie) => !cookie.value.includes(secret)))
    assert.deepEqual(await violations(page, { every: true }), [], 'the secret')
    assert.ok((await overflowAt320(page)) <= 0, 'the secret scrolls sideways at 320 px')
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL })
    await page.getByRole('button', { name: 'Copier le secret client' }).click()
    await page.getByText('Copié dans le presse-papiers').waitFor()
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret)

    // Its page shows the client as saved, its id, never its secret again, reloaded or not.
    await page.getByRole('link', { name: 'Voir la fiche de l’application' }).click()
    await page.getByRole('heading', { name: `Modifier ${name}`, level: 1 }).waitFor()
    await page.reload()
    await page.getByRole('heading', { name: `Modifier ${name}`, level: 1 }).waitFor()
    assert.equal(await page.getByRole('textbox', { name: 'Identifiant client (client_id)' }).inputValue(), clientId)
    assert.ok(!(await page.content()).includes(secret))
    assert.equal(await page.getByRole('textbox', { name: 'Secret client (client_secret)' }).count(), 0)
    await page.getByText('Client confidentiel').waitFor()
    assert.ok(await page.getByRole('radio', { name: 'OpenID Connect' }).isChecked())
    assert.equal(
      await client.getByLabel('URI de redirection').inputValue(),
      'https://oidc-js.example.test/callback\nhttp://localhost:3000/callback',
    )
    assert.ok(!(await client.getByLabel('Client public').isChecked()))
    assert.deepEqual(await violations(page, { every: true }), [], 'the page of an OpenID Connect application')
    assert.ok((await overflowAt320(page)) <= 0, 'the page of a client scrolls sideways at 320 px')

    // Saved again as it is, it keeps its secret: nothing to show.
    await page.getByRole('button', { name: 'Enregistrer' }).click()
    await notice(page, `Application ${name} enregistrée`).waitFor()

    // Renewed after a confirmation: a new secret, shown once, the same client id.
    await page.goto(`/pages/admin/applications?q=${encodeURIComponent(name)}`)
    await page.getByRole('link', { name, exact: true }).click()
    await page.getByRole('button', { name: 'Renouveler le secret' }).click()
    const dialog = page.getByRole('alertdialog', { name: `Renouveler le secret de ${name}` })
    await dialog.getByText('l’actuel, qui cesse aussitôt de fonctionner').waitFor()
    assert.deepEqual(await violations(page, { every: true }), [], 'the renewal’s confirmation')
    await dialog.getByRole('button', { name: 'Renouveler le secret' }).click()
    await page.getByRole('heading', { name: `Secret du client ${name}`, level: 1 }).waitFor()
    await page
      .getByRole('status')
      .filter({ hasText: `Nouveau secret pour ${name}` })
      .waitFor()
    const renewed = await page.getByRole('textbox', { name: 'Secret client (client_secret)' }).inputValue()
    assert.match(renewed, /^[\w-]{32,}$/)
    assert.notEqual(renewed, secret)
    assert.equal(await page.getByRole('textbox', { name: 'Identifiant client (client_id)' }).inputValue(), clientId)
    await page.getByRole('link', { name: 'Retour au catalogue' }).click()
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor()
    await deleteApplication(page, mode, name)
    await page.context().close()
  })

  it('without JavaScript: a public client with two redirect URIs, a refused address said on its field; made confidential, then its secret renewed', async () => {
    const mode = MODES[1]
    const name = 'Client OIDC sans JS'
    const page = await newPage(mode)
    await signIn(page, mode, 'admin', 'Admin1234')
    await page.goto('/pages/admin/applications/nouvelle')
    // The client's fields are in the page, said to apply to OpenID Connect only.
    const client = page.getByRole('group', { name: 'Client OpenID Connect' })
    await client.getByText('Ces champs ne servent qu’avec le protocole OpenID Connect').waitFor()
    await page.getByLabel('Application').fill(name)
    await page.getByLabel('Adresse').fill('https://oidc-nojs.example.test/')
    await page.getByRole('radio', { name: 'Balance' }).check()
    await page.getByRole('radio', { name: 'OpenID Connect' }).check()
    await client.getByLabel('Client public').check()
    await client.getByLabel('Connexion des appareils sans clavier').check()
    const uris = 'https://oidc-nojs.example.test/a\n\n  https://oidc-nojs.example.test/b  \n'
    await client.getByLabel('URI de redirection').fill(uris)
    await client
      .getByLabel('URI de retour après déconnexion')
      .fill('https://oidc-nojs.example.test/bye\nftp://oidc-nojs.example.test/bye')
    await page.getByRole('button', { name: 'Enregistrer' }).click()

    // Refused on its field, named, everything typed kept.
    const postLogout = page.getByLabel('URI de retour après déconnexion')
    await page
      .getByText(
        '« ftp://oidc-nojs.example.test/bye » : Adresse https complète attendue (http seulement sur localhost), sans #',
      )
      .waitFor()
    assert.equal(await postLogout.getAttribute('aria-invalid'), 'true')
    assert.match(await description(postLogout), /« ftp:\/\/oidc-nojs\.example\.test\/bye » : Adresse https complète/)
    await page.getByRole('alert').filter({ hasText: 'URI de retour après déconnexion' }).waitFor()
    assert.equal(await page.getByLabel('URI de redirection').getAttribute('aria-invalid'), null)
    assert.match(
      await page.getByLabel('URI de redirection').inputValue(),
      /^https:\/\/oidc-nojs\.example\.test\/a\n\n\s*https:\/\/oidc-nojs\.example\.test\/b\s*$/,
    )
    assert.ok(await page.getByRole('radio', { name: 'OpenID Connect' }).isChecked())
    assert.ok(await page.getByLabel('Client public').isChecked())
    assert.ok(await page.getByLabel('Connexion des appareils sans clavier').isChecked())
    assert.equal(await page.getByLabel('Application').inputValue(), name)
    assert.deepEqual(await noScriptViolations(page, { every: true }), [], 'the refused address')

    await postLogout.fill('https://oidc-nojs.example.test/bye')
    await page.getByRole('button', { name: 'Enregistrer' }).click()
    // A public client has no secret: back to the catalogue.
    await notice(page, `Application ${name} créée`).waitFor()
    await page.getByLabel('Rechercher une application par son nom').fill(name)
    await page.getByLabel('Rechercher une application par son nom').press('Enter')
    await page.getByRole('link', { name, exact: true }).click()
    await page.getByRole('heading', { name: `Modifier ${name}`, level: 1 }).waitFor()
    await page.getByText('Client public : sans secret').waitFor()
    const clientId = await page.getByRole('textbox', { name: 'Identifiant client (client_id)' }).inputValue()
    assert.match(clientId, /^[\w-]{16,}$/)
    assert.equal(await page.getByRole('link', { name: 'Renouveler le secret' }).count(), 0)
    assert.ok(await page.getByLabel('Connexion des appareils sans clavier').isChecked())
    assert.equal(
      await page.getByLabel('URI de redirection').inputValue(),
      'https://oidc-nojs.example.test/a\nhttps://oidc-nojs.example.test/b',
    )

    // Made confidential: the save made it a secret, shown once.
    await page.getByLabel('Client public').uncheck()
    await page.getByRole('button', { name: 'Enregistrer' }).click()
    await page.getByRole('heading', { name: `Secret du client ${name}`, level: 1 }).waitFor()
    await page.getByText(`Application ${name} enregistrée.`).waitFor()
    const secret = await page.getByRole('textbox', { name: 'Secret client (client_secret)' }).inputValue()
    assert.match(secret, /^[\w-]{32,}$/)
    assert.equal(await page.getByRole('textbox', { name: 'Identifiant client (client_id)' }).inputValue(), clientId)
    assert.deepEqual(await noScriptViolations(page, { every: true }), [], 'the secret')

    // Renewed through the confirmation's page.
    await page.getByRole('link', { name: 'Voir la fiche de l’application' }).click()
    await page.getByRole('link', { name: 'Renouveler le secret' }).click()
    const confirmation = page.getByRole('region', { name: `Renouveler le secret de ${name}` })
    await confirmation.getByText('l’actuel, qui cesse aussitôt de fonctionner').waitFor()
    await confirmation.getByRole('button', { name: 'Renouveler le secret' }).click()
    await page.getByText(`Nouveau secret pour ${name}`).waitFor()
    const renewed = await page.getByRole('textbox', { name: 'Secret client (client_secret)' }).inputValue()
    assert.notEqual(renewed, secret)
    assert.ok(!page.url().includes(renewed))
    await deleteApplication(page, mode, name)
    await page.context().close()
  })
})
