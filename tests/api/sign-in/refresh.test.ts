import { beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../../worker-api/lib/crypto'
import { api, okBody } from '../client'
import { createOrganisation, db, expectError, getUserAs, post, refreshWith, signedInUser, signIn } from '../helpers'

beforeAll(createOrganisation)

/** refreshWith, through the typed client. */
const refreshed = (refreshToken: string) => api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken } })

/** Edits the stored row of a refresh token (tokens are stored as their SHA-256). */
const updateToken = async (
  token: string,
  values: { rotated_at?: string; expires_at?: string; family_expires_at?: string },
) =>
  db()
    .updateTable('refresh_token')
    .set(values)
    .where('token_hash', '=', await sha256Hex(token))
    .execute()

/** The refresh tokens (not launch codes) a user's sessions hold. */
const sessionTokenCount = async (userId: number) =>
  (
    await db()
      .selectFrom('refresh_token')
      .select('id')
      .where('utilisateur_id', '=', userId)
      .where('kind', '=', 'SESSION')
      .execute()
  ).length

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()

describe('POST /rest/public/bd/login/refreshToken', () => {
  it('returns a new token pair whose access token works and whose refresh token is new', async () => {
    const user = await signedInUser()
    const response = await refreshed(user.jwt.refreshToken)
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const tokens = await okBody(response)
    expect(Object.keys(tokens).sort()).toEqual(['accessToken', 'expiresInMsec', 'refreshToken'])
    expect(tokens.expiresInMsec).toBe(300_000)
    expect(tokens.refreshToken).not.toBe(user.jwt.refreshToken)

    const me = await getUserAs(tokens.accessToken, user.id)
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ id: user.id, login: user.login })

    // The rotated token keeps rotating.
    const again = await refreshWith(tokens.refreshToken)
    expect(again.status).toBe(200)
  })

  it('answers 401 INVALID_REFRESH_TOKEN for an unknown token', async () => {
    await expectError(await refreshWith('not-a-token-we-issued'), 401, 'INVALID_REFRESH_TOKEN')
  })

  it('answers a retry within the grace window with the pair already issued, never a second one', async () => {
    const user = await signedInUser()
    const issued = await okBody(refreshed(user.jwt.refreshToken))
    const retry = await refreshWith(user.jwt.refreshToken)
    expect(retry.status).toBe(200)
    expect(await retry.json()).toEqual(issued)
    expect((await getUserAs(issued.accessToken, user.id)).status).toBe(200)
    expect(await sessionTokenCount(user.id)).toBe(2)
  })

  it('gives concurrent uses of one refresh token the same successor: the session does not fork', async () => {
    const user = await signedInUser()
    const responses = await Promise.all([1, 2, 3, 4].map(() => refreshed(user.jwt.refreshToken)))
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200])
    const pairs = await Promise.all(responses.map((response) => okBody(response)))
    expect(new Set(pairs.map((pair) => pair.refreshToken)).size).toBe(1)
    expect(new Set(pairs.map((pair) => pair.accessToken)).size).toBe(1)
    // One successor stored; it rotates on as usual.
    expect(await sessionTokenCount(user.id)).toBe(2)
    expect((await refreshWith(pairs[0]!.refreshToken)).status).toBe(200)
  })

  it('keeps no readable copy of the successor: only the token presented can open it', async () => {
    const user = await signedInUser()
    const issued = await okBody(refreshed(user.jwt.refreshToken))
    const rows = await db().selectFrom('refresh_token').selectAll().where('utilisateur_id', '=', user.id).execute()
    const stored = JSON.stringify(rows)
    expect(stored).not.toContain(issued.refreshToken)
    expect(stored).not.toContain(issued.accessToken)
  })

  it('answers 401 REFRESH_TOKEN_REUSED to a rotated token after the grace window and revokes the session', async () => {
    const user = await signedInUser()
    const rotated = await okBody(refreshed(user.jwt.refreshToken))
    await updateToken(user.jwt.refreshToken, { rotated_at: minutesAgo(1) })

    await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_REUSED')
    // The whole family is gone: the newest refresh token and the session's access tokens.
    await expectError(await refreshWith(rotated.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    expect((await getUserAs(user.jwt.accessToken, user.id)).status).toBe(401)
    expect((await getUserAs(rotated.accessToken, user.id)).status).toBe(401)
  })

  it('leaves the other sessions of the user alone when one family is revoked', async () => {
    const user = await signedInUser()
    const other = await signIn(user.login, user.password)
    await refreshWith(user.jwt.refreshToken)
    await updateToken(user.jwt.refreshToken, { rotated_at: minutesAgo(1) })
    await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_REUSED')
    expect((await getUserAs(other.jwt.accessToken, user.id)).status).toBe(200)
    expect((await refreshWith(other.jwt.refreshToken)).status).toBe(200)
  })

  it('answers 401 REFRESH_TOKEN_EXPIRED to a token idle for too long', async () => {
    const user = await signedInUser()
    await updateToken(user.jwt.refreshToken, { expires_at: minutesAgo(1) })
    await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED')
  })

  it('answers 401 REFRESH_TOKEN_EXPIRED once the session is past its absolute expiry', async () => {
    const user = await signedInUser()
    await updateToken(user.jwt.refreshToken, { family_expires_at: minutesAgo(1) })
    await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED')
  })

  it('answers 403 USER_DISABLED for a user disabled since sign-in, and revokes the session', async () => {
    const user = await signedInUser()
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', user.id).execute()
    await expectError(await refreshWith(user.jwt.refreshToken), 403, 'USER_DISABLED')
    await db().updateTable('utilisateur').set({ actif: 1 }).where('id', '=', user.id).execute()
    await expectError(await refreshWith(user.jwt.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
  })

  it('answers 400 VALIDATION_FAILED for a missing or empty token', async () => {
    const body = await expectError(await post('/rest/public/bd/login/refreshToken', {}), 400, 'VALIDATION_FAILED')
    expect(body.attributs).toEqual([expect.objectContaining({ field: 'refreshToken' })])
    await expectError(await refreshWith(''), 400, 'VALIDATION_FAILED')
    await expectError(await post('/rest/public/bd/login/refreshToken', { refreshToken: 12 }), 400, 'VALIDATION_FAILED')
  })
})
