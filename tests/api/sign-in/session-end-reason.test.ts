import { beforeAll, describe, expect, it } from 'vitest'
import {
  browserCookieOf,
  call,
  createOrganisation,
  createUser,
  currentPost,
  expectError,
  ORIGIN,
  refreshWith,
  sessionFor,
  signedInUser,
} from '../helpers'
import { worker_ } from '../oidc-rp'

/**
 * A browser whose session was ended elsewhere is told why: the refresh that finds it ended names the
 * reason (`attributs: [{fin}]`), and the sign-in page it lands on says it, in the user's language.
 */

beforeAll(createOrganisation)

async function twoSessions() {
  const user = await createUser({ postes: [currentPost(4, 2)] })
  return { user, here: await sessionFor(user.id), there: await sessionFor(user.id) }
}

const reasonOf = async (refreshToken: string) =>
  (await expectError(await refreshWith(refreshToken), 401, 'INVALID_REFRESH_TOKEN')).attributs

describe('the refresh of a session ended elsewhere', () => {
  it('names another device when the user ended it from another session, or all the others', async () => {
    const one = await twoSessions()
    await call(`/rest/bd/session/${one.there.sid}`, { method: 'DELETE', token: one.here.accessToken })
    expect(await reasonOf(one.there.refreshToken)).toEqual([{ fin: 'AUTRE_APPAREIL' }])

    const all = await twoSessions()
    expect((await call('/rest/bd/session/autres', { method: 'DELETE', token: all.here.accessToken })).status).toBe(204)
    expect(await reasonOf(all.there.refreshToken)).toEqual([{ fin: 'AUTRE_APPAREIL' }])
  })

  it('names another device when the password was changed in another session', async () => {
    const { user, here, there } = await twoSessions()
    const changed = await call('/rest/bd/utilisateur/updatePassword', {
      method: 'PUT',
      token: here.accessToken,
      body: JSON.stringify({ oldPassword: user.password, newPassword: 'Nouveau12' }),
    })
    expect(changed.status).toBe(200)
    expect(await reasonOf(there.refreshToken)).toEqual([{ fin: 'AUTRE_APPAREIL' }])
  })

  it('names an administrator when one ended every session of the user', async () => {
    const { user, there } = await twoSessions()
    const admin = await signedInUser({ admin: true, postes: [currentPost(1, 1)] })
    const ended = await call(`/rest/bd/utilisateur/${user.id}/sessions`, {
      method: 'DELETE',
      token: admin.jwt.accessToken,
    })
    expect(ended.status).toBe(204)
    expect(await reasonOf(there.refreshToken)).toEqual([{ fin: 'ADMINISTRATEUR' }])
  })

  it('names nothing after a sign-out of its own', async () => {
    const { here } = await twoSessions()
    expect((await call('/rest/bd/logout', { method: 'POST', token: here.accessToken })).status).toBe(204)
    expect(await reasonOf(here.refreshToken)).toEqual([])
  })
})

describe('the page a browser of an ended session asks for', () => {
  for (const [language, acceptLanguage, words] of [
    ['French', 'fr-FR', ['Votre session a été terminée depuis un autre appareil', 'terminée par un administrateur']],
    ['English', 'en-US', ['Your session was ended from another device', 'An administrator ended your session']],
  ] as const) {
    it(`sends it to the sign-in, which says who ended it, in ${language}`, async () => {
      const { user, here, there } = await twoSessions()
      const cookie = await browserCookieOf({ ...user, ...there })
      await call(`/rest/bd/session/${there.sid}`, { method: 'DELETE', token: here.accessToken })
      const page = await worker_(`${ORIGIN}/pages/user/acces`, {
        headers: { Cookie: cookie, 'Accept-Language': acceptLanguage },
        redirect: 'manual',
      })
      expect(page.status).toBe(302)
      const login = new URL(page.headers.get('Location') as string, ORIGIN)
      expect(Object.fromEntries(login.searchParams)).toEqual({ redirect: '/pages/user/acces', fin: 'autre-appareil' })
      const shown = await (await worker_(login.toString(), { headers: { 'Accept-Language': acceptLanguage } })).text()
      expect(shown).toContain(words[0])

      const admin = await signedInUser({ admin: true, postes: [currentPost(1, 1)] })
      const other = await twoSessions()
      const otherCookie = await browserCookieOf({ ...other.user, ...other.there })
      await call(`/rest/bd/utilisateur/${other.user.id}/sessions`, { method: 'DELETE', token: admin.jwt.accessToken })
      const byAdmin = await worker_(`${ORIGIN}/pages/user/me`, {
        headers: { Cookie: otherCookie, 'Accept-Language': acceptLanguage },
        redirect: 'manual',
      })
      const adminLogin = new URL(byAdmin.headers.get('Location') as string, ORIGIN)
      expect(adminLogin.searchParams.get('fin')).toBe('administrateur')
      const said = await (
        await worker_(adminLogin.toString(), { headers: { 'Accept-Language': acceptLanguage } })
      ).text()
      expect(said).toContain(words[1])
    })
  }

  it('says nothing of the kind on a plain visit of the sign-in page', async () => {
    const shown = await (await worker_(`${ORIGIN}/login`, { headers: { 'Accept-Language': 'fr-FR' } })).text()
    expect(shown).not.toContain('Votre session a été terminée')
  })
})
