// @ts-check
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startUpstreamProvider, UPSTREAM_CLIENT_SECRET } from '../upstream-provider.mjs'
import { violations } from './axe.mjs'
import { BASE_URL, MODES, useBrowser } from './support.mjs'

const newPage = useBrowser()

/**
 * A carrier's employee signs in with their company's identity provider (issue 63), in a real browser, against a real
 * OpenID provider (panva's oidc-provider, started here): the first time they land in the authorisation queue with
 * their company's structure and nothing opens; once an administrator approves, they go straight to their launcher.
 * With JavaScript the sign-in page offers the provider as the address is typed; without it, the company address form
 * does. The provider is registered through the API by the root administrator.
 */

/** This run's mark: a file run again (the runner's retry) finds none of its first run's. */
const RUN = Date.now().toString(36).slice(-5)
const DOMAIN = `dupont-${RUN}.example`
const PROVIDER = `Transports Dupont ${RUN}`
const api = `${BASE_URL}/portail-backend/rest`

/** @type {Awaited<ReturnType<typeof startUpstreamProvider>>} */
let upstream
/** @type {string} */
let adminToken

/**
 * A REST call of the root administrator.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
const asAdmin = (method, path, body) =>
  fetch(`${api}${path}`, {
    method,
    headers: { Authorization: `Bearer ${adminToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })

before(async () => {
  upstream = await startUpstreamProvider({
    redirectUris: [`${BASE_URL}/login/fournisseur/retour`],
    postLogoutRedirectUris: [`${BASE_URL}/login`],
    portalJwks: { keys: [] },
  })
  // The root administrator signs in through the API, answering the no-JavaScript question.
  const question = await (await fetch(`${api}/public/bd/captcha/question`)).json()
  const captcha = btoa(JSON.stringify({ question: question.question, answer: String(question.a + question.b) }))
  const signedIn = await fetch(`${api}/public/bd/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ identifiant: 'admin', motDePasse: 'Admin1234', captcha }),
  })
  assert.equal(signedIn.status, 200)
  adminToken = (await signedIn.json()).jwt.accessToken
  const carriers = /** @type {{ id: number, nom: string }[]} */ (
    await (await fetch(`${api}/public/bd/transporteur/structures`)).json()
  )
  assert.ok(carriers.length > 0, 'a carrier company in the demo data')
  const created = await asAdmin('POST', '/bd/fournisseur', {
    nom: PROVIDER,
    issuer: upstream.issuer,
    clientId: 'portail',
    authentification: 'client_secret_basic',
    secret: UPSTREAM_CLIENT_SECRET,
    domaines: [DOMAIN],
    premiereConnexion: 'INSCRIRE',
    structure: { id: carriers[0]?.id },
  })
  assert.equal(created.status, 201, await created.clone().text())
})

after(async () => {
  await upstream?.close()
})

/**
 * The person at the provider's page: signs in as `sub`.
 * @param {import('playwright-core').Page} page
 * @param {string} sub
 */
async function atProvider(page, sub) {
  await page.waitForURL((url) => url.origin === upstream.issuer, { timeout: 20_000 })
  await page.getByLabel('Compte').fill(sub)
  await page.getByRole('button', { name: 'Se connecter' }).click()
}

/**
 * From the sign-in page to the provider: with JavaScript, the provider offered as the address is typed; without, the
 * company address form.
 * @param {import('playwright-core').Page} page
 * @param {{ javaScriptEnabled: boolean }} mode
 * @param {string} mail
 */
async function continueWithCompany(page, mode, mail) {
  await page.goto('/login')
  if (mode.javaScriptEnabled) {
    await page.getByLabel(/Identifiant/).fill(mail)
    await page.getByRole('link', { name: `Continuer avec ${PROVIDER}` }).click()
  } else {
    await page.getByLabel('Adresse e-mail de l’entreprise').fill(mail)
    await page.getByRole('button', { name: 'Continuer', exact: true }).click()
    // A form's answer may not leave for another site: the provider's button, a link.
    await page.getByRole('link', { name: `Continuer avec ${PROVIDER}` }).click()
  }
}

for (const mode of MODES) {
  describe(`a carrier through their company's identity provider ${mode.name}`, () => {
    it('is queued the first time, nothing opening; once approved, goes straight to the launcher', async () => {
      const sub = `jean-${mode.javaScriptEnabled ? 'js' : 'nojs'}-${RUN}`
      const mail = `${sub}@${DOMAIN}`
      const account = await fetch(`${upstream.issuer}/test/accounts/${sub}`, {
        method: 'PUT',
        body: JSON.stringify({ email: mail, email_verified: true, given_name: 'Jean', family_name: 'Dupont' }),
      })
      assert.equal(account.status, 204)

      const page = await newPage(mode)
      await continueWithCompany(page, mode, mail)
      await atProvider(page, sub)
      await page.getByRole('heading', { name: 'Inscription en attente' }).waitFor({ timeout: 20_000 })
      await page.getByText('un administrateur doit la valider').waitFor()
      // (axe runs in the page: with its scripts on.)
      if (mode.javaScriptEnabled) assert.deepEqual(await violations(page), [])

      // In the queue, with the company's structure; an administrator approves it with a function of the company.
      const queue = /** @type {{ id: number, mail: string }[]} */ (
        await (await asAdmin('GET', '/bd/authorize/get/user/all')).json()
      )
      const pending = queue.find((user) => user.mail === mail)
      assert.ok(pending, 'the registration is in the queue')
      const fonctions = /** @type {{ id: number }[]} */ (
        await (await asAdmin('GET', `/bd/authorize/user/${pending.id}/fonctions`)).json()
      )
      const approved = await asAdmin('POST', '/bd/authorize/user', {
        user: { id: pending.id },
        authorize: true,
        poste: { fonction: { id: fonctions[0]?.id }, dateDebut: '01/01/2020', dateFin: '31/12/2099' },
      })
      assert.equal(approved.status, 200, await approved.clone().text())

      // Still signed in at the provider: straight back, signed in.
      await continueWithCompany(page, mode, mail)
      await page.waitForURL((url) => url.pathname === '/pages/user/acces', { timeout: 20_000 })
      await page.getByText('Jean Dupont').first().waitFor()

      // The link on their security page; the only way in of an account without a password: it stays.
      await page.goto('/pages/user/securite')
      await page.getByRole('heading', { name: 'Comptes d’entreprise liés' }).waitFor()
      await page.getByText(mail).waitFor()
      // A link to the confirmation without JavaScript; with it, a button that opens the dialog.
      await page.getByRole(mode.javaScriptEnabled ? 'button' : 'link', { name: `Retirer ${PROVIDER}` }).click()
      await page.getByRole('button', { name: 'Retirer', exact: true }).click()
      await page.getByText('C’est votre seul moyen de vous connecter').waitFor()
      await page.context().close()
    })
  })
}

describe('the company account section of the sign-in page', () => {
  for (const [language, acceptLanguage, heading, unknown] of /** @type {[string, string, string, string][]} */ ([
    [
      'French',
      'fr-FR',
      'Avec le compte de votre entreprise',
      'Aucun fournisseur d’identité ne répond pour cette adresse',
    ],
    ['English', 'en-GB', 'With your company account', 'No identity provider answers for this address'],
  ])) {
    it(`has no violation in ${language}, an address no provider answers for said`, async () => {
      const page = await newPage({ javaScriptEnabled: true, locale: acceptLanguage, acceptLanguage })
      await page.goto('/login?fournisseur=inconnu')
      await page.getByRole('heading', { name: heading }).waitFor()
      await page.getByText(unknown).waitFor()
      assert.deepEqual(await violations(page), [])
      await page.context().close()
    })
  }
})
