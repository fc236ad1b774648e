// @ts-check
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BASE_URL, MODES, PORT, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

describe('robustness', () => {
  /**
   * A page of another site (127.0.0.1 is not the same site as localhost) with a link to `target`.
   * @param {import('./support.mjs').Page} page
   * @param {string} target
   */
  async function followLinkFromElsewhere(page, target) {
    const elsewhere = `http://127.0.0.1:${PORT}/elsewhere`
    await page.route(elsewhere, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><title>Ailleurs</title><a href="${target}">Portail</a>`,
      }),
    )
    await page.goto(elsewhere)
    await page.getByRole('link', { name: 'Portail' }).click()
  }

  for (const mode of MODES) {
    it(`keeps the session when another site sends the browser to /login, and offers to continue or sign out (${mode.name})`, async () => {
      const page = await newPage(mode)
      await signIn(page, mode, 'agent', 'Agent1234')
      await followLinkFromElsewhere(page, `${BASE_URL}/login?redirect=%2Fpages%2Fuser%2Fme`)
      await page.getByRole('heading', { name: 'Déjà connecté', level: 1 }).waitFor()
      await page.getByText('Vous êtes déjà connecté en tant que Thomas Lefebvre (agent).').waitFor()
      await page.getByRole('button', { name: 'Continuer' }).click()
      await page.waitForURL((url) => url.host === new URL(BASE_URL).host && url.pathname === '/pages/user/me')
      await page.getByRole('heading', { name: 'Mon profil', level: 1 }).waitFor()

      // The same offer again, and this time signing out.
      await followLinkFromElsewhere(page, `${BASE_URL}/login`)
      await page.getByRole('button', { name: 'Se déconnecter' }).click()
      await page.getByRole('button', { name: 'Se connecter', exact: true }).waitFor()
      await page.goto('/pages/user/acces')
      await page.waitForURL((url) => url.pathname === '/login')
      await page.context().close()
    })
  }

  it('answers a non-form body with 400 and cross-origin posts with 403, never a 500', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    const json = await page.request.post(`${BASE_URL}/login`, { data: { identifiant: 'agent' } })
    assert.equal(json.status(), 400)
    const crossOrigin = await page.request.post(`${BASE_URL}/login`, {
      form: { identifiant: 'agent', motDePasse: 'Agent1234' },
      headers: { Origin: 'https://evil.example' },
    })
    assert.equal(crossOrigin.status(), 403)
    const odd = await page.request.get(`${BASE_URL}/demo-app/__proto__?code=x`)
    assert.equal(odd.status(), 401)
    await page.context().close()
  })
})
