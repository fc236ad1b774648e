// @ts-check
// Shared helpers of the browser tests: Debian's Chromium through playwright-core, and the sign-in
// steps as a person does them, with or without JavaScript.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { existsSync } from 'node:fs'
import { after, before } from 'node:test'
import { chromium } from 'playwright-core'
import { ADMIN_MENU_PAGES } from './menu-pages.mjs'

/** @typedef {import('playwright-core').Browser} Browser */
/** @typedef {import('playwright-core').Locator} Locator */
/** @typedef {import('playwright-core').Page} Page */
/** @typedef {import('playwright-core').Route} Route */
/** @typedef {import('playwright-core').Request} PageRequest */
/** @typedef {import('../../worker-api/contract/dev').DevMailSummary} DevMailSummary */

/**
 * A function run in the page with an argument, as `page.evaluate` takes it.
 * @template Arg, R
 * @typedef {(arg: Arg) => R | Promise<R>} PageFunction
 */

/**
 * A way each page is run: its name in the tests' titles, and whether the page runs its scripts.
 * @typedef {{ name: string, javaScriptEnabled: boolean }} Mode
 */

/**
 * What the sign-in helpers need of a mode: whether the page runs its scripts.
 * @typedef {Pick<Mode, 'javaScriptEnabled'>} Scripting
 */

/**
 * The settings of a page from `useBrowser`'s `newPage`: each has the default its description gives.
 * @typedef {object} PageOptions
 * @property {boolean} [javaScriptEnabled]
 * @property {string} [locale]
 * @property {string} [acceptLanguage] the Accept-Language header sent, none unless given
 * @property {string} [timezoneId]
 * @property {string} [userAgent]
 */

/** The portal under test (E2E_BASE_URL), the local `wrangler dev` unless given. @type {string} */
export const BASE_URL = process.env.E2E_BASE_URL ?? 'http://localhost:8787'
/** Its port (E2E_PORT), as a string. @type {string} */
/**
 * Fires one of the Worker's crons as its schedule would, and waits for its run: through the test server's trigger
 * (E2E_CRON_URL, tests/e2e/run.mjs), else `wrangler dev --test-scheduled`'s (`npm start`).
 * @param {string} cron
 * @returns {Promise<number>} the trigger's status (200: every part of the run passed)
 */
export async function fireCron(cron) {
  const trigger = process.env.E2E_CRON_URL ?? `${BASE_URL}/__scheduled`
  const response = await fetch(`${trigger}?${new URLSearchParams({ cron }).toString()}`)
  await response.text()
  return response.status
}

export const PORT = process.env.E2E_PORT ?? '8787'
/**
 * The UTC day its fixtures were loaded ('YYYY-MM-DD', E2E_FIXTURES_DAY), from which their `date('now', …)` count:
 * a test that expects one of those dates counts from it, not from the clock, which may have passed midnight since.
 * @type {string}
 */
export const FIXTURES_DAY = process.env.E2E_FIXTURES_DAY ?? new Date().toISOString().slice(0, 10)

/**
 * A day `days` from the organisation's today (Europe/Paris: the day the server checks a form's dates against, whatever
 * the machine's time zone), as the forms write it (dd/MM/yyyy), or as `locale` writes it ('en-CA': yyyy-MM-dd).
 * @param {number} days
 * @param {string} [locale]
 */
export const organisationDay = (days, locale = 'fr-FR') =>
  new Intl.DateTimeFormat(locale, {
    timeZone: 'Europe/Paris',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  }).format(new Date(Date.now() + days * 86_400_000))

/**
 * The browser: CHROMIUM_PATH, else Debian's headless shell (`apt-get install chromium-headless-shell`),
 * else its desktop `chromium`. The shell is the same engine with nothing of the desktop browser around
 * it: a file's pages cost about a third of the processor time, and the suite is bound by it on two cores.
 */
const chromiumPath =
  process.env.CHROMIUM_PATH ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((file) => existsSync(file)) ??
  '/usr/bin/chromium'

/**
 * Launches one browser for a test file and closes it after.
 * @returns {(options?: PageOptions) => Promise<Page>} `newPage`, for the file's tests and hooks
 */
export function useBrowser() {
  /** @type {{ browser: Browser | null }} */
  const holder = { browser: null }
  before(async () => {
    holder.browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
  })
  after(async () => holder.browser?.close())
  /**
   * A fresh context: French by default, JavaScript on unless `javaScriptEnabled: false`, its clock in
   * the organisation's time zone unless another is given; `userAgent` makes it another browser.
   * @param {PageOptions} [options]
   * @returns {Promise<Page>}
   */
  return async function newPage({
    javaScriptEnabled = true,
    locale = 'fr-FR',
    acceptLanguage,
    timezoneId = 'Europe/Paris',
    userAgent,
  } = {}) {
    assert.ok(holder.browser, 'no browser yet: newPage is for the tests and hooks, after the launch')
    const context = await holder.browser.newContext({
      baseURL: BASE_URL,
      javaScriptEnabled,
      locale,
      ...(userAgent ? { userAgent } : {}),
      // The organisation's time zone by default: what a browser's own today (a calendar's) is in.
      timezoneId,
      extraHTTPHeaders: acceptLanguage ? { 'Accept-Language': acceptLanguage } : {},
    })
    const page = await context.newPage()
    // What the page's script said went wrong, in the run's output: the evidence of a page that never
    // came to life (a widget that does not appear) is there and nowhere else.
    // (A document written into about:blank, as a test's sandbox, is left aside: its requests have no origin.)
    page.on('pageerror', (error) => console.log(`# page error on ${page.url()}: ${error.message}`))
    page.on('console', (message) => {
      if (page.url() === 'about:blank') return
      // An answer in error is the test's to assert (a 400 the page shows), not the script's failure.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        console.log(`# console error on ${page.url()}: ${message.text()}`)
    })
    // A request still unanswered 10 s after it left, its page still open, is said in the run's output, with how long it
    // took in the end: a step that timed out then says whether the server or the page kept it waiting.
    /** @type {Map<PageRequest, number>} */
    const sent = new Map()
    page.on('request', (request) => {
      sent.set(request, Date.now())
      setTimeout(() => {
        if (sent.has(request) && !page.isClosed())
          console.log(`# ${request.method()} ${request.url()} unanswered after 10 s`)
      }, 10_000).unref()
    })
    /** @param {PageRequest} request */
    const settled = (request) => {
      const since = sent.get(request)
      sent.delete(request)
      if (since !== undefined && Date.now() - since >= 10_000)
        console.log(
          `# ${request.method()} ${request.url()} answered after ${Math.round((Date.now() - since) / 1000)} s`,
        )
    }
    page.on('requestfinished', settled)
    page.on('requestfailed', settled)
    // A step (a click, a navigation, a wait) may take this long on a busy 2-core machine before it fails.
    page.setDefaultTimeout(30_000)
    page.setDefaultNavigationTimeout(30_000)
    // A step that waits for an address waits for the new page's document, not for its last
    // stylesheet: what comes next asserts what the page says. (A stylesheet that the local server
    // kept pending for 30 s on a busy machine once failed a run at this step.)
    const waitForURL = page.waitForURL.bind(page)
    page.waitForURL = (url, options) => waitForURL(url, { waitUntil: 'domcontentloaded', ...options })
    // The local `wrangler dev` has now and then kept one request of a page pending until the test
    // gave up (30 s) under CI load: `/styles/default.css` right after a form post, twice, and a
    // navigation (`/login`); the same file answers in milliseconds otherwise. A stylesheet that has
    // not answered in 10 s is asked again, and a navigation that timed out is made once more; each
    // retry is printed, so a run says how often it happened. (Routing every script too made such
    // stalls more frequent, not less: scripts are left to the browser.)
    await page.route(/\/(assets|styles)\/[^?#]+\.css$/, fetchStatic)
    const goto = page.goto.bind(page)
    page.goto = async (url, options) => {
      try {
        return await goto(url, options)
      } catch (error) {
        if (!/Timeout/i.test(String(error))) throw error
        console.log(`# the navigation to ${url} had not ended in time: made again`)
        return goto(url, options)
      }
    }
    return page
  }
}

/**
 * Serves a page's static file from the server, asking again when an answer is more than 10 s late.
 * @param {Route} route
 * @returns {Promise<void>}
 */
async function fetchStatic(route) {
  if (route.request().method() !== 'GET') return route.continue()
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await route.fulfill({ response: await route.fetch({ timeout: 10_000 }) })
    } catch (error) {
      if (!/Timeout/i.test(String(error))) return route.abort().catch(() => {})
      console.log(`# ${route.request().url()} had not answered in 10 s (attempt ${attempt} of 3)`)
    }
  }
  return route.abort().catch(() => {})
}

/**
 * The administration screens: the menu's pages, then the pages outside the menu and the states without a dialog
 * (confirmation pages, the add-post form): what the widths and accessibility checks go through.
 * @type {string[]}
 */
export const ADMIN_SCREENS = [
  ...ADMIN_MENU_PAGES,
  '/pages/admin?prolonger=9102',
  '/pages/admin/listeStructures?confirmer=supprimer&id=4',
  '/pages/admin/structure?type=3',
  '/pages/admin/structure/detail/4',
  '/pages/admin/structure/detail/4?renommer=6',
  '/pages/admin/structure/detail/4?acces=6',
  '/pages/admin/structure/detail/4?confirmer=supprimer-fonction&id=7',
  '/pages/admin/user/structure/4?ajouter=1',
  '/pages/admin/listeUtilisateurs?q=garcia&detail=3',
  '/pages/admin/listeUtilisateurs?actif=false&confirmer=supprimer&id=7',
  '/pages/admin/listeUtilisateurs?supprime=true',
  '/pages/admin/user/new?structure=4',
  '/pages/admin/user/4/new',
  '/pages/admin/detail/user/2',
  '/pages/admin/user/detail/2?structure=4&confirmer=poste&id=2',
  '/pages/admin/autorisation?confirmer=refuse&id=11',
  '/pages/admin/autorisation?valider=12',
  '/pages/admin/listeLogs?du=2020-01-01&type=CONNEXION',
  '/pages/admin/applications?confirmer=supprimer&id=3',
  '/pages/admin/applications/nouvelle?structure=4',
  '/pages/admin/applications/3',
  // An OpenID Connect application (the demo's): its client's fields and card.
  '/pages/admin/applications/5',
  // A SAML application (tests/e2e/fixtures.sql): its service provider, read-only.
  '/pages/admin/applications/903',
  '/pages/admin/modeles/3',
  // The security settings (the requirement of a second factor from administrators).
  // The service accounts (tests/e2e/fixtures.sql): the list and its create form, a deletion's
  // confirmation, and the new secret of an administrator account (its proof fields).
  '/pages/admin/comptesService?confirmer=supprimer&id=902',
  '/pages/admin/comptesService?secret=901',
  // Import and export (tests/e2e/fixtures.sql): the upload, a kept preview with an error, an import done.
  '/pages/admin/import/950',
  '/pages/admin/import/951',
  // Access requests (tests/e2e/fixtures.sql): the list, and one request with its decision forms.
  '/pages/admin/demandes/960',
  // Access reviews (tests/e2e/fixtures.sql): the campaigns and their form, one campaign with its posts.
  '/pages/admin/revues/970',
  // Webhooks (tests/e2e/fixtures.sql): a subscription stopped by the portal, its edit and renewal panels, a deletion's
  // confirmation, and its delivery log (a delivery of each state).
  '/pages/admin/webhooks?modifier=980',
  '/pages/admin/webhooks?secret=980',
  '/pages/admin/webhooks?confirmer=supprimer&id=980',
  '/pages/admin/webhooks/980',
]

/**
 * Each page with JavaScript and without: a pair, so that `MODES[0]` is a mode, not possibly undefined.
 * @type {[Mode, Mode]}
 */
export const MODES = [
  { name: 'with JavaScript', javaScriptEnabled: true },
  { name: 'without JavaScript', javaScriptEnabled: false },
]

/**
 * Passes the human verification as a person would: ticks the ALTCHA box and waits for the proof of
 * work, or, without JavaScript, answers the arithmetic question shown instead.
 * @param {Page} page
 * @param {Scripting} mode
 * @returns {Promise<void>}
 */
export async function passCaptcha(page, { javaScriptEnabled }) {
  if (javaScriptEnabled) {
    await page.getByRole('checkbox').first().click()
    await until(
      page,
      () => /** @type {HTMLInputElement | null} */ (document.querySelector('input[name="captcha"]'))?.value,
      null,
      'no proof of work',
      20_000,
    )
    return
  }
  const label = await page.locator('label[for="captchaAnswer"]').textContent()
  const [, a, b] = /(\d+)\s*\+\s*(\d+)/.exec(label ?? '') ?? []
  assert.ok(a && b, `no captcha question in "${label}"`)
  await page.locator('#captchaAnswer').fill(String(Number(a) + Number(b)))
}

/**
 * Fills the login form and submits it; the caller asserts where it lands.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} identifiant
 * @param {string} motDePasse
 * @param {{ captcha?: boolean }} [options] `captcha: false` leaves the human verification alone
 * @returns {Promise<void>}
 */
export async function submitLogin(page, mode, identifiant, motDePasse, { captcha = true } = {}) {
  await page.getByLabel(/Identifiant|Username/).fill(identifiant)
  await page.getByLabel(/Mot de passe|Password/).fill(motDePasse)
  if (captcha) await passCaptcha(page, mode)
  await page.getByRole('button', { name: /^(Se connecter|Sign in)$/ }).click()
}

/**
 * Signs in as a person does, from the login page at `path` (its form filled and sent, the verification passed), and
 * waits for the page it lands on under `/pages/`. For the tests of the sign-in itself; `signIn` is the quick way in.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} identifiant
 * @param {string} motDePasse
 * @param {string} [path]
 * @returns {Promise<void>}
 */
export async function signInByForm(page, mode, identifiant, motDePasse, path = '/login') {
  await page.goto(path)
  await submitLogin(page, mode, identifiant, motDePasse)
  await page.waitForURL((url) => url.pathname.startsWith('/pages/'))
  // With JavaScript the address changes a moment before the new page replaces the login form (whose
  // own <main> has an <h1> too): wait for the form to go.
  await page.locator('form#login').waitFor({ state: 'detached' })
  await page.locator('main h1').waitFor()
}

/**
 * Signs the page's browser in, for a test whose subject comes after: the login form at `path` is read and sent by the
 * context's own client (its cookies, its browser's name), as the page without JavaScript sends it (the verification's
 * question answered), then the page opens where the portal sends it, under `/pages/`. The same session as a sign-in by
 * the form, without drawing the login page and waiting for its proof of work: the suite signs in some 200 times.
 * @param {Page} page
 * @param {Scripting} _mode how the page is then browsed (the form is the same either way)
 * @param {string} identifiant
 * @param {string} motDePasse
 * @param {string} [path]
 * @returns {Promise<void>}
 */
export async function signIn(page, _mode, identifiant, motDePasse, path = '/login') {
  const url = new URL(path, BASE_URL)
  const client = page.context().request
  const html = await (await client.get(url.href)).text()
  const question = /name="captchaQuestion" value="([^"]*)"/.exec(html)?.[1]
  const [, a, b] = /for="captchaAnswer"[^>]*>[^<]*?(\d+)\s*\+\s*(\d+)/.exec(html) ?? []
  assert.ok(question && a && b, `no verification question on ${url.href}`)
  const answer = await client.post(url.href, {
    headers: { Origin: url.origin },
    form: {
      identifiant,
      motDePasse,
      redirect: url.searchParams.get('redirect') ?? '',
      captchaQuestion: question.replaceAll('&amp;', '&').replaceAll('&quot;', '"'),
      captchaAnswer: String(Number(a) + Number(b)),
    },
    maxRedirects: 0,
  })
  const landing = answer.headers().location
  assert.ok(
    answer.status() >= 300 && answer.status() < 400 && landing,
    `signing in as ${identifiant} answered ${answer.status()}, no redirect`,
  )
  await page.goto(new URL(landing, url).href)
  assert.ok(new URL(page.url()).pathname.startsWith('/pages/'), `signed in as ${identifiant}, landed on ${page.url()}`)
  await page.locator('main h1').waitFor()
}

/**
 * Asks for a password-reset mail through the public API, as a script would (answering the no-JS
 * question), and returns the link the development mailbox shows for it.
 * @param {string} mail
 * @returns {Promise<string>}
 */
export async function resetLinkFor(mail) {
  const api = `${BASE_URL}/portail-backend/rest`
  const asked = Date.now() - 1000
  const question = await (await fetch(`${api}/public/bd/captcha/question`)).json()
  const captcha = btoa(JSON.stringify({ question: question.question, answer: String(question.a + question.b) }))
  const forgot = await fetch(`${api}/public/bd/password/forgot/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ mail, domain: BASE_URL, captcha }),
  })
  assert.equal(forgot.status, 204)
  // The mail is looked up and written after the answer (so that its timing tells nothing): wait for it.
  const newest = await waitFor(async () => {
    const mails = /** @type {DevMailSummary[]} */ (await (await fetch(`${api}/dev/mails`)).json())
    return mails.find((m) => m.to === mail && m.kind === 'PASSWORD_RESET' && Date.parse(m.createdAt) >= asked)
  }, `no reset mail to ${mail}`)
  const { links } = await (await fetch(`${api}/dev/mails/${newest.id}`)).json()
  return links[0]
}

/**
 * Holds the page's scripts back, as a slow connection does, until the returned function is called:
 * what is typed meanwhile goes into the server-rendered page, before React takes it over.
 * @param {Page} page
 * @returns {Promise<() => void>}
 */
export async function holdScripts(page) {
  let release = () => {}
  /** @type {Promise<void>} */
  const held = new Promise((resolve) => {
    release = resolve
  })
  await page.route('**/assets/**/*.js', async (route) => {
    await held
    await route.continue()
  })
  return release
}

/**
 * Polls `probe` until it returns something (10 s at most), for what the server does after answering.
 * @template T
 * @param {() => T | Promise<T>} probe
 * @param {string} message
 * @param {number} [timeoutMs]
 * @returns {Promise<NonNullable<Awaited<T>>>}
 */
export async function waitFor(probe, message, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found) return found
    assert.ok(Date.now() < deadline, message)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Polls `fn` in the page until it returns something (30 s at most). A page that runs no scripts too, and
 * across a navigation, the replaced document counting as "not yet": waitForFunction has missed both.
 * @template R
 * @template [Arg=undefined]
 * @param {Page} page
 * @param {PageFunction<Arg, R>} fn run in the page with `arg`
 * @param {Arg} [arg] what `fn` is given (playwright's own types of it are not exported: `fn` is cast for evaluate)
 * @param {string} [message]
 * @param {number} [timeoutMs]
 * @returns {Promise<NonNullable<R>>} what `fn` returned, once truthy (a failed poll's `false` never comes back)
 */
export const until = (page, fn, arg, message = 'the page never got there', timeoutMs = 30_000) =>
  /** @type {Promise<NonNullable<R>>} */ (
    waitFor(() => page.evaluate(/** @type {any} */ (fn), arg).catch(() => false), message, timeoutMs)
  )

/**
 * Waits until `locator` holds the keyboard focus (the page settles after an action first).
 * @param {Locator} locator
 * @param {number} [timeoutMs]
 * @returns {Promise<boolean>}
 */
export const focused = (locator, timeoutMs = 10_000) =>
  waitFor(
    () =>
      locator.evaluate((element) => element === document.activeElement, null, { timeout: 1_000 }).catch(() => false),
    `the focus is not on ${locator}`,
    timeoutMs,
  )

/**
 * Waits until the browser has gone to the element the URL's fragment names, as it does once the page
 * and its stylesheets have loaded: that element is the document's target, and a frame has been drawn
 * since (the keyboard's path starts there from that frame's update on). Then a Tab goes on from that element.
 * @param {Page} page
 * @returns {Promise<void>}
 */
export async function cameBackAtFragment(page) {
  await page.waitForLoadState('load')
  const id = decodeURIComponent(new URL(page.url()).hash.slice(1))
  assert.notEqual(id, '', `no fragment in ${page.url()}`)
  // Locators run in the browser's own world, JavaScript off for the page or not.
  const target = page.locator(':target')
  await waitFor(async () => (await target.count()) === 1 && (await target.getAttribute('id')) === id, `not at #${id}`)
  // A frame drawn: the browser goes to the fragment's element in the frame's update (a screenshot asks
  // for one whether the page runs scripts or not).
  await page.screenshot({ clip: { x: 0, y: 0, width: 1, height: 1 } })
}

/**
 * A notice: a toast with JavaScript, the server-rendered banner without.
 * @param {Page} page
 * @param {string | RegExp} text
 * @returns {Locator}
 */
export const notice = (page, text) =>
  page.locator('[data-sonner-toast], [role="status"]').filter({ hasText: text }).first()

/**
 * Opens the newest mail to `to` in the development mailbox and returns its first link. Some mails are
 * written after the answer (the forgotten-password one): the mailbox is read again until it is there.
 * @param {Page} page
 * @param {string} to
 * @param {string} subject
 * @returns {Promise<Locator>}
 */
export async function linkFromMailbox(page, to, subject) {
  const mail = () => page.getByRole('row').filter({ hasText: to }).first().getByRole('link', { name: subject })
  for (let attempt = 0; ; attempt++) {
    await page.goto('/dev/mails')
    await page.getByRole('heading', { name: 'Boîte mail de développement' }).waitFor()
    if ((await mail().count()) > 0 || attempt === 40) break
    await page.waitForTimeout(250)
  }
  await mail().click()
  await page.getByRole('heading', { name: subject, level: 1 }).waitFor()
  return page.getByRole('region', { name: 'Liens du message' }).getByRole('link').first()
}

/**
 * The TOTP code (RFC 6238: HMAC-SHA-1, 30-second steps, 6 digits) of a base32 secret (spaces
 * ignored) for a time step, the current one unless given: what an authenticator app shows.
 * @param {string} secret
 * @param {number} [step]
 * @returns {string}
 */
export function totpCode(secret, step = totpStep()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  const bytes = []
  let bits = 0
  let value = 0
  for (const char of secret.replace(/[\s=]/g, '').toUpperCase()) {
    const index = alphabet.indexOf(char)
    assert.ok(index >= 0, `not base32: ${char}`)
    value = ((value << 5) | index) & 0xffff
    bits += 5
    if (bits >= 8) {
      bits -= 8
      bytes.push((value >> bits) & 0xff)
    }
  }
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(step))
  const digest = createHmac('sha1', Buffer.from(bytes)).update(counter).digest()
  // A SHA-1 digest is 20 bytes long.
  const offset = /** @type {number} */ (digest[19]) & 0x0f
  return String((digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}

/**
 * The current TOTP time step (30 s).
 * @param {number} [at] a time in milliseconds since the epoch, now unless given
 * @returns {number}
 */
export const totpStep = (at = Date.now()) => Math.floor(at / 30_000)

/**
 * A code the server will take after the step `last` it accepted: the first step after it, once that
 * is no further than the next step (the server accepts one step either side of its own, never one at
 * or before the last accepted). Returns the code and its step.
 * @param {string} secret
 * @param {number} [last]
 * @returns {Promise<{ code: string, step: number }>}
 */
export async function nextTotpCode(secret, last = 0) {
  for (;;) {
    const now = totpStep()
    const step = Math.max(now, last + 1)
    if (step <= now + 1) return { code: totpCode(secret, step), step }
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

/** The secret of the fixture accounts whose authenticator app is on (tests/e2e/fixtures.sql). @type {string} */
export const FIXTURE_TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'

/**
 * The `n`th (1 to 4) recovery code of a fixture account with an authenticator app (tests/e2e/fixtures.sql).
 * @param {number} id
 * @param {1 | 2 | 3 | 4} n
 * @returns {string}
 */
export const fixtureRecoveryCode = (id, n) => `code-0${id}-000${n}-test`

/**
 * The second step of a sign-in, once the right password is sent: its heading, in either language.
 * @param {Page} page
 * @returns {Locator}
 */
export const secondStepHeading = (page) =>
  page.getByRole('heading', { name: /^(Vérification en deux étapes|Two-step verification)$/, level: 1 })

/**
 * Signs in a user with a second factor: the password, then at the second step `code` (a TOTP code or a
 * recovery code). Lands on `/pages/...`.
 * @param {Page} page
 * @param {Scripting} mode
 * @param {string} identifiant
 * @param {string} motDePasse
 * @param {string} code
 * @param {string} [path]
 * @returns {Promise<void>}
 */
export async function signInWithCode(page, mode, identifiant, motDePasse, code, path = '/login') {
  await page.goto(path)
  await submitLogin(page, mode, identifiant, motDePasse)
  await secondStepHeading(page).waitFor()
  await page.locator('#login-code').fill(code)
  await page.getByRole('button', { name: /^(Vérifier et se connecter|Verify and sign in)$/ }).click()
  await page.waitForURL((url) => url.pathname.startsWith('/pages/'))
  await page.locator('#login-code').waitFor({ state: 'detached' })
  await page.locator('main h1').waitFor()
}
