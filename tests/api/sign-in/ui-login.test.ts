import { beforeAll, describe, expect, it } from 'vitest'
import { getSession } from '../../../app/lib/session.server'
import { action, loader } from '../../../app/routes/login'
import { createOrganisation, createUser, db, signIn, uiContext } from '../helpers'

beforeAll(createOrganisation)

const context = uiContext

/** A browser with an open portal session: its cookie, and the user. */
async function signedInBrowser() {
  const user = await createUser()
  const { jwt, user: me } = await signIn(user.login, user.password)
  const session = await getSession(new Request('http://localhost:8787/login'), context)
  session.session.set('accessToken', jwt.accessToken)
  session.session.set('refreshToken', jwt.refreshToken)
  session.session.set('user', { id: user.id, login: user.login, nom: me.nom, prenom: 'P', admin: false })
  return { user, name: `P ${me.nom}`, cookie: (await session.commit()).split(';')[0] as string }
}

const visitLogin = (cookie: string, secFetchSite?: string, secFetchMode?: string) => {
  const headers = new Headers({ Cookie: cookie })
  if (secFetchSite) headers.set('Sec-Fetch-Site', secFetchSite)
  if (secFetchMode) headers.set('Sec-Fetch-Mode', secFetchMode)
  const request = new Request('http://localhost:8787/login', { headers })
  return loader({ request, context, params: {} } as Parameters<typeof loader>[0])
}

const liveTokens = async (userId: number) =>
  (
    await db()
      .selectFrom('refresh_token')
      .select('id')
      .where('utilisateur_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute()
  ).length

describe('GET /login with a session open in the browser', () => {
  for (const site of ['same-site', 'cross-site', undefined]) {
    it(`keeps the session and offers to continue or sign out (Sec-Fetch-Site: ${site ?? 'absent'})`, async () => {
      const { user, cookie } = await signedInBrowser()
      const response = await visitLogin(cookie, site)
      expect(response.init?.headers).toBeUndefined()
      expect(response.data).toMatchObject({ signedInAs: { login: user.login }, form: null })
      expect(await liveTokens(user.id)).toBe(1)
    })
  }

  it("keeps the session when the portal's own script reaches /login (the way back, Sec-Fetch-Mode: cors)", async () => {
    const { user, cookie } = await signedInBrowser()
    const response = await visitLogin(cookie, 'same-origin', 'cors')
    expect(response.data).toMatchObject({ signedInAs: { login: user.login }, form: null })
    expect(await liveTokens(user.id)).toBe(1)
  })

  for (const site of ['same-origin', 'none']) {
    it(`ends the session, saying whose, when the person opened the page themselves (Sec-Fetch-Site: ${site})`, async () => {
      const { user, name, cookie } = await signedInBrowser()
      const response = await visitLogin(cookie, site, 'navigate')
      expect(new Headers(response.init?.headers).get('Set-Cookie')).toMatch(/^portail-session=;/)
      expect(response.data).toMatchObject({ signedInAs: null, form: { ended: name } })
      expect(await liveTokens(user.id)).toBe(0)
    })
  }

  it('shows the sign-in form and clears the cookie of a session the API no longer accepts', async () => {
    const { user, cookie } = await signedInBrowser()
    await db()
      .updateTable('refresh_token')
      .set({ revoked_at: new Date().toISOString() })
      .where('utilisateur_id', '=', user.id)
      .execute()
    const response = await visitLogin(cookie, 'cross-site')
    expect(response.data).toMatchObject({ signedInAs: null })
    expect(response.data.form?.question).toBeDefined()
    expect(new Headers(response.init?.headers).get('Set-Cookie')).toMatch(/^portail-session=;/)
    expect(await liveTokens(user.id)).toBe(0)
  })
})

describe("POST /login: the page's forms", () => {
  const post = (fields: Record<string, string>) => {
    const body = new FormData()
    for (const [name, value] of Object.entries(fields)) body.set(name, value)
    const request = new Request('http://localhost:8787/login', { method: 'POST', body })
    return action({ request, context, params: {} } as Parameters<typeof action>[0])
  }

  it('answers a post that is none of its forms with a 400, never a 500', async () => {
    const refused = await post({ intent: 'bogus', identifiant: 'agent' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(Response)
    expect((refused as Response).status).toBe(400)
  })

  it('shows the second step again, its challenge kept and the code not sent back, when the code is empty', async () => {
    const reply = await post({
      intent: 'mfa',
      challenge: 'c'.repeat(43),
      identifiant: 'agent',
      methodes: 'totp,x',
      code: ' ',
    })
    expect(reply).toMatchObject({
      init: { status: 400 },
      data: {
        intent: 'mfa',
        error: { key: 'validation.required' },
        shown: { challenge: 'c'.repeat(43), identifiant: 'agent', methodes: ['totp'] },
      },
    })
    expect(
      (reply as { data: { result: { initialValue: Record<string, unknown> } } }).data.result.initialValue,
    ).not.toHaveProperty('code')
  })
})
