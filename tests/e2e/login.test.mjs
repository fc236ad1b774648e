// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, PORT, signInByForm, submitLogin, useBrowser } from './support.mjs'

const newPage = useBrowser()

for (const mode of MODES) {
  describe(`sign-in ${mode.name}`, () => {
    it('signs the agent in and lands on the access page', async () => {
      const page = await newPage(mode)
      await signInByForm(page, mode, 'agent', 'Agent1234')
      assert.equal(new URL(page.url()).pathname, '/pages/user/acces')
      await page.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()
      await page.context().close()
    })

    /**
     * What is tried, with which identifier and password, and the message it gets.
     * @type {[string, string, string, string][]}
     */
    const failures = [
      [
        'an unknown identifier',
        `inconnu-${mode.javaScriptEnabled}`,
        'Agent1234',
        'Identifiant ou mot de passe incorrect.',
      ],
      ['a wrong password', 'chauffeur', 'Mauvais123', 'Identifiant ou mot de passe incorrect.'],
      [
        'an inactive account',
        'inactif',
        'Inactif1',
        'Votre compte est désactivé, merci de contacter votre administrateur.',
      ],
      [
        'a deleted account',
        'supprime',
        'Supprime1',
        'Votre compte est désactivé, merci de contacter votre administrateur.',
      ],
      [
        'an unfinished registration',
        'contact@fret-rhone.example',
        'Nimporte1',
        "Vous n'avez pas terminé votre inscription. Verifiez vos mails.",
      ],
      ['another domain', 'ailleurs', 'Agent1234', "Vous n'êtes pas autorisé à vous connecter sur ce domaine."],
    ]
    for (const [what, identifiant, motDePasse, message] of failures) {
      it(`shows the message for ${what} and keeps the identifier`, async () => {
        const page = await newPage(mode)
        await page.goto('/login')
        await submitLogin(page, mode, identifiant, motDePasse)
        await page.getByRole('alert').filter({ hasText: message }).waitFor()
        assert.equal(new URL(page.url()).pathname, '/login')
        assert.equal(await page.getByLabel('Identifiant').inputValue(), identifiant)
        assert.equal(await page.getByLabel('Mot de passe').inputValue(), '', 'the password is never sent back')
        await page.context().close()
      })
    }

    it('refuses to sign in without the human verification', async () => {
      const page = await newPage(mode)
      await page.goto('/login')
      await submitLogin(page, mode, 'agent', 'Agent1234', { captcha: false })
      // The widget's box with JavaScript (the spec's words), the sum without.
      const message = mode.javaScriptEnabled
        ? 'Veuillez cocher la case du captcha'
        : 'Veuillez répondre à la question de vérification.'
      await page.getByRole('alert').filter({ hasText: message }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/login')
      await page.context().close()
    })

    it('shows field errors for empty fields', async () => {
      const page = await newPage(mode)
      await page.goto('/login')
      // Bypass the browser's own required check, to prove our validation answers with field errors.
      await page.locator('form#login').evaluate((form) => form.setAttribute('novalidate', ''))
      await page.getByRole('button', { name: 'Se connecter', exact: true }).click()
      await page.getByText('Ce champ est obligatoire').first().waitFor()
      assert.equal(await page.getByLabel('Identifiant').getAttribute('aria-invalid'), 'true')
      await page.context().close()
    })
  })
}

describe('sign-in details', () => {
  it('answers a wrong no-JavaScript answer with the sum’s own message, not the box’s', async () => {
    const page = await newPage({ javaScriptEnabled: false })
    await page.goto('/login')
    await page.getByLabel('Identifiant').fill('agent')
    await page.getByLabel('Mot de passe').fill('Agent1234')
    await page.locator('#captchaAnswer').fill('999')
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click()
    await page.getByRole('alert').filter({ hasText: 'La réponse à la question de vérification est inexacte' }).waitFor()
    assert.equal(await page.getByText('Recaptcha non valide').count(), 0)
    await page.context().close()
  })

  it('offers the verification box to someone who clicked into the form before the page’s scripts ran', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    // The page's scripts arrive only after the click, as on a slow connection.
    let release = () => {}
    /** @type {Promise<void>} */
    const held = new Promise((resolve) => (release = resolve))
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      await held
      await route.continue()
    })
    // Module scripts hold DOMContentLoaded back: wait for the field itself.
    await page.goto('/login', { waitUntil: 'commit' })
    await page.getByLabel('Identifiant').click()
    release()
    await page.getByRole('checkbox').first().waitFor()
    await page.context().close()
  })

  it('stays alive when a key is typed as the page starts to hydrate', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    /** @type {string[]} */
    const errors = []
    page.on('pageerror', (error) => errors.push(error.message))
    // A key typed into the identifier the moment React has taken the document as its root, before its first render
    // (a microtask after hydrateRoot, ahead of React's scheduled work): the event on which React would hydrate at once.
    await page.addInitScript(() => {
      const add = EventTarget.prototype.addEventListener
      let typed = false
      /** @this {EventTarget} @type {EventTarget['addEventListener']} */
      const watched = function (type, listener, options) {
        add.call(this, type, listener, options)
        const taken = this === document && Object.keys(document).some((key) => key.startsWith('__reactContainer$'))
        if (typed || !taken) return
        typed = true
        queueMicrotask(() => {
          const field = document.querySelector('#login-identifiant')
          field?.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }))
          field?.dispatchEvent(new InputEvent('input', { data: 'a', bubbles: true }))
          document.documentElement.dataset.typedWhileHydrating = 'yes'
        })
      }
      EventTarget.prototype.addEventListener = watched
    })
    await page.goto('/login')
    await page.locator('html[data-typed-while-hydrating="yes"]').waitFor({ state: 'attached' })
    // The page is live: the verification box comes with the first focus, and the form signs in.
    await page.getByLabel('Identifiant').click()
    await page.getByRole('checkbox').first().waitFor()
    assert.deepEqual(errors, [])
    await submitLogin(page, { javaScriptEnabled: true }, 'agent', 'Agent1234')
    await page.waitForURL((url) => url.pathname === '/pages/user/acces')
    assert.deepEqual(errors, [])
    await page.context().close()
  })

  it('lets demo users sign in on 127.0.0.1 as on localhost', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signInByForm(page, { javaScriptEnabled: true }, 'agent', 'Agent1234', `http://127.0.0.1:${PORT}/login`)
    assert.equal(new URL(page.url()).host, `127.0.0.1:${PORT}`)
    await page.context().close()
  })

  it('ignores a redirect to another site', async () => {
    const page = await newPage({ javaScriptEnabled: false })
    await signInByForm(page, { javaScriptEnabled: false }, 'agent', 'Agent1234', '/login?redirect=//evil.example/x')
    assert.equal(page.url(), new URL('/pages/user/acces', page.url()).href)
    await page.context().close()
  })
})
