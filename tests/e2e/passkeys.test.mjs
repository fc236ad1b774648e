// @ts-check
// Passkeys in Chromium, through its virtual authenticator (the DevTools protocol's WebAuthn domain):
// one registered from the security page, then the sign-in with it — passwordless, and as the second
// step after the password — renamed and removed; and what the pages say without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { notice, secondStepHeading, signIn, submitLogin, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

/**
 * A platform authenticator in this page's browser: it keeps discoverable passkeys and verifies its
 * user (as a fingerprint reader would), answering every prompt at once.
 * @param {Page} page
 */
async function virtualAuthenticator(page) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials
  return { credentials }
}

/**
 * Opens the sign-in page with its autofill request refused (as on a browser that offers no passkey in
 * its suggestions): Chromium's virtual authenticator would answer it at once, where a person picks the
 * passkey among the identifier's suggestions. The page's buttons are then what asks.
 * @param {Page} page
 */
async function signInPageWithoutAutofill(page) {
  await page.context().clearCookies()
  await page.route('**/login/passkey', (route) => route.abort())
  const refused = page.waitForEvent('requestfailed', (request) => request.url().endsWith('/login/passkey'))
  await page.goto('/login')
  await refused
  await page.unroute('**/login/passkey')
}

const signedIn = (/** @type {Page} */ page) => page.waitForURL((url) => url.pathname.startsWith('/pages/'))

/**
 * Ends the session the way a closed browser would: its cookies gone.
 * @param {Page} page
 */
async function forget(page) {
  await page.context().clearCookies()
  await page.goto('/login')
}

describe('passkeys with JavaScript', () => {
  it('registers one with the password, signs in with it without a password and as the second step, renames and removes it', async () => {
    const mode = { javaScriptEnabled: true }
    const page = await newPage(mode)
    const authenticator = await virtualAuthenticator(page)
    await signIn(page, mode, 'cles', 'Agent1234')
    await page.goto('/pages/user/securite')
    const card = page.locator('#passkeys')
    await card.getByText("Aucune clé d'accès n'est enregistrée.").waitFor()

    // A wrong password: refused before the authenticator is asked, which keeps nothing.
    await card.getByText("Ajouter une clé d'accès").click()
    await page.locator('#cle-nom').fill('Ordinateur')
    await page.locator('#cle-ajout-password').fill('Wrong1234')
    await page.getByRole('button', { name: 'Enregistrer la clé' }).click()
    await card.getByText('Mot de passe incorrect.').first().waitFor()
    assert.deepEqual(await authenticator.credentials(), [])

    // The right one: the browser's prompt (answered by the authenticator), then, as the first
    // factor, the recovery codes shown once.
    await page.locator('#cle-ajout-password').fill('Agent1234')
    await page.getByRole('button', { name: 'Enregistrer la clé' }).click()
    const codes = page.getByRole('list', { name: 'Codes de secours' })
    await codes.waitFor()
    const firstCodes = await codes.getByRole('listitem').allTextContents()
    assert.equal(firstCodes.length, 10)
    assert.equal((await authenticator.credentials()).length, 1)
    await page.goto('/pages/user/securite')
    const item = card.getByRole('listitem').filter({ hasText: 'Ordinateur' })
    await item.waitFor()
    assert.match((await item.textContent()) ?? '', /Dernière utilisation\s*Jamais/)

    // Passwordless, from the identifier field's suggestions (the browser's autofill: the authenticator
    // picks its passkey as a person would): nothing typed, no verification to pass.
    await forget(page)
    await signedIn(page)
    await page.goto('/pages/user/securite')
    await item.waitFor()
    // An element's text: a string, never null.
    assert.doesNotMatch(/** @type {string} */ (await item.textContent()), /Jamais/)

    // Passwordless, with the button.
    await signInPageWithoutAutofill(page)
    await page.getByRole('button', { name: "Se connecter avec une clé d'accès" }).click()
    await signedIn(page)

    // The password, then the passkey as the second step.
    await signInPageWithoutAutofill(page)
    await submitLogin(page, mode, 'cles', 'Agent1234')
    await secondStepHeading(page).waitFor()
    await page.getByRole('button', { name: "Utiliser une clé d'accès" }).click()
    await signedIn(page)

    // New recovery codes (the password proves it: no app to give a code), shown once.
    await page.goto('/pages/user/securite')
    await page.locator('#codes summary').click()
    assert.equal(await page.locator('#codes-renew-code').count(), 0, 'no app: the password alone')
    await page.locator('#codes-renew-password').fill('Agent1234')
    await page.locator('#codes').getByRole('button', { name: 'Générer de nouveaux codes' }).click()
    await codes.waitFor()
    const renewed = await codes.getByRole('listitem').allTextContents()
    assert.equal(renewed.length, 10)
    assert.equal(
      renewed.some((code) => firstCodes.includes(code)),
      false,
      'new codes, not the former ones',
    )

    // Renamed, then removed with the password (its confirmation).
    await page.goto('/pages/user/securite')
    await card.getByText('Renommer Ordinateur').click()
    await page.locator('#cle-0-renommer').fill('Portable')
    await card.getByRole('button', { name: 'Renommer', exact: true }).click()
    await notice(page, 'La clé est renommée « Portable ».').waitFor()
    await card.getByText('Retirer Portable').click()
    await page.locator('#cle-0-retrait-password').fill('Agent1234')
    await card.getByRole('button', { name: 'Retirer la clé' }).click()
    await notice(page, "La clé d'accès est retirée.").waitFor()
    await card.getByText("Aucune clé d'accès n'est enregistrée.").waitFor()

    // No factor left: the password alone signs in again.
    await signInPageWithoutAutofill(page)
    await submitLogin(page, mode, 'cles', 'Agent1234')
    await signedIn(page)
    await page.context().close()
  })
})

describe('passkeys without JavaScript', () => {
  it('says that adding one needs JavaScript; the sign-in offers none', async () => {
    const mode = { javaScriptEnabled: false }
    const page = await newPage(mode)
    await page.goto('/login')
    assert.equal(await page.getByRole('button', { name: "Se connecter avec une clé d'accès" }).count(), 0)
    await signIn(page, mode, 'clessansjs', 'Agent1234')
    await page.goto('/pages/user/securite')
    await page.locator('#passkeys').getByText("Ajouter une clé d'accès").click()
    await page.getByText("L'ajout d'une clé d'accès passe par votre navigateur et demande JavaScript").waitFor()
    await page.context().close()
  })
})
