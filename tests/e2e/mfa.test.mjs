// @ts-check
// The second factor: an authenticator app (TOTP) enrolled from the secret the page shows, the sign-in's
// second step with its codes and recovery codes, its removal, the requirement of a second factor from
// administrators, and the second step done with the keyboard alone; with and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  FIXTURE_TOTP_SECRET,
  fixtureRecoveryCode,
  focused,
  MODES,
  nextTotpCode,
  notice,
  secondStepHeading,
  signIn,
  signInWithCode,
  submitLogin,
  totpCode,
  totpStep,
  useBrowser,
} from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/** @typedef {import('./support.mjs').Scripting} Scripting */

const newPage = useBrowser()

const PASSWORD = 'Agent1234'
const WRONG_CODE = 'Code incorrect ou déjà utilisé.'

/**
 * A 6-digit code that is none of the secret's codes around now: a wrong one, for sure.
 * @param {string} secret
 */
function wrongCode(secret) {
  const now = totpStep()
  const codes = new Set([-2, -1, 0, 1, 2].map((shift) => totpCode(secret, now + shift)))
  for (let n = 135_790; ; n++) if (!codes.has(String(n))) return String(n)
}

/**
 * The second step's code sent.
 * @param {Page} page
 * @param {string} code
 */
async function sendCode(page, code) {
  await page.locator('#login-code').fill(code)
  await page.getByRole('button', { name: 'Vérifier et se connecter' }).click()
}

/**
 * The password sent, up to the second step.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} login
 * @param {string} [password]
 */
async function toSecondStep(page, mode, login, password = PASSWORD) {
  await page.goto('/login')
  await submitLogin(page, mode, login, password)
  await secondStepHeading(page).waitFor()
  await page.getByLabel('Code de vérification').waitFor()
}

/**
 * Signed in: on the user's pages, the second step gone.
 * @param {Page} page
 * @param {string} [prefix]
 */
async function landed(page, prefix = '/pages/user/') {
  await page.waitForURL((url) => url.pathname.startsWith(prefix))
  await page.locator('#login-code').waitFor({ state: 'detached' })
  await page.locator('main h1').waitFor()
}

/**
 * Waits for the focus on the code field: without JavaScript the browser's own autofocus, applied once the page is first drawn.
 * @param {Page} page
 */
const focusOnCode = (page) => focused(page.locator('#login-code'))

/**
 * The authenticator app's card and the recovery codes' card.
 * @param {Page} page
 */
const totpCard = (page) => page.locator('#totp')
const codesCard = (/** @type {Page} */ page) => page.locator('#codes')

/**
 * Starts an enrolment on the security page (the password first) and returns the secret it shows (the
 * groups of four joined), after checking the QR code is there.
 * @param {Page} page
 * @param {string} password
 */
async function startEnrolment(page, password) {
  const form = page.locator('#totp details')
  if ((await form.getAttribute('open')) === null)
    await page.getByText("Configurer une application d'authentification").click()
  await page.locator('#totp-start-password').fill(password)
  await page.getByRole('button', { name: 'Continuer', exact: true }).click()
  return readSecret(page)
}

/** @param {Page} page */
async function readSecret(page) {
  const qr = page.getByRole('img', { name: "QR code de configuration de l'application d'authentification" })
  await qr.waitFor()
  assert.equal(await qr.locator('svg').count(), 1, 'the QR code is an inline SVG')
  const shown = await page.locator('#totp-secret').inputValue()
  assert.match(shown, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the secret in groups of four')
  assert.equal(await page.locator('#totp-secret').getAttribute('readonly'), '')
  return shown.replace(/\s/g, '')
}

/**
 * The ten recovery codes shown after an enrolment, checked with their download link.
 * @param {Page} page
 * @param {string} login
 */
async function shownRecoveryCodes(page, login) {
  const list = page.getByRole('list', { name: 'Codes de secours' })
  await list.waitFor()
  const codes = await list.getByRole('listitem').allTextContents()
  assert.equal(codes.length, 10)
  for (const code of codes) assert.match(code, /^[a-z0-9]{4}(-[a-z0-9]{4}){3}$/)
  assert.equal(new Set(codes).size, 10)
  assert.match(await list.evaluate((element) => getComputedStyle(element).fontFamily), /mono/i)
  // Inside the notice that says they are shown once.
  assert.equal(await list.evaluate((element) => element.closest('[role="status"]') !== null), true)
  const download = page.getByRole('link', { name: 'Télécharger les codes (.txt)' })
  assert.equal(await download.getAttribute('download'), `codes-secours-${login}.txt`)
  const href = await download.getAttribute('href')
  assert.ok(href?.startsWith('data:text/plain'), href ?? 'no href')
  // A string: asserted above.
  const text = decodeURIComponent(/** @type {string} */ (href).slice(/** @type {string} */ (href).indexOf(',') + 1))
  assert.match(text, new RegExp(login))
  for (const code of codes) assert.ok(text.includes(code), `${code} in the file`)
  return codes
}

MODES.forEach((mode, index) => {
  const n = index + 1
  const login = `mfa${n}`
  // What the cases of a mode share, in order: the secret enrolled, the last step accepted, the codes.
  /** @type {{ secret: string, lastStep: number, codes: string[] }} */
  const state = { secret: '', lastStep: 0, codes: [] }

  describe(`the authenticator app ${mode.name}`, () => {
    it('is enrolled from the secret the page shows: a wrong first code refused, the right one turns it on and shows ten recovery codes', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, login, PASSWORD)
      await page.getByRole('link', { name: 'Sécurité du compte' }).first().click()
      await page.waitForURL((url) => url.pathname === '/pages/user/securite')
      await page.getByRole('heading', { name: 'Sécurité du compte', level: 1 }).waitFor()
      await totpCard(page).getByText("Aucune application d'authentification n'est configurée.").waitFor()
      await codesCard(page).getByText('Des codes de secours vous seront donnés').waitFor()

      // A session alone sets up nothing: the password is asked first, and a wrong one refused.
      await page.getByText("Configurer une application d'authentification").click()
      await page.locator('#totp-start-password').fill('Wrong1234')
      await page.getByRole('button', { name: 'Continuer', exact: true }).click()
      await totpCard(page).getByText('Mot de passe incorrect.').first().waitFor()
      assert.equal(await page.locator('#totp-secret').count(), 0)

      const secret = await startEnrolment(page, PASSWORD)
      assert.match(secret, /^[A-Z2-7]{32}$/)

      // A wrong code: the error, and the same QR code and secret again to try once more.
      await page.locator('#totp-code').fill(wrongCode(secret))
      await page.getByRole('button', { name: 'Activer', exact: true }).click()
      await totpCard(page).getByText(WRONG_CODE).first().waitFor()
      assert.equal(await page.locator('#totp-code').getAttribute('aria-invalid'), 'true')
      // Said once, on its field; the form's top says what to do.
      assert.equal(await page.getByText(WRONG_CODE).count(), 1)
      await totpCard(page)
        .getByRole('alert')
        .filter({ hasText: 'Vérifiez les champs signalés : Code affiché par l’application.' })
        .waitFor()
      assert.equal(await readSecret(page), secret)
      await totpCard(page).getByText("Aucune application d'authentification n'est configurée.").waitFor()

      const { code, step } = await nextTotpCode(secret)
      await page.locator('#totp-code').fill(code)
      await page.getByRole('button', { name: 'Activer', exact: true }).click()
      const codes = await shownRecoveryCodes(page, login)
      await totpCard(page).getByText('Activée : un code de votre application est demandé à chaque connexion.').waitFor()
      await codesCard(page).getByText('Il vous reste 10 codes de secours.').waitFor()
      assert.equal(await page.locator('#totp-secret').count(), 0, 'the secret is no longer shown')
      await page.getByText('Désactiver l’application d’authentification').waitFor()
      Object.assign(state, { secret, lastStep: step, codes })

      // The codes are shown once: not after the page is opened again.
      await page.goto('/pages/user/securite')
      await page.getByRole('heading', { name: 'Sécurité du compte', level: 1 }).waitFor()
      assert.equal(await page.getByRole('list', { name: 'Codes de secours' }).count(), 0)
      await page.context().close()
    })

    it('asks for a code after the password: a wrong one refused, a right one or an unused recovery code signs in, a used one never again', async () => {
      assert.ok(state.secret, 'enrolled by the case before')
      const page = await newPage(mode)
      await toSecondStep(page, mode, login)
      // The password form is gone: only the code is asked for.
      assert.equal(await page.locator('form#login').count(), 0)

      await sendCode(page, wrongCode(state.secret))
      await page.getByText(WRONG_CODE).first().waitFor()
      await secondStepHeading(page).waitFor()
      // Said once, on its field; the form's top says what to do.
      assert.equal(await page.getByText(WRONG_CODE).count(), 1)
      await page
        .getByRole('alert')
        .filter({ hasText: 'Vérifiez les champs signalés : Code de vérification.' })
        .waitFor()
      assert.equal(await page.locator('#login-code').inputValue(), '')
      assert.equal(page.url().includes('/pages/'), false)

      // The right code, after the refusal: the same step goes on.
      const { code, step } = await nextTotpCode(state.secret, state.lastStep)
      await sendCode(page, code)
      await landed(page)
      state.lastStep = step
      await page.context().close()

      // A recovery code instead (typed in capitals: they do not matter).
      // The ten codes of the first case (shown and counted there, with the secret asserted above).
      const [first, second] = /** @type {[string, string, ...string[]]} */ (state.codes)
      const again = await newPage(mode)
      await toSecondStep(again, mode, login)
      await sendCode(again, first.toUpperCase())
      await landed(again)
      await again.goto('/pages/user/securite')
      await codesCard(again).getByText('Il vous reste 9 codes de secours.').waitFor()
      await again.context().close()

      // The same recovery code a second time: refused; another one still works.
      const third = await newPage(mode)
      await toSecondStep(third, mode, login)
      await sendCode(third, first)
      await third.getByText(WRONG_CODE).first().waitFor()
      await secondStepHeading(third).waitFor()
      await sendCode(third, second)
      await landed(third)
      await third.context().close()
    })

    it('is turned off with the password (a wrong one refused); then the password alone signs in', async () => {
      assert.ok(state.secret, 'enrolled by the first case')
      const page = await newPage(mode)
      // The third of the ten codes of the first case (its secret asserted above).
      await signInWithCode(page, mode, login, PASSWORD, /** @type {string} */ (state.codes[2]))
      await page.goto('/pages/user/securite')
      await page.getByText('Désactiver l’application d’authentification').click()
      // A current code or the password, in the card (the recovery codes' card may ask for them too).
      assert.equal(await totpCard(page).getByLabel('Code actuel').getAttribute('id'), 'totp-remove-code')
      await totpCard(page).getByLabel('Ou votre mot de passe').fill('Mauvais1234')
      await page.getByRole('button', { name: 'Désactiver', exact: true }).click()
      await totpCard(page).getByText('Mot de passe incorrect.').waitFor()
      await totpCard(page).getByText('Activée : un code de votre application est demandé à chaque connexion.').waitFor()

      await page.locator('#totp-remove-password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Désactiver', exact: true }).click()
      await notice(page, "L'application d'authentification est désactivée.").waitFor()
      await totpCard(page).getByText("Aucune application d'authentification n'est configurée.").waitFor()
      await codesCard(page).getByText('Des codes de secours vous seront donnés').waitFor()
      assert.equal(await page.locator('#totp-remove-password').count(), 0)
      await page.context().close()

      const again = await newPage(mode)
      await signIn(again, mode, login, PASSWORD)
      assert.equal(await secondStepHeading(again).count(), 0)
      await again.context().close()
    })
  })

  describe(`the requirement of a second factor from administrators ${mode.name}`, () => {
    it('is turned on by a root administrator with a factor; a delegated administrator without one is taken to enrolment', async () => {
      const root = await newPage(mode)
      const checkbox = root.getByLabel('Exiger un second facteur des administrateurs')
      const save = async () => {
        await root.getByRole('button', { name: 'Enregistrer', exact: true }).click()
      }
      let delegated = null
      try {
        await signIn(root, mode, `mfaracine${n}`, 'Admin1234')
        await root.goto('/pages/admin/securite')
        await root.getByRole('heading', { name: 'Paramètres de sécurité', level: 1 }).waitFor()
        assert.equal(await checkbox.isChecked(), false)

        // Not without a second factor of one's own.
        await checkbox.check()
        await save()
        await root.getByText("Enregistrez d'abord un second facteur pour votre propre compte.").waitFor()
        await root.getByRole('main').getByRole('link', { name: 'Sécurité du compte' }).click()
        await root.waitForURL((url) => url.pathname === '/pages/user/securite')

        const secret = await startEnrolment(root, 'Admin1234')
        await root.locator('#totp-code').fill((await nextTotpCode(secret)).code)
        await root.getByRole('button', { name: 'Activer', exact: true }).click()
        await shownRecoveryCodes(root, `mfaracine${n}`)

        await root.goto('/pages/admin/securite')
        await checkbox.check()
        await save()
        await notice(root, 'Paramètres de sécurité enregistrés.').waitFor()
        await root.goto('/pages/admin/securite')
        assert.equal(await checkbox.isChecked(), true)

        // A delegated administrator without a factor: every admin page leads to the security page.
        delegated = await newPage(mode)
        await signIn(delegated, mode, 'mfadeleg', 'Adminsud1')
        for (const path of ['/pages/admin', '/pages/admin/listeUtilisateurs']) {
          await delegated.goto(path)
          await delegated.waitForURL((url) => url.pathname === '/pages/user/securite')
          await delegated.getByRole('heading', { name: 'Sécurité du compte', level: 1 }).waitFor()
          await notice(delegated, 'Les administrateurs doivent protéger leur compte par un second facteur').waitFor()
        }
        // The root administrator, who has one, goes on.
        await root.goto('/pages/admin/listeUtilisateurs')
        await root.waitForURL((url) => url.pathname === '/pages/admin/listeUtilisateurs')
      } finally {
        // Whatever happened: the requirement off again, for the other tests' administrators.
        await root.goto('/pages/admin/securite')
        await root.getByRole('heading', { name: 'Paramètres de sécurité', level: 1 }).waitFor()
        if (await checkbox.isChecked()) {
          await checkbox.uncheck()
          await save()
          await notice(root, 'Paramètres de sécurité enregistrés.').waitFor()
        }
        await root.goto('/pages/admin/securite')
        assert.equal(await checkbox.isChecked(), false)
      }
      // The delegated administrator is back in the administration.
      await delegated.goto('/pages/admin/listeUtilisateurs')
      await delegated.waitForURL((url) => url.pathname === '/pages/admin/listeUtilisateurs')
      await delegated.locator('main h1').waitFor()
      for (const open of [root, delegated]) await open.context().close()
    })
  })

  describe(`the way back from the second step ${mode.name}`, () => {
    it('leads to the first step, for another account, with the page asked for kept', async () => {
      const page = await newPage(mode)
      await page.goto('/login?redirect=/pages/user/me')
      await submitLogin(page, mode, 'mfaclavier', PASSWORD)
      await secondStepHeading(page).waitFor()
      // By keyboard: from the code field, the next stop after the button.
      await focusOnCode(page)
      await page.keyboard.press('Tab')
      await page.keyboard.press('Tab')
      assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Changer de compte')
      await page.getByRole('link', { name: 'Changer de compte' }).waitFor()
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'Connexion', level: 1 }).waitFor()
      assert.equal(await page.getByLabel('Identifiant').inputValue(), '')
      assert.equal(await page.locator('#login-code').count(), 0)
      assert.equal(new URL(page.url()).searchParams.get('redirect'), '/pages/user/me')
      // Another account signs in from there, and lands where the first was going.
      await submitLogin(page, mode, 'agent', 'Agent1234')
      await page.waitForURL((url) => url.pathname === '/pages/user/me')
      await page.context().close()
    })
  })

  describe(`the second step with the keyboard alone ${mode.name}`, () => {
    it('puts the focus on the code field, again after a wrong code; Enter sends it', async () => {
      const page = await newPage(mode)
      await toSecondStep(page, mode, 'mfaclavier')
      await focusOnCode(page)
      await page.keyboard.type(wrongCode(FIXTURE_TOTP_SECRET))
      await page.keyboard.press('Enter')
      await page.getByText(WRONG_CODE).first().waitFor()
      await focusOnCode(page)
      assert.equal(await page.locator('#login-code').inputValue(), '')
      // With JavaScript a code of the app; without, a recovery code (the fixture's, typed as shown).
      const code = mode.javaScriptEnabled ? (await nextTotpCode(FIXTURE_TOTP_SECRET)).code : fixtureRecoveryCode(985, 1)
      await page.keyboard.type(code)
      await page.keyboard.press('Enter')
      await landed(page)
      await page.context().close()
    })
  })
})
