import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BASE_URL, PORT, signIn, useBrowser } from './support.mjs'

const newPage = useBrowser()

describe('robustness', () => {
  it('keeps the session when another site sends the browser to /login', async () => {
    const page = await newPage({ javaScriptEnabled: true })
    await signIn(page, { javaScriptEnabled: true }, 'agent', 'Agent1234')
    // 127.0.0.1 is another site than localhost for the browser: a cross-site navigation.
    await page.goto(`http://127.0.0.1:${PORT}/login`)
    await page.evaluate((target) => {
      window.location.href = target
    }, `${BASE_URL}/login`)
    await page.waitForURL((url) => url.host === new URL(BASE_URL).host && url.pathname === '/pages/user/acces')
    await page.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()
    await page.context().close()
  })

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
