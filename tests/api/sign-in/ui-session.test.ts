import { env } from 'cloudflare:test'
import jwt from '@tsndr/cloudflare-worker-jwt'
import { beforeAll, describe, expect, it } from 'vitest'
import { read, userApi } from '../../../app/lib/api.server'
import { endSession, requireAdmin, requireUser } from '../../../app/lib/auth.server'
import { getSession } from '../../../app/lib/session.server'
import { createOrganisation, createUser, currentPost, db, signIn, uiContext } from '../helpers'

beforeAll(createOrganisation)

const context = uiContext

/** The browser session of a signed-in user whose access token has expired. */
async function expiredSession() {
  const user = await createUser()
  const { jwt: tokens } = await signIn(user.login, user.password)
  const { sid } = jwt.decode<{ sid: string }>(tokens.accessToken).payload as { sid: string }
  const past = Math.floor(Date.now() / 1000) - 3600
  const expired = await jwt.sign(
    {
      sub: String(user.id),
      admin: false,
      domain: 'http://localhost:8787',
      sid,
      iss: 'portail',
      aud: 'portail',
      iat: past,
      exp: past + 300,
    },
    env.JWT_SECRET,
    { algorithm: 'HS256' },
  )
  const request = new Request('http://localhost:8787/pages/user/acces')
  const session = await getSession(request, context)
  session.session.set('accessToken', expired)
  session.session.set('refreshToken', tokens.refreshToken)
  session.session.set('user', { id: user.id, login: user.login, nom: 'N', prenom: 'P', admin: false })
  return { user, tokens, request, session, sid }
}

describe('the UI calling the API as the signed-in user (spec §4)', () => {
  it('refreshes an expired access token once, retries, and keeps the rotated tokens', async () => {
    const { user, tokens, request, session } = await expiredSession()
    const { api, state } = userApi(request, context, session)
    const result = await read(api.rest.bd.utilisateur[':id'].$get({ param: { id: user.id }, query: {} }))
    expect(result.ok && result.data.id).toBe(user.id)
    expect(state.refreshed).toBe(true)
    expect(session.session.get('refreshToken')).not.toBe(tokens.refreshToken)
    // The rotated pair survives the round trip through the cookie.
    const cookie = (await session.commit()).split(';')[0] as string
    const again = await getSession(new Request(request.url, { headers: { Cookie: cookie } }), context)
    expect(again.session.get('refreshToken')).toBe(session.session.get('refreshToken'))
  })

  it('gives up after one failed refresh when the session was revoked', async () => {
    const { user, request, session, sid } = await expiredSession()
    await db()
      .updateTable('refresh_token')
      .set({ revoked_at: new Date().toISOString() })
      .where('family_id', '=', sid)
      .execute()
    const { api, state } = userApi(request, context, session)
    const result = await read(api.rest.bd.utilisateur[':id'].$get({ param: { id: user.id }, query: {} }))
    expect(result.status).toBe(401)
    expect(state.failed).toBe(true)
    expect(state.refreshed).toBe(false)
  })
})

/** A browser session of a fresh sign-in, the cookie's copy of the user saying `admin`. */
async function browserRequest(
  user: { id: number; login: string; password: string },
  admin: boolean,
  path = '/pages/admin/listeStructures',
) {
  const { jwt: tokens } = await signIn(user.login, user.password)
  const session = await getSession(new Request('http://localhost:8787/'), context)
  session.session.set('accessToken', tokens.accessToken)
  session.session.set('refreshToken', tokens.refreshToken)
  session.session.set('user', { id: user.id, login: user.login, nom: 'N', prenom: 'P', admin })
  const cookie = (await session.commit()).split(';')[0] as string
  return new Request(`http://localhost:8787${path}`, { headers: { Cookie: cookie } })
}

describe('requireAdmin', () => {
  it('reads the admin flag from the API: an admin demoted since signing in is sent to their access page', async () => {
    const user = await createUser({ admin: true })
    const request = await browserRequest(user, true)
    await db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', user.id).execute()
    const thrown = await requireAdmin(request, context).catch((error: unknown) => error)
    expect((thrown as Response).status).toBe(302)
    expect((thrown as Response).headers.get('Location')).toBe('/pages/user/acces')
  })

  it('lets in a user made admin since signing in', async () => {
    const user = await createUser()
    const request = await browserRequest(user, false)
    await db().updateTable('utilisateur').set({ admin: 1 }).where('id', '=', user.id).execute()
    const auth = await requireAdmin(request, context)
    expect(auth.user.id).toBe(user.id)
  })
})

describe("requireAdmin with the page's reads", () => {
  it('sends an admin demoted since signing in to their access page, whatever their page’s own call was answered', async () => {
    const user = await createUser({ admin: true })
    const request = await browserRequest(user, true)
    await db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', user.id).execute()
    const thrown = await requireAdmin(request, context, {
      read: (auth) => auth.expect(auth.api.rest.bd.accueil.$get({ query: {} })),
    }).catch((error: unknown) => error)
    expect((thrown as Response).status).toBe(302)
    expect((thrown as Response).headers.get('Location')).toBe('/pages/user/acces')
  })

  it('gives an administrator the page’s data', async () => {
    const user = await createUser({ admin: true, postes: [currentPost(4, 2)] })
    const request = await browserRequest(user, true)
    const { auth, data } = await requireAdmin(request, context, {
      read: (auth) => auth.expect(auth.api.rest.bd.accueil.$get({ query: {} })),
    })
    expect(auth.user.id).toBe(user.id)
    expect(data.utilisateurs.avecPoste).toBeGreaterThan(0)
  })
})

describe('the root-only pages', () => {
  it('refuse an administrator of a sub-tree by their path alone, their forms’ posts too, saying why', async () => {
    const user = await createUser({ admin: true, postes: [currentPost(4, 2)] })
    for (const path of ['/pages/admin/applications', '/pages/admin/modeles/3', '/pages/admin/securite']) {
      const request = await browserRequest(user, true, path)
      const read = await requireAdmin(request, context, {
        read: (auth) => auth.expect(auth.api.rest.bd.accueil.$get({ query: {} })),
      }).catch((error: unknown) => error)
      expect((read as Response).status, path).toBe(403)
      expect(await (read as Response).text(), path).toBe('ROOT_ONLY')
      const post = new Request(request, { method: 'POST' })
      const guarded = await requireAdmin(post, context).catch((error: unknown) => error)
      expect((guarded as Response).status, path).toBe(403)
    }
    // Its own pages stay open to it.
    const home = await browserRequest(user, true, '/pages/admin')
    expect((await requireAdmin(home, context)).user.id).toBe(user.id)
  })

  it('let an administrator of the whole tree in', async () => {
    const user = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const request = await browserRequest(user, true, '/pages/admin/applications')
    const { auth } = await requireAdmin(request, context, {
      read: (auth) => auth.expect(auth.api.rest.bd.accueil.$get({ query: {} })),
    })
    expect(auth.user.id).toBe(user.id)
  })
})

describe('requireUser', () => {
  it('sends a visitor without a session to /login with the wanted path', async () => {
    const request = new Request('http://localhost:8787/pages/user/me?tab=2')
    const thrown = await requireUser(request, context).catch((error: unknown) => error)
    expect(thrown).toBeInstanceOf(Response)
    const location = (thrown as Response).headers.get('Location') ?? ''
    expect(location).toBe('/login?redirect=%2Fpages%2Fuser%2Fme%3Ftab%3D2')
  })

  it('ends at /login and clears the cookie when the API no longer accepts the session', async () => {
    const { user, session, sid } = await expiredSession()
    await db()
      .updateTable('refresh_token')
      .set({ revoked_at: new Date().toISOString() })
      .where('family_id', '=', sid)
      .execute()
    const cookie = (await session.commit()).split(';')[0] as string
    const request = new Request('http://localhost:8787/pages/user/acces', { headers: { Cookie: cookie } })
    const auth = await requireUser(request, context)
    const thrown = await auth
      .expect(auth.api.rest.bd.utilisateur[':id'].$get({ param: { id: user.id }, query: {} }))
      .catch((error: unknown) => error)
    expect((thrown as Response).status).toBe(302)
    expect((thrown as Response).headers.get('Location')).toBe('/login?redirect=%2Fpages%2Fuser%2Facces')
    expect((thrown as Response).headers.get('Set-Cookie')).toMatch(
      /portail-session=;.*Max-Age=0|Expires=Thu, 01 Jan 1970/,
    )
  })
})

describe('endSession', () => {
  it('revokes the session and logs DECONNEXION even when the access token has expired', async () => {
    const { user, session } = await expiredSession()
    const cookie = (await session.commit()).split(';')[0] as string
    const cleared = await endSession(
      new Request('http://localhost:8787/logout', { headers: { Cookie: cookie } }),
      context,
    )
    expect(cleared).toMatch(/^portail-session=;/)
    const live = await db()
      .selectFrom('refresh_token')
      .select('id')
      .where('utilisateur_id', '=', user.id)
      .where('revoked_at', 'is', null)
      .execute()
    expect(live).toEqual([])
    const logs = await db().selectFrom('log').select('type_log').where('utilisateur_id', '=', user.id).execute()
    expect(logs.map((l) => l.type_log)).toContain('DECONNEXION')
  })

  it('does nothing without a session', async () => {
    expect(await endSession(new Request('http://localhost:8787/logout'), context)).toBeNull()
  })
})
