// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { noScriptViolations, violations } from './axe.mjs'
import {
  BASE_URL,
  fixtureRecoveryCode,
  nextTotpCode,
  PORT,
  resetLinkFor,
  secondStepHeading,
  signIn,
  submitLogin,
  useBrowser,
} from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */
/**
 * The labels of the second factor's screens in one language.
 * @typedef {object} FactorWords
 * @property {string} verify
 * @property {string} remove
 * @property {string} off
 * @property {string} start
 * @property {string} startConfirm
 * @property {string} confirm
 * @property {string} codes
 */

const newPage = useBrowser()

describe('accessibility (axe, WCAG 2.1 AA)', () => {
  it('has no serious violation on the login page with JavaScript', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await page.goto('/login')
    // The verification widget loads when the form is first touched: the page without it, then with it.
    assert.equal(await page.evaluate(() => customElements.get('altcha-widget')), undefined)
    assert.deepEqual(await violations(page), [], 'untouched')
    await page.getByLabel('Identifiant').click()
    await page.locator('altcha-widget input[type="checkbox"]').waitFor()
    assert.deepEqual(await violations(page), [], 'touched')
    await page.context().close()
  })

  it('has no serious violation on the login page without JavaScript, blank and with errors', async () => {
    const page = await newPage({ javaScriptEnabled: false })
    await page.goto('/login')
    assert.deepEqual(await noScriptViolations(page), [])
    // The server-rendered error state: field errors (the browser's own required check bypassed).
    await page.locator('form#login').evaluate((form) => form.setAttribute('novalidate', ''))
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click()
    await page.getByText('Ce champ est obligatoire').first().waitFor()
    assert.deepEqual(await noScriptViolations(page), [])
    await page.context().close()
  })

  it('has no serious violation on the authenticated pages', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'admin', 'Admin1234')
    for (const path of ['/pages/user/acces', '/pages/user/me', '/pages/documentation']) {
      await page.goto(path)
      await page.locator('main h1').waitFor()
      assert.deepEqual(await violations(page), [], path)
    }
    await page.context().close()
  })

  for (const [language, acceptLanguage] of [
    ['French', 'fr-FR'],
    ['English', 'en-GB'],
  ]) {
    it(`has no violation at all on the refusal pages in ${language}: a root-only page, a page outside the scope, an unknown one`, async () => {
      const mode = { javaScriptEnabled: true }
      const page = await newPage({ ...mode, locale: acceptLanguage, acceptLanguage })
      await signIn(page, mode, 'adminsud', 'Adminsud1')
      for (const path of [
        '/pages/admin/modeles',
        '/pages/admin/structure/detail/4',
        '/pages/admin/structure/detail/999999',
      ]) {
        await page.goto(path)
        await page.locator('main h1').waitFor()
        assert.deepEqual(await violations(page, { every: true }), [], path)
      }
      await page.context().close()
    })
  }

  it('has no violation at all while a notice is on screen', async () => {
    const mode = { javaScriptEnabled: true }
    const page = await newPage(mode)
    await signIn(page, mode, 'admin', 'Admin1234')
    await page.goto('/pages/admin/autorisation')
    const row = page.getByRole('table').locator('tbody tr').first()
    await row.getByRole('button', { name: /^(Valider|Renvoyer)/ }).click()
    const toast = page.locator('[data-sonner-toast][data-type="success"][data-mounted="true"]')
    await toast.waitFor()
    // The pointer on it keeps it on screen (as for a person reading it) however long the checks take.
    await toast.hover()
    // Measured once it has come in: mid-transition its text is still partly transparent.
    await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'))
    assert.deepEqual(await violations(page, { every: true }), [], 'success')
    // Its close button is named in the page's language and is a 24 px target at least (WCAG 2.5.8).
    const close = page.getByRole('button', { name: 'Fermer la notification' })
    // Rounded: sonner's transform leaves its box a hair under its 24 CSS pixels.
    const box = await close.boundingBox()
    const size = box ? `${Math.round(box.width)}×${Math.round(box.height)}` : 'none'
    assert.ok(box && Math.round(box.width) >= 24 && Math.round(box.height) >= 24, `close button ${size}`)
    await page.context().close()
  })

  it('has no serious violation on /forgotPassword, blank and with errors', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await page.goto('/forgotPassword')
    assert.deepEqual(await violations(page), [], 'untouched')
    await page.getByLabel('Adresse e-mail').click()
    await page.locator('altcha-widget input[type="checkbox"]').waitFor()
    assert.deepEqual(await violations(page), [], 'blank')
    await page.getByRole('button', { name: 'Recevoir le lien' }).click()
    await page.getByText('Ce champ est obligatoire').waitFor()
    assert.deepEqual(await violations(page), [], 'with errors')
    await page.context().close()
  })

  for (const [language, acceptLanguage] of [
    ['French', 'fr-FR'],
    ['English', 'en-GB'],
  ]) {
    it(`has no violation at all on /createAccount in ${language}, blank and with errors`, async () => {
      const page = await newPage({ javaScriptEnabled: true, locale: acceptLanguage, acceptLanguage })
      await page.goto('/createAccount')
      await page.locator('form#register input[name="mail"]').click()
      await page.locator('altcha-widget input[type="checkbox"]').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'blank')
      // The server's answer to a form the browser's own checks let through, every field wrong.
      await page.locator('form#register').evaluate((form) => form.setAttribute('novalidate', ''))
      await page.locator('form#register input[name="mail"]').fill('pas-une-adresse')
      await page.locator('form#register input[name="confirmation"]').fill('autre')
      await page.locator('form#register input[name="nom"]').fill('X')
      // Validate waits for a valid form: the form is sent as a script would.
      await page.locator('form#register').evaluate((/** @type {HTMLFormElement} */ form) => form.requestSubmit())
      await page.locator('form#register [aria-invalid="true"]').first().waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'with errors')
      await page.context().close()
    })
  }

  it('has no serious violation on /renewPassword: the form, its errors, the error card', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await page.goto(await resetLinkFor('emma.bernard@portail.example'))
    await page.getByRole('heading', { name: 'Nouveau mot de passe' }).waitFor()
    assert.deepEqual(await violations(page), [], 'form')
    await page.getByLabel('Nouveau mot de passe').fill('1a')
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click()
    await page.getByText('(non respectée)').first().waitFor({ state: 'attached' })
    assert.deepEqual(await violations(page), [], 'with errors')
    await page.goto('/renewPassword/unknown-link')
    assert.deepEqual(await violations(page), [], 'error card')
    await page.context().close()
  })

  for (const { locale, title, already } of [
    { locale: 'fr-FR', title: 'Confirmer votre nouvelle adresse', already: 'Déjà connecté' },
    { locale: 'en-GB', title: 'Confirm your new address', already: 'Already signed in' },
  ]) {
    it(`has no serious violation on the address confirmation and "already signed in" pages (${locale})`, async () => {
      const page = await newPage({ javaScriptEnabled: true, locale, acceptLanguage: locale })
      await page.goto('/confirmMail/e2e-mail-change-link-000000000000000000000000')
      await page.getByRole('heading', { name: title, level: 1 }).waitFor()
      assert.deepEqual(await violations(page), [], 'confirmation page')
      await page.goto('/confirmMail/unknown-link')
      await page.getByRole('alert').waitFor()
      assert.deepEqual(await violations(page), [], 'unusable link')

      await signIn(page, { javaScriptEnabled: true }, 'agent', 'Agent1234')
      const elsewhere = `http://127.0.0.1:${PORT}/elsewhere`
      await page.route(elsewhere, (route) =>
        route.fulfill({ contentType: 'text/html', body: `<a href="${BASE_URL}/login">Portail</a>` }),
      )
      await page.goto(elsewhere)
      await page.getByRole('link', { name: 'Portail' }).click()
      await page.getByRole('heading', { name: already, level: 1 }).waitFor()
      assert.deepEqual(await violations(page), [], 'already signed in')
      await page.context().close()
    })
  }

  it('has no serious violation in the development mailbox', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await page.goto('/dev/mails')
    assert.deepEqual(await violations(page), [], '/dev/mails')
    await page.getByRole('link', { name: 'Réinitialisation de votre mot de passe' }).first().click()
    await page.getByRole('heading', { name: 'Liens du message' }).waitFor()
    // The preview frame is sandboxed without scripts, so axe cannot enter it (it would wait forever);
    // the page around it is audited, the frame's title checked.
    assert.equal(await page.locator('iframe').getAttribute('title'), 'Aperçu du message')
    await page.locator('iframe').evaluate((frame) => frame.remove())
    assert.deepEqual(await violations(page), [], '/dev/mails/:id')
    await page.context().close()
  })

  it('has no serious violation on the profile with errors', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'agent', 'Agent1234', '/login?redirect=/pages/user/me')
    await page.getByLabel('Nouveau mot de passe', { exact: true }).fill('1a')
    await page.getByRole('button', { name: 'Changer le mot de passe' }).click()
    await page.getByText('(non respectée)').first().waitFor({ state: 'attached' })
    await page.getByLabel('Nom', { exact: true }).fill('A')
    await page.getByRole('button', { name: 'Enregistrer' }).click()
    await page.getByText('Entre 3 et 50 caractères').waitFor()
    assert.deepEqual(await violations(page), [])
    await page.context().close()
  })

  for (const [language, acceptLanguage, names] of /** @type {[string, string, { end: RegExp, others: string }][]} */ ([
    ['French', 'fr-FR', { end: /^Terminer la session Firefox/, others: 'Terminer les autres sessions' }],
    ['English', 'en-US', { end: /^End the Firefox 128\.0 session/, others: 'End the other sessions' }],
  ])) {
    it(`has no violation at all on the profile's sessions in ${language}: the list, an end's dialog, the panel without JavaScript`, async () => {
      const mode = { javaScriptEnabled: true }
      const firefox = await newPage({
        ...mode,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
      })
      await signIn(firefox, mode, 'appareils', 'Agent1234')
      const page = await newPage({ ...mode, locale: acceptLanguage, acceptLanguage })
      await signIn(page, mode, 'appareils', 'Agent1234', '/login?redirect=/pages/user/me')
      await page.locator('#sessions').getByRole('listitem').nth(1).waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the list')
      // The French run's sessions are still open in the English one: any Firefox session will do.
      await page.getByRole('button', { name: names.end }).first().click()
      await page.getByRole('alertdialog').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], "an end's dialog")
      await page.keyboard.press('Escape')
      await page.getByRole('button', { name: names.others }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('alertdialog').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the dialog of the others, opened by keyboard')
      await page.keyboard.press('Escape')
      const noScript = await newPage({ javaScriptEnabled: false, locale: acceptLanguage, acceptLanguage })
      await noScript.context().addCookies(await page.context().cookies())
      await noScript.goto('/pages/user/me?confirmer=sessions-autres')
      await noScript.getByRole('region', { name: /\?$/ }).waitFor()
      assert.deepEqual(await noScriptViolations(noScript), [], 'the confirmation panel without JavaScript')
      for (const open of [firefox, page, noScript]) await open.context().close()
    })
  }

  for (const [language, acceptLanguage, id, words] of /** @type {[string, string, number, FactorWords][]} */ ([
    [
      'French',
      'fr-FR',
      986,
      {
        verify: 'Vérifier et se connecter',
        remove: 'Désactiver l’application d’authentification',
        off: 'Désactiver',
        start: "Configurer une application d'authentification",
        startConfirm: 'Continuer',
        confirm: 'Activer',
        codes: 'Codes de secours',
      },
    ],
    [
      'English',
      'en-US',
      987,
      {
        verify: 'Verify and sign in',
        remove: 'Turn the authenticator app off',
        off: 'Turn off',
        start: 'Set up an authenticator app',
        startConfirm: 'Continue',
        confirm: 'Turn on',
        codes: 'Recovery codes',
      },
    ],
  ])) {
    it(`has no violation at all on the second factor's screens in ${language}: the sign-in's second step, the account security page in each state, the security settings`, async () => {
      const mode = { javaScriptEnabled: true }
      const login = `mfaecran${id - 985}`
      const page = await newPage({ ...mode, locale: acceptLanguage, acceptLanguage })
      await page.goto('/login')
      await submitLogin(page, mode, login, 'Agent1234')
      await secondStepHeading(page).waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the second step')
      await page.locator('#login-code').fill('123')
      await page.getByRole('button', { name: words.verify }).click()
      await page.locator('#login-code[aria-invalid="true"]').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the second step with a wrong code')
      await page.locator('#login-code').fill(fixtureRecoveryCode(id, 1))
      await page.getByRole('button', { name: words.verify }).click()
      await page.waitForURL((url) => url.pathname.startsWith('/pages/'))
      await page.locator('#login-code').waitFor({ state: 'detached' })

      // Its authenticator app on: the page, then its removal form open.
      await page.goto('/pages/user/securite')
      await page.locator('main h1').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the security page, the app on')
      await page.getByText(words.remove).click()
      await page.locator('#totp-remove-password').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the removal form')
      // Its passkey's forms (rename, remove) and the new passkey's, open.
      await page.locator('#passkeys details').evaluateAll((all) => {
        for (const details of all) details.setAttribute('open', '')
      })
      await page.locator('#cle-nom').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the passkeys forms')

      // Without JavaScript: the second step, and the security page.
      const noScript = await newPage({ javaScriptEnabled: false, locale: acceptLanguage, acceptLanguage })
      await noScript.goto('/login')
      await submitLogin(noScript, { javaScriptEnabled: false }, login, 'Agent1234')
      await secondStepHeading(noScript).waitFor()
      assert.deepEqual(await noScriptViolations(noScript), [], 'the second step without JavaScript')
      await noScript.context().addCookies(await page.context().cookies())
      await noScript.goto('/pages/user/securite')
      await noScript.locator('#totp details').waitFor()
      assert.deepEqual(await noScriptViolations(noScript), [], 'the security page without JavaScript')

      // The app turned off (with the password), then a new one's enrolment: the QR code, the secret,
      // the first code (wrong, then its error), then the recovery codes shown once.
      await page.locator('#totp-remove-password').fill('Agent1234')
      await page.getByRole('button', { name: words.off, exact: true }).click()
      await page.getByText(words.start).click()
      await page.locator('#totp-start-password').fill('Wrong1234')
      await page.getByRole('button', { name: words.startConfirm, exact: true }).click()
      await page.locator('#totp-start-password[aria-invalid="true"], #totp [role="alert"]').first().waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the enrolment asking for the password, refused')
      await page.locator('#totp-start-password').fill('Agent1234')
      await page.getByRole('button', { name: words.startConfirm, exact: true }).click()
      await page.locator('#totp-secret').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the enrolment step')
      const secret = (await page.locator('#totp-secret').inputValue()).replace(/\s/g, '')
      await page.locator('#totp-code').fill('12')
      await page.getByRole('button', { name: words.confirm, exact: true }).click()
      await page.locator('#totp-code[aria-invalid="true"]').waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the enrolment step with a wrong code')
      await page.locator('#totp-code').fill((await nextTotpCode(secret)).code)
      await page.getByRole('button', { name: words.confirm, exact: true }).click()
      await page.getByRole('list', { name: words.codes }).waitFor()
      assert.deepEqual(await violations(page, { every: true }), [], 'the recovery codes shown')

      // An administrator without a second factor: the security page, and the security settings.
      const admin = await newPage({ ...mode, locale: acceptLanguage, acceptLanguage })
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto('/pages/user/securite')
      await admin.locator('main h1').waitFor()
      assert.deepEqual(await violations(admin, { every: true }), [], 'the security page without a factor')
      await admin.goto('/pages/admin/securite')
      await admin.locator('main h1').waitFor()
      assert.deepEqual(await violations(admin, { every: true }), [], '/pages/admin/securite')
      for (const open of [page, noScript, admin]) await open.context().close()
    })
  }

  it('has no serious violation on the self-service pages without JavaScript', async () => {
    const page = await newPage({ javaScriptEnabled: false })
    await page.goto('/forgotPassword')
    assert.deepEqual(await noScriptViolations(page), [], '/forgotPassword')
    await page.goto(await resetLinkFor('hugo.petit@portail.example'))
    await page.getByLabel('Nouveau mot de passe').fill('1a')
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click()
    await page.getByText('(non respectée)').first().waitFor({ state: 'attached' })
    assert.deepEqual(await noScriptViolations(page), [], '/renewPassword with errors')
    await page.context().close()
  })
})
