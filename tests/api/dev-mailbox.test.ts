import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from './client'
import { call, createOrganisation, createUser, db, expectError, ORIGIN, post, solvedCaptcha } from './helpers'
import { openApiDocument } from './openapi-document'

beforeAll(createOrganisation)

const development = { env: { ENVIRONMENT: 'development' } }
const devApi = () => api(undefined, development.env).rest.dev.mails
const mailOf = (user: { login: string }) => `${user.login}@example.test`

/** Asks for a reset mail for a new user; returns the user and the id of the mail. */
async function resetMailFor(init: Parameters<typeof call>[1] = {}) {
  const user = await createUser()
  const response = await post(
    '/rest/public/bd/password/forgot/',
    { mail: mailOf(user), domain: ORIGIN, captcha: await solvedCaptcha() },
    init,
  )
  expect(response.status).toBe(204)
  const { id } = await db()
    .selectFrom('outbox')
    .select('id')
    .where('utilisateur_id', '=', user.id)
    .executeTakeFirstOrThrow()
  return { user, id }
}

describe('the development mailbox (ENVIRONMENT=development)', () => {
  it('lists the mails newest first with their delivery state', async () => {
    const older = await resetMailFor()
    const newer = await resetMailFor()
    const list = await okBody(devApi().$get())
    expect(list.slice(0, 2).map((m) => m.id)).toEqual([newer.id, older.id])
    const ids = list.map((m) => m.id)
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    expect(Object.keys(list[0] as object).sort()).toEqual(
      ['attempts', 'createdAt', 'id', 'kind', 'lastError', 'sentAt', 'subject', 'to'].sort(),
    )
    expect(list[0]).toMatchObject({
      id: newer.id,
      to: mailOf(newer.user),
      subject: 'Réinitialisation de votre mot de passe',
      kind: 'PASSWORD_RESET',
      attempts: 1,
      lastError: null,
    })
    expect(list[0]?.sentAt).toEqual(expect.any(String))
    expect(Date.parse(list[0]?.createdAt ?? '')).not.toBeNaN()
  })

  it('shows one mail whole, with the reset link to follow', async () => {
    const { user, id } = await resetMailFor()
    const mail = await okBody(devApi()[':id{[0-9]+}'].$get({ param: { id: String(id) } }))
    expect(mail).toMatchObject({ id, to: mailOf(user), subject: 'Réinitialisation de votre mot de passe' })
    expect(mail.links).toHaveLength(1)
    const link = mail.links[0] as string
    expect(link).toMatch(/^http:\/\/localhost:8787\/renewPassword\/[A-Za-z0-9_-]+$/)
    expect(mail.text).toContain(link)
    expect(mail.html).toContain(`href="${link}"`)
    // Following the link works: the token in it is the live one.
    const token = link.split('/').at(-1) as string
    const lookup = await call(`/rest/public/bd/password/token/${token}`)
    expect(lookup.status).toBe(200)
    expect(await lookup.json()).toEqual({ mail: mailOf(user), actif: true, supprime: false })
  })

  it('serves the HTML part under a CSP that runs no script and may only be framed by the portal', async () => {
    const { id } = await resetMailFor()
    const response = await call(`/rest/dev/mails/${id}/html`, development)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toMatch(/^text\/html/)
    const csp = response.headers.get('Content-Security-Policy') ?? ''
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("frame-ancestors 'self'")
    expect(csp).not.toMatch(/script-src/)
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')
    const html = await response.text()
    expect(html).toContain('/renewPassword/')
    // Links leave the frame rather than opening inside it.
    expect(html).toContain('<base target="_blank">')
  })

  it('answers 404 NOT_FOUND for an unknown mail', async () => {
    for (const path of ['/rest/dev/mails/999999', '/rest/dev/mails/999999/html']) {
      await expectError(await call(path, development), 404, 'NOT_FOUND')
    }
  })
})

describe('the development mailbox elsewhere', () => {
  it.each(['test', 'production'])('does not exist with ENVIRONMENT=%s: 404 NOT_FOUND', async (environment) => {
    const { id } = await resetMailFor()
    for (const path of ['/rest/dev/mails', `/rest/dev/mails/${id}`, `/rest/dev/mails/${id}/html`]) {
      const response = await call(path, { env: { ENVIRONMENT: environment } })
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
      await expectError(response, 404, 'NOT_FOUND')
    }
  })

  it('does not exist without ENVIRONMENT set', async () => {
    const { id } = await resetMailFor()
    await expectError(await call(`/rest/dev/mails/${id}`, { env: { ENVIRONMENT: undefined } }), 404, 'NOT_FOUND')
  })

  it('is absent from /openapi.json', async () => {
    for (const init of [{}, development]) {
      const doc = await openApiDocument(await call('/openapi.json', init))
      const paths = Object.keys(doc.paths)
      expect(paths).toContain('/portail-backend/rest/public/bd/password/forgot/')
      expect(paths.filter((path) => path.includes('/rest/dev'))).toEqual([])
    }
  })
})
