// @ts-check
// Carrier self-registration and the authorisation queue (spec §2 /createAccount, admin/autorisation):
// a carrier registers, an administrator authorises them from the queue, the carrier follows the mail
// from the development mailbox, chooses a password and signs in — with and without JavaScript.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { focused, linkFromMailbox, MODES, notice, passCaptcha, signIn, submitLogin, useBrowser } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

const newPage = useBrowser()

const pad = (/** @type {number} */ n) => String(n).padStart(2, '0')
/** Today in the organisation's time zone, as [year, month, day]. */
function organisationToday() {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris' }).format(new Date()).split('-')
  // 'yyyy-MM-dd': three numbers.
  return /** @type {[number, number, number]} */ (parts.map(Number))
}
/**
 * 'dd/MM/yyyy' of the organisation's today, and of that day next year (29 February: 1 March).
 * @param {{ years?: number }} [options]
 */
function wireToday({ years = 0 } = {}) {
  const [year, month, day] = organisationToday()
  const date = new Date(Date.UTC(year + years, month - 1, day))
  return `${pad(date.getUTCDate())}/${pad(date.getUTCMonth() + 1)}/${date.getUTCFullYear()}`
}

/**
 * The names of the public carrier list, as any visitor reads them.
 * @param {Page} page
 * @returns {Promise<string[]>}
 */
async function publicCarriers(page) {
  const response = await page.request.get('/portail-backend/rest/public/bd/transporteur/structures')
  assert.equal(response.status(), 200)
  return (await response.json()).map((/** @type {{ nom: string }} */ carrier) => carrier.nom)
}

/**
 * Fills the registration form as a carrier does (the company typed or picked by its name).
 * @param {Page} page
 * @param {{ company: string, mail: string, nom: string, prenom: string }} fields
 */
async function fillRegistration(page, { company, mail, nom, prenom }) {
  await page.getByLabel('Entreprise').fill(company)
  await page.getByLabel('Adresse e-mail', { exact: true }).fill(mail)
  await page.getByLabel("Confirmation de l'adresse e-mail").fill(mail)
  await page.getByLabel('Nom', { exact: true }).fill(nom)
  await page.getByLabel('Prénom').fill(prenom)
}

for (const [index, mode] of MODES.entries()) {
  describe(`carrier registration ${mode.name}`, () => {
    it('registers → the admin authorises from the queue → the mail link sets a password → the carrier signs in', async () => {
      const stamp = `${index + 1}${Date.now()}`
      const mail = `transporteur${stamp}@transports.example`
      const company = `Fret Nouveau ${stamp}`
      const carrier = await newPage(mode)
      await carrier.goto('/login')
      await carrier.getByRole('link', { name: 'Transporteur : créer un compte' }).click()
      await carrier.getByRole('heading', { name: "Transporteur - Création d'un compte", level: 1 }).waitFor()
      await fillRegistration(carrier, { company, mail, nom: 'Routier', prenom: 'Rémi' })
      if (mode.javaScriptEnabled) {
        await carrier.getByText('Adresse disponible').waitFor()
        await carrier
          .getByText(
            'Entreprise absente de la liste : elle sera créée quand un administrateur acceptera votre demande.',
          )
          .waitFor()
      }
      await passCaptcha(carrier, mode)
      await carrier.getByRole('button', { name: 'Valider' }).click()
      await carrier.waitForURL((url) => url.pathname === '/login')
      await notice(carrier, "Votre demande d'inscription est enregistrée").waitFor()
      // Only a request: the company is no carrier of the public list yet.
      assert.equal((await publicCarriers(carrier)).includes(company), false)

      // Until an administrator accepts it, the account cannot sign in.
      await submitLogin(carrier, mode, mail, 'Nimporte1')
      await carrier
        .getByRole('alert')
        .filter({ hasText: "Vous n'avez pas terminé votre inscription. Verifiez vos mails." })
        .waitFor()

      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto('/pages/admin/autorisation')
      await admin.getByRole('heading', { level: 1 }).waitFor()
      const row = admin.getByRole('row').filter({ hasText: mail })
      await row.getByText(company).waitFor()
      await row.getByText('Nouvelle société, créée à la validation').waitFor()
      // "Valider" asks for the post the carrier starts with: the template's first function, for a year.
      await row.getByRole('link', { name: `Valider l’inscription de ${mail}` }).click()
      const panel = admin.getByRole('region', { name: `Valider l’inscription de ${mail}` })
      assert.equal(await panel.getByLabel('Fonction').inputValue(), 'nom:Chauffeur')
      assert.equal(await panel.getByLabel('Date de début').inputValue(), wireToday())
      assert.equal(await panel.getByLabel('Date de fin').inputValue(), wireToday({ years: 1 }))
      await panel.getByRole('button', { name: 'Valider et envoyer le lien' }).click()
      await notice(admin, `Inscription de ${mail} validée avec son poste`).waitFor()
      // Created now, with its post: no word of a post still to give.
      assert.equal((await publicCarriers(admin)).includes(company), true)
      assert.equal(await admin.getByText('Le transporteur validé n’a encore aucun poste').count(), 0)
      // Authorised: the row stays, with its link's expiry, and now offers to send the mail again. The
      // keyboard's focus is back on that button (without JavaScript too, once the page is back).
      const resend = admin
        .getByRole('row')
        .filter({ hasText: mail })
        .getByRole('button', { name: new RegExp(`Renvoyer.*${mail.replace(/[.]/g, '\\.')}`) })
      await resend.waitFor()
      await focused(resend)

      const link = await linkFromMailbox(admin, mail, 'Votre inscription sur le portail est acceptée')
      assert.match((await link.getAttribute('href')) ?? '', /\/renewPassword\/[A-Za-z0-9_-]{43}$/)
      await carrier.goto((await link.getAttribute('href')) ?? '')
      await carrier.getByLabel('Nouveau mot de passe').fill('Carrier12')
      await carrier.getByLabel('Confirmation du mot de passe').fill('Carrier12')
      await carrier.getByRole('button', { name: 'Enregistrer le mot de passe' }).click()
      await carrier.waitForURL((url) => url.pathname === '/login')
      await signIn(carrier, mode, mail, 'Carrier12')
      await carrier.getByRole('heading', { name: 'Mes accès', level: 1 }).waitFor()
      // Their post in the new company, from the carrier template: they launch at once.
      const [tab] = await Promise.all([
        carrier.context().waitForEvent('page'),
        carrier.getByRole('button', { name: 'Lancer Module Rendez vous (nouvel onglet)' }).click(),
      ])
      await tab.waitForURL((url) => url.pathname === '/demo-app/rdv' && url.searchParams.has('code'))
      await tab.getByText(/Connecté à .* par le portail\. Rémi Routier/).waitFor()

      // Done: the registration has left the queue.
      await admin.goto('/pages/admin/autorisation')
      await admin.getByRole('heading', { level: 1 }).waitFor()
      assert.equal(await admin.getByRole('row').filter({ hasText: mail }).count(), 0)
      await carrier.context().close()
      await admin.context().close()
    })

    it('keeps what was typed and says why when the address is taken or the box unticked; a held company name is the administrator’s to settle', async () => {
      const page = await newPage(mode)
      await page.goto('/createAccount')
      // An address already used: with JavaScript the check says so and Validate waits; without, the server does.
      await fillRegistration(page, {
        company: 'Transports Martin',
        mail: 'thomas.lefebvre@portail.example',
        nom: 'Double',
        prenom: 'Dora',
      })
      if (mode.javaScriptEnabled) {
        await page.getByText('Cette adresse e-mail est déjà utilisée par un autre compte.').waitFor()
        assert.equal(await page.getByRole('button', { name: 'Valider' }).isDisabled(), true)
      } else {
        await passCaptcha(page, mode)
        await page.getByRole('button', { name: 'Valider' }).click()
        await page.getByText('Cette adresse e-mail est déjà utilisée par un autre compte.').waitFor()
        assert.equal(await page.getByLabel('Nom', { exact: true }).inputValue(), 'Double')
      }

      // The verification left undone.
      const mail = `nom${index}${Date.now()}@transports.example`
      await fillRegistration(page, { company: 'Transports Martin', mail, nom: 'Double', prenom: 'Dora' })
      await page.getByRole('button', { name: 'Valider' }).click()
      await page
        .getByRole('alert')
        .filter({
          hasText: mode.javaScriptEnabled
            ? 'Veuillez cocher la case du captcha'
            : 'Veuillez répondre à la question de vérification.',
        })
        .waitFor()

      // A name held by a structure that is not a carrier: taken as any new name, nothing said of it.
      await page.goto('/createAccount')
      await fillRegistration(page, { company: 'agence lille', mail, nom: 'Double', prenom: 'Dora' })
      await passCaptcha(page, mode)
      await page.getByRole('button', { name: 'Valider' }).click()
      await page.waitForURL((url) => url.pathname === '/login')
      await notice(page, "Votre demande d'inscription est enregistrée").waitFor()
      assert.equal(await page.getByText('Agence Lille').count(), 0)

      // The administrator who validates it is told the name is taken; the request stays.
      const admin = await newPage(mode)
      await signIn(admin, mode, 'admin', 'Admin1234')
      await admin.goto('/pages/admin/autorisation')
      const row = admin.getByRole('row').filter({ hasText: mail })
      await row.getByRole('link', { name: `Valider l’inscription de ${mail}` }).click()
      await admin.getByRole('button', { name: 'Valider et envoyer le lien' }).click()
      await admin
        .getByRole('alert')
        .filter({ hasText: '« agence lille » est déjà le nom d’une autre structure' })
        .waitFor()
      // As shown at this width (a phone shows it under the address instead), once the page's
      // stylesheet hides the phone's copy.
      await admin.waitForLoadState('load')
      await admin
        .getByRole('row')
        .filter({ hasText: mail })
        .getByText('Pas encore validée')
        .filter({ visible: true })
        .waitFor()
      await admin.context().close()
      await page.context().close()
    })
  })
}
