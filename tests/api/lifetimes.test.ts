import { beforeAll, describe, expect, it } from 'vitest'
import { ACCESS_TOKEN_TTL_SECONDS } from '../../worker-api/lib/jwt'
import { LAUNCH_CODE_TTL_SECONDS } from '../../worker-api/services/access'
import { REFRESH_ABSOLUTE_SECONDS, REFRESH_IDLE_SECONDS, REUSE_GRACE_SECONDS } from '../../worker-api/services/auth'
import {
  call,
  createOrganisation,
  currentPost,
  expectError,
  getUserAs,
  refreshWith,
  signedInUser,
  withFrozenClock,
} from './helpers'

beforeAll(createOrganisation)

type Tokens = { accessToken: string; refreshToken: string; expiresInMsec: number }

/** Seconds on either side of a limit: far from it for the API, never a timed assertion. */
const MARGIN = 5
const MINUTE = 60

async function refreshed(refreshToken: string): Promise<Tokens> {
  const response = await refreshWith(refreshToken)
  expect(response.status).toBe(200)
  return (await response.json()) as Tokens
}

describe('the session lifetimes of DESIGN §3 and §4', () => {
  it('are 5 min (access token), 60 s (launch code), 30 min idle, 10 h in all, 10 s of grace', () => {
    expect(ACCESS_TOKEN_TTL_SECONDS).toBe(300)
    expect(LAUNCH_CODE_TTL_SECONDS).toBe(60)
    expect(REFRESH_IDLE_SECONDS).toBe(1800)
    expect(REFRESH_ABSOLUTE_SECONDS).toBe(36_000)
    expect(REUSE_GRACE_SECONDS).toBe(10)
  })
})

describe('access token (5 minutes)', () => {
  it('works 4 min 55 s after sign-in and answers 401 INVALID_TOKEN 5 min 5 s after', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      expect(user.jwt.expiresInMsec).toBe(ACCESS_TOKEN_TTL_SECONDS * 1000)

      clock.advance(ACCESS_TOKEN_TTL_SECONDS - MARGIN)
      expect((await getUserAs(user.jwt.accessToken, user.id)).status).toBe(200)

      clock.advance(2 * MARGIN)
      await expectError(await getUserAs(user.jwt.accessToken, user.id), 401, 'INVALID_TOKEN')
      // The session itself lives on: a refresh gives a working access token.
      const tokens = await refreshed(user.jwt.refreshToken)
      expect((await getUserAs(tokens.accessToken, user.id)).status).toBe(200)
    })
  })
})

describe('launch code (60 seconds)', () => {
  const launchCode = async (accessToken: string) => {
    const response = await call('/rest/bd/acces/application?idApplication=2', { token: accessToken })
    expect(response.status).toBe(200)
    return ((await response.json()) as { refreshToken: string }).refreshToken
  }

  it('is exchanged 55 s after it was issued and refused with 401 INVALID_REFRESH_TOKEN 65 s after', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser({ postes: [currentPost(4, 2)] })
      const early = await launchCode(user.jwt.accessToken)
      const late = await launchCode(user.jwt.accessToken)
      expect(late).not.toBe(early)

      clock.advance(LAUNCH_CODE_TTL_SECONDS - MARGIN)
      const session = await refreshed(early)
      expect((await getUserAs(session.accessToken, user.id)).status).toBe(200)

      clock.advance(2 * MARGIN)
      await expectError(await refreshWith(late), 401, 'INVALID_REFRESH_TOKEN')
    })
  })
})

describe('refresh token idle lifetime (30 minutes)', () => {
  it('still refreshes after 29 min 55 s unused', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      clock.advance(REFRESH_IDLE_SECONDS - MARGIN)
      const tokens = await refreshed(user.jwt.refreshToken)
      expect((await getUserAs(tokens.accessToken, user.id)).status).toBe(200)
    })
  })

  it('answers 401 REFRESH_TOKEN_EXPIRED after 30 min 5 s unused', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      clock.advance(REFRESH_IDLE_SECONDS + MARGIN)
      await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED')
    })
  })

  it('starts over with every rotation: the new token has its own 30 minutes', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      clock.advance(REFRESH_IDLE_SECONDS - MARGIN)
      const tokens = await refreshed(user.jwt.refreshToken)
      clock.advance(REFRESH_IDLE_SECONDS - MARGIN)
      await refreshed(tokens.refreshToken)
    })
  })
})

describe('session absolute lifetime (10 hours)', () => {
  it('lives until just under 10 h when refreshed every 25 minutes, and not a moment past it', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      const step = 25 * MINUTE
      let tokens = user.jwt
      let elapsed = 0
      while (elapsed + step < REFRESH_ABSOLUTE_SECONDS - MARGIN) {
        clock.advance(step)
        elapsed += step
        tokens = await refreshed(tokens.refreshToken)
      }
      expect(elapsed).toBe(9 * 3600 + 35 * MINUTE)

      clock.advance(REFRESH_ABSOLUTE_SECONDS - MARGIN - elapsed)
      tokens = await refreshed(tokens.refreshToken)
      expect((await getUserAs(tokens.accessToken, user.id)).status).toBe(200)

      // 10 s later: the token is fresh (idle is far), the session is not.
      clock.advance(2 * MARGIN)
      await expectError(await refreshWith(tokens.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED')
    })
  })
})

describe('reuse grace (10 seconds)', () => {
  it('answers a rotated token presented again 9 s later with exactly the pair already issued', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      const issued = await refreshed(user.jwt.refreshToken)

      clock.advance(REUSE_GRACE_SECONDS - 1)
      const retry = await refreshWith(user.jwt.refreshToken)
      expect(retry.status).toBe(200)
      expect(await retry.json()).toEqual(issued)
      expect((await getUserAs(issued.accessToken, user.id)).status).toBe(200)
    })
  })

  it('answers 401 REFRESH_TOKEN_REUSED 11 s later and revokes the whole session', async () => {
    await withFrozenClock(async (clock) => {
      const user = await signedInUser()
      const issued = await refreshed(user.jwt.refreshToken)

      clock.advance(REUSE_GRACE_SECONDS + 1)
      await expectError(await refreshWith(user.jwt.refreshToken), 401, 'REFRESH_TOKEN_REUSED')
      await expectError(await refreshWith(issued.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
      await expectError(await getUserAs(issued.accessToken, user.id), 401, 'INVALID_TOKEN')
    })
  })
})
