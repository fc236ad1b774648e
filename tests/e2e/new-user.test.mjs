// @ts-check
// What a new user tripped over on the first screens (issue "What a new user trips over"): each
// defect, as a person meets it, with and without JavaScript where it applies.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MODES, notice, signIn, signInByForm, submitLogin, useBrowser } from './support.mjs'

const newPage = useBrowser()

for (const mode of MODES) {
  describe(`a new user ${mode.name}`, () => {
    it('after a failed sign-in sees one error, not the emptied password marked as left blank', async () => {
      const page = await newPage(mode)
      await page.goto('/login')
      await submitLogin(page, mode, 'chauffeur', 'Mauvais123')
      await page.getByRole('alert').filter({ hasText: 'Identifiant ou mot de passe incorrect.' }).waitFor()
      assert.equal(await page.getByLabel('Mot de passe').inputValue(), '')
      assert.equal(await page.getByText('Ce champ est obligatoire').count(), 0)
      assert.notEqual(await page.getByLabel('Mot de passe').getAttribute('aria-invalid'), 'true')
      await page.context().close()
    })

    it('keeps a new password longer than 12 characters whole, and is told it breaks the length rule', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      await page.goto('/pages/user/me')
      const long = 'Abcdefgh12345'.padEnd(15, 'x')
      await page.getByLabel('Ancien mot de passe').fill('Agent1234')
      await page.getByLabel('Nouveau mot de passe', { exact: true }).fill(long)
      await page.getByLabel('Confirmation du nouveau mot de passe').fill(long)
      assert.equal(await page.getByLabel('Nouveau mot de passe', { exact: true }).inputValue(), long)
      await page.getByRole('button', { name: 'Changer le mot de passe' }).click()
      await page
        .locator('li')
        .filter({ hasText: 'compter de 6 à 12 caractères' })
        .filter({ hasText: '(non respectée)' })
        .waitFor()
      await page.context().close()
    })

    it('is told a reset link cut or padded cannot work, on the card bad links get', async () => {
      const page = await newPage(mode)
      await page.goto(`/renewPassword/${'a'.repeat(300)}`)
      await page
        .getByRole('alert')
        .filter({ hasText: "Ce lien n'est pas valide. Vérifiez qu'il est complet." })
        .waitFor()
      await page.getByRole('link', { name: 'Demander un nouveau lien' }).waitFor()
      await page.goto(`/confirmMail/${'a'.repeat(300)}`)
      await page.getByRole('alert').filter({ hasText: "Ce lien n'est pas valide" }).waitFor()
      await page.context().close()
    })

    it('keeps the path asked for when it must sign in first, whatever that path under /pages', async () => {
      const page = await newPage(mode)
      for (const path of ['/pages/admin/listeStructures', '/pages/nulle-part', '/pages']) {
        await page.goto(path)
        await page.waitForURL((url) => url.pathname === '/login')
        assert.equal(new URL(page.url()).searchParams.get('redirect'), path)
      }
      await page.context().close()
    })

    it('after a failed password change, sees the form that failed with what to correct at its top', async () => {
      const page = await newPage(mode)
      await page.setViewportSize({ width: 360, height: 640 })
      await signIn(page, mode, 'agent', 'Agent1234')
      await page.goto('/pages/user/me')
      await page.getByLabel('Ancien mot de passe').fill('Agent1234')
      await page.getByLabel('Nouveau mot de passe', { exact: true }).fill('Nouveau12')
      await page.getByLabel('Confirmation du nouveau mot de passe').fill('Nouveau13')
      await page.getByRole('button', { name: 'Changer le mot de passe' }).click()
      const summary = page
        .getByRole('alert')
        .filter({ hasText: 'Vérifiez les champs signalés : Confirmation du nouveau mot de passe.' })
      await summary.waitFor()
      // In sight without scrolling by hand, though the form is below the fold of a phone (the browser scrolls to it
      // once the page has loaded: waited for, not read at the instant the summary appears).
      const seen = () =>
        summary.evaluate((element) => {
          const box = element.getBoundingClientRect()
          return box.top >= 0 && box.bottom <= window.innerHeight
        })
      let inSight = await seen()
      for (let tries = 0; !inSight && tries < 50; tries++) {
        await page.waitForTimeout(100)
        inSight = await seen()
      }
      assert.ok(inSight, 'the summary is in sight')
      await page.context().close()
    })

    it('is told a name of spaces only is missing, not too short', async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      await page.goto('/pages/user/me')
      await page.getByLabel('Nom', { exact: true }).fill('   ')
      await page.getByRole('button', { name: 'Enregistrer', exact: true }).click()
      await page.getByText('Ce champ est obligatoire').waitFor()
      assert.equal(await page.getByText('Entre 3 et 50 caractères').count(), 0)
      await page.context().close()
    })
  })
}

describe('the finish of the first screens', () => {
  it('gives every page its title, unique ids, and both lists of posts the same heading size', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'admin', 'Admin1234')
    for (const path of ['/pages/user/acces', '/pages/user/me', '/pages/documentation']) {
      await page.goto(path)
      await page.locator('main h1').waitFor()
      assert.match(await page.title(), / · Portail$/, path)
      const duplicates = await page.evaluate(() => {
        const ids = [...document.querySelectorAll('[id]')].map((element) => element.id)
        return ids.filter((id, index) => ids.indexOf(id) !== index)
      })
      assert.deepEqual(duplicates, [], path)
    }
    await page.goto('/pages/user/me')
    const sizes = await page
      .getByRole('heading', { level: 3, name: /^Postes (en cours|futurs)$/ })
      .evaluateAll((headings) => headings.map((heading) => getComputedStyle(heading).fontSize))
    assert.equal(sizes.length, 2)
    assert.equal(sizes[0], sizes[1])
    // The root admin manages posts, their own included: no "your administrator" above them.
    await page.getByText("Vos postes se gèrent dans l'administration").waitFor()
    assert.equal(await page.getByText('gérés par votre administrateur').count(), 0)
    await page.context().close()
  })

  it('says one word for each thing in English', async () => {
    const page = await newPage({ javaScriptEnabled: true, locale: 'en-GB', acceptLanguage: 'en-GB,en;q=0.9' })
    await page.goto('/login')
    await page.getByRole('link', { name: 'Forgotten password?' }).click()
    await page.getByRole('heading', { name: 'Forgotten password', level: 1 }).waitFor()
    await signIn(page, { javaScriptEnabled: true }, 'agent', 'Agent1234')
    await page.goto('/pages/user/me')
    await page.getByText('The username cannot be changed.').waitFor()
    assert.equal(await page.getByText(/identifier/i).count(), 0)
    // A poste is a "post", as everywhere else in the portal, never a "position".
    await page.getByRole('heading', { name: 'My posts' }).waitFor()
    assert.equal(
      await page
        .locator('main')
        .getByText(/\bpositions?\b/i)
        .count(),
      0,
    )
    await page.context().close()
  })
})

describe('the way back after signing in', () => {
  it('with JavaScript, skips the sign-in page and keeps the session', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await page.goto('/pages/documentation')
    await page.waitForURL((url) => url.pathname === '/login')
    await page.goto('/forgotPassword')
    await page.getByRole('link', { name: 'Retour à la connexion' }).click()
    await submitLogin(page, { javaScriptEnabled: true }, 'agent', 'Agent1234')
    await page.waitForURL((url) => url.pathname === '/pages/user/acces')
    await page.locator('main h1').waitFor()
    // "Retour": the page before the sign-in form, which the sign-in replaced in history.
    await page.getByRole('link', { name: 'Retour' }).click()
    await page.waitForURL((url) => url.pathname === '/forgotPassword')
    await page.goto('/pages/user/acces')
    await page.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()
    await page.context().close()
  })

  it('"Retour" in a tab that opened the portal from elsewhere stays in the portal (spec §2: else /)', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'agent', 'Agent1234')
    const tab = await page.context().newPage()
    await tab.goto('data:text/html,<title>Ailleurs</title><p>Another site</p>')
    await tab.goto(`${new URL(page.url()).origin}/pages/user/me`)
    await tab.locator('main h1').waitFor()
    await tab.getByRole('link', { name: 'Retour' }).click()
    await tab.waitForURL((url) => url.pathname === '/pages/user/acces')
    await page.context().close()
  })

  it('without JavaScript, does not end the session silently when it lands on the sign-in page', async () => {
    const page = await newPage({ javaScriptEnabled: false })
    await signInByForm(page, { javaScriptEnabled: false }, 'agent', 'Agent1234')
    await page.goBack()
    await page.waitForURL((url) => url.pathname === '/login')
    await page
      .getByRole('status')
      .filter({ hasText: 'Vous étiez connecté en tant que Thomas Lefebvre : cette session est maintenant fermée.' })
      .waitFor()
    // Signing in as someone else from there: the next page says who is signed in now.
    await submitLogin(page, { javaScriptEnabled: false }, 'adminsud', 'Adminsud1')
    await page.waitForURL((url) => url.pathname.startsWith('/pages/'))
    await notice(page, /Vous êtes maintenant connecté en tant que .+ \(et non plus Thomas Lefebvre\)/).waitFor()
    await page.context().close()
  })
})

describe('the verification with JavaScript', () => {
  it('signs in when the form is sent while the box is still being solved', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await page.goto('/login')
    await page.getByLabel('Identifiant').fill('agent')
    await page.getByLabel('Mot de passe').fill('Agent1234')
    await page.getByRole('checkbox').first().click()
    // At once, as a quick hand does: the form waits for the solution, then goes.
    await page.locator('form#login button[type="submit"]').click()
    await page.waitForURL((url) => url.pathname === '/pages/user/acces')
    await page.context().close()
  })
})

describe('the verification without JavaScript', () => {
  it('speaks of the sum it asks, not of a box to tick', async () => {
    const page = await newPage({ javaScriptEnabled: false })
    await page.goto('/login')
    await page.getByLabel('Identifiant').fill('agent')
    await page.getByLabel('Mot de passe').fill('Agent1234')
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click()
    await page.getByRole('alert').filter({ hasText: 'Veuillez répondre à la question de vérification.' }).waitFor()
    assert.equal(await page.getByText('Veuillez cocher la case du captcha').count(), 0)
    await page.context().close()
  })
})

describe('a new administrator on their profile with JavaScript', () => {
  it('after a failed save, sees a field’s error go once the field is typed again', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'admin', 'Admin1234')
    await page.goto('/pages/user/me')
    const nom = page.getByLabel('Nom', { exact: true })
    const before = await nom.inputValue()
    await nom.fill('')
    await page.getByRole('button', { name: 'Enregistrer', exact: true }).click()
    await page.getByText('Ce champ est obligatoire').waitFor()
    await nom.fill(before)
    await page.getByText('Ce champ est obligatoire').waitFor({ state: 'detached' })
    assert.notEqual(await nom.getAttribute('aria-invalid'), 'true')
    await page.context().close()
  })
})
