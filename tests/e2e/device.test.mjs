// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import * as client from 'openid-client'
import { noScriptViolations, violations } from './axe.mjs'
import { BASE_URL, MODES, notice, signIn, submitLogin, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

/**
 * The device authorization grant (issue 66) end to end: a device started with openid-client (the demo's client,
 * `demo-oidc`, which `npm start` allows the grant) shows a code, the agent approves it on /appareil from a phone's
 * browser, JavaScript on and off, and the device gets tokens that read UserInfo; a refusal is told to the device.
 */

const PHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1'

/** The device: openid-client against the portal, as the demo's public client. */
const device = () =>
  client.discovery(new URL(BASE_URL), 'demo-oidc', undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  })

/**
 * The page's audit: axe on the live page, or on its HTML as a browser without scripts shows it.
 * @param {Page} page
 * @param {Scripting} mode
 */
const audit = (page, mode) => (mode.javaScriptEnabled ? violations(page) : noScriptViolations(page))

/**
 * How far the page reaches beyond the viewport, in pixels.
 * @param {Page} page
 */
const overflow = (page) =>
  page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth))

for (const mode of MODES) {
  describe(`The device authorization grant ${mode.name}`, () => {
    it('a device shows a code, the agent approves it from their phone, the device reads UserInfo; the session is theirs to see', async () => {
      const config = await device()
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile' })
      assert.match(started.user_code, /^[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$/)
      const page = await newPage({ ...mode, userAgent: PHONE })
      await signIn(page, mode, 'agent', 'Agent1234')
      // The QR code's address: the code comes with it.
      const complete = new URL(/** @type {string} */ (started.verification_uri_complete))
      await page.goto(`${complete.pathname}${complete.search}`)
      await page.getByRole('heading', { name: 'Connecter un appareil', level: 1 }).waitFor()
      await page.getByText('Démo OpenID Connect demande à se connecter avec votre compte sur un appareil.').waitFor()
      await page.getByText(started.user_code, { exact: true }).waitFor()
      assert.deepEqual(await audit(page, mode), [], 'the request to decide on')
      for (const width of [320, 360, 768]) {
        await page.setViewportSize({ width, height: 800 })
        assert.equal(await overflow(page), 0, `no sideways scrolling at ${width} px`)
      }
      await page.getByLabel('Nom de l’appareil').fill(`Terminal de quai 3 ${mode.javaScriptEnabled ? 'js' : 'html'}`)
      await page.getByRole('button', { name: 'Approuver' }).click()
      await notice(
        page,
        `Terminal de quai 3 ${mode.javaScriptEnabled ? 'js' : 'html'} est connecté à Démo OpenID Connect`,
      ).waitFor()

      // The device does not wait the interval here: the approval came first.
      const tokens = await client.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 })
      const info = await client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck)
      assert.equal(info.preferred_username, 'agent')
      assert.equal(info.name, 'Thomas Lefebvre')

      // On the sessions page: named as approved, from the phone.
      await page.goto('/pages/user/me')
      await page
        .getByRole('heading', {
          name: `Terminal de quai 3 ${mode.javaScriptEnabled ? 'js' : 'html'}, approuvé depuis votre téléphone`,
        })
        .waitFor()
      await page.context().close()
    })

    it('typed after signing in: the code is asked first, checked, then refused; the device is told so', async () => {
      const config = await device()
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' })
      const page = await newPage(mode)
      // Not signed in: the sign-in brings the agent back to the page.
      await page.goto('/appareil')
      await page.waitForURL((url) => url.pathname === '/login')
      await submitLogin(page, mode, 'agent', 'Agent1234')
      await page.waitForURL((url) => url.pathname === '/appareil')
      const code = page.getByLabel('Code affiché par l’appareil')
      assert.deepEqual(await audit(page, mode), [], 'the code form')
      // A code that cannot be one is said on its field.
      await code.fill('abc')
      await page.getByRole('button', { name: 'Continuer' }).click()
      await page.getByText('Un code est fait de 8 lettres, par exemple WDJB-MJHT.').waitFor()
      assert.equal(await code.getAttribute('aria-invalid'), 'true')
      // Typed as a person types it: lower case, a space for the dash.
      await code.fill(started.user_code.toLowerCase().replace('-', ' '))
      await page.getByRole('button', { name: 'Continuer' }).click()
      await page.getByText('Démo OpenID Connect demande à se connecter').waitFor()
      await page.getByRole('button', { name: 'Refuser' }).click()
      await notice(page, 'La connexion de l’appareil à Démo OpenID Connect est refusée.').waitFor()
      await assert.rejects(
        client.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 }),
        (/** @type {any} */ error) => error.error === 'access_denied',
      )
      // The same code again: it worked once.
      await page.goto(`/appareil?code=${started.user_code}`)
      await page.getByText('Ce code ne correspond à aucune demande en attente').waitFor()
      assert.equal(await code.inputValue(), started.user_code)
      await page.context().close()
    })
  })
}

describe('The device authorization grant, for whom the application is not', () => {
  it('an administrator without the application is told so in English too, and the code stays pending', async () => {
    const config = await device()
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' })
    const page = await newPage({ locale: 'en-GB' })
    await signIn(page, { javaScriptEnabled: true }, 'adminsud', 'Adminsud1')
    await page.goto(`/appareil?code=${started.user_code}`)
    await page.getByRole('heading', { name: 'Connect a device', level: 1 }).waitFor()
    await page.getByText('This application is not granted to you').waitFor()
    assert.deepEqual(await violations(page), [], 'the refusal, in English')
    await page.context().close()
    // Still pending: the device is asked to go on waiting.
    const response = await fetch(`${BASE_URL}/portail-backend/oidc/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: started.device_code,
        client_id: 'demo-oidc',
      }),
    })
    assert.equal((await response.json()).error, 'authorization_pending')
  })
})

describe('The demo terminal', () => {
  it('shows its code and QR code; approved from the address the QR code carries, it signs in', async () => {
    const terminal = await newPage({ javaScriptEnabled: false })
    await terminal.goto('/demo-app/appareil')
    await terminal.getByRole('button', { name: 'Connecter le terminal' }).click()
    await terminal.getByRole('img', { name: 'Code QR de l’adresse d’approbation' }).waitFor()
    const address = await terminal.getByRole('link', { name: /\/appareil\?code=/ }).getAttribute('href')
    assert.ok(address, 'the address the QR code carries')
    const code = new URL(address).searchParams.get('code') ?? ''
    await terminal.getByText(code, { exact: true }).waitFor()
    assert.deepEqual(await noScriptViolations(terminal), [], 'the terminal waiting')

    const phone = await newPage({ userAgent: PHONE })
    await signIn(phone, { javaScriptEnabled: true }, 'agent', 'Agent1234')
    const url = new URL(address)
    await phone.goto(`${url.pathname}${url.search}`)
    await phone.getByRole('button', { name: 'Approuver' }).click()
    await notice(phone, 'Démo OpenID Connect est connecté à Démo OpenID Connect').waitFor()

    await terminal.getByRole('button', { name: 'Vérifier maintenant' }).click()
    await terminal.getByText('Terminal connecté : Thomas Lefebvre (agent).').waitFor()
    await terminal.getByRole('button', { name: 'Déconnecter le terminal' }).click()
    await terminal.getByRole('button', { name: 'Connecter le terminal' }).waitFor()
    await terminal.context().close()
    await phone.context().close()
  })
})
