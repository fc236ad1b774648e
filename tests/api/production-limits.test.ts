import { env } from 'cloudflare:test'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  D1_MAX_BOUND_VALUES,
  D1_MAX_PATTERN_BYTES,
  D1_MAX_STATEMENT_BYTES,
  productionLimited,
} from '../../worker-api/db/production-limits'
import { openRequestScope } from '../../worker-api/db/request-scope'
import { backgroundContext } from '../../worker-api/lib/context'
import { createOrganisation, createUser, currentPost, expectError, loginWith } from './helpers'

/**
 * Production's D1 refuses a statement binding more than 100 values, longer than 100 000 bytes, or matching a LIKE
 * pattern over 50 bytes. The local D1 refuses the first two without saying which statement, and takes the third.
 * Every local run (these tests, the browser tests, `npm start`) wraps its D1 so that it refuses all three
 * (worker-api/db/production-limits.ts), naming the limit and the statement.
 */

const limited = () => productionLimited(env.DB)
/** A statement binding `n` values (a function's arguments: no deeper an expression than D1 takes). */
const selectOf = (n: number) =>
  `select json_array_length(json_array(${Array.from({ length: n }, () => '?').join(', ')})) as total`
const ones = (n: number) => Array.from({ length: n }, () => 1)
/** A statement of exactly `bytes` bytes (the rest a comment). */
const statementOf = (bytes: number) => {
  const head = 'select 1 as one /*'
  return `${head}${'x'.repeat(bytes - head.length - 2)}*/`
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('the numbers are D1’s', () => {
  it('100 bound values, 100 000 bytes, 50-byte patterns', () => {
    expect([D1_MAX_BOUND_VALUES, D1_MAX_STATEMENT_BYTES, D1_MAX_PATTERN_BYTES]).toEqual([100, 100_000, 50])
  })
})

describe('a statement production refuses, the wrapper refuses with its text', () => {
  it('more than 100 bound values', async () => {
    // The local D1 refuses it too, without saying which statement.
    await expect(
      env.DB.prepare(selectOf(101))
        .bind(...ones(101))
        .first('total'),
    ).rejects.toThrow(/too many SQL variables/)
    expect(
      await limited()
        .prepare(selectOf(100))
        .bind(...ones(100))
        .first('total'),
    ).toBe(100)
    expect(() =>
      limited()
        .prepare(selectOf(101))
        .bind(...ones(101)),
    ).toThrow(
      /D1 refuses this statement in production: 101 parameters, over 100\. Statement: select json_array_length\(json_array\(\?, \?/,
    )
    // Values bound past what the text names are counted as bound.
    expect(() =>
      limited()
        .prepare('select ?1 as one')
        .bind(...ones(101)),
    ).toThrow(/101 bound values, over 100/)
    expect(() => limited().prepare('select ?101 as one')).toThrow(/101 parameters, over 100\. Statement: select \?101/)
  })

  it('a statement over 100 000 bytes, counted in UTF-8', async () => {
    // The local D1 refuses it too, without saying which statement.
    await expect(env.DB.prepare(statementOf(100_001)).first('one')).rejects.toThrow(/statement too long/)
    expect(await limited().prepare(statementOf(100_000)).first('one')).toBe(1)
    expect(() => limited().prepare(statementOf(100_001))).toThrow(
      /100001 bytes, over 100000\. Statement: select 1 as one \/\*xxx/,
    )
    // 50 000 characters of two bytes each.
    const accented = `select 1 as one /*${'é'.repeat(50_000)}*/`
    expect(() => limited().prepare(accented)).toThrow(/100020 bytes, over 100000/)
  })

  it('a LIKE or GLOB pattern over 50 bytes, bound or written in the statement', async () => {
    const fifty = `%${'a'.repeat(48)}%`
    const fiftyOne = `%${'a'.repeat(49)}%`
    const like = "select count(*) as n from structure where nom like ? escape '\\'"
    // The local D1 runs it.
    expect(await env.DB.prepare(like).bind(fiftyOne).first('n')).toBe(0)
    expect(await limited().prepare(like).bind(fifty).first('n')).toBe(0)
    expect(() => limited().prepare(like).bind(fiftyOne)).toThrow(
      /the pattern bound as parameter 1 has 51 bytes, over 50 .*Statement: select count\(\*\) as n from structure where nom like \?/,
    )
    // Bytes, not characters: 25 accented letters and the two `%`.
    expect(() =>
      limited()
        .prepare(like)
        .bind(`%${'é'.repeat(25)}%`),
    ).toThrow(/52 bytes, over 50/)
    // The pattern's parameter found among others, numbered or not, after literals and quoted names holding `?`.
    const among = `select count(*) as n from structure where "nom?" = ? and nom = '?' and nom NOT LIKE ?3 or nom glob ?`
    expect(() => limited().prepare(among).bind('x', 'y', fiftyOne, 'z')).toThrow(/parameter 3 has 51 bytes/)
    expect(() => limited().prepare(among).bind('x', 'y', 'z', fiftyOne)).toThrow(/parameter 4 has 51 bytes/)
    expect(() => limited().prepare(among).bind(fiftyOne, 'y', 'z', 'w')).not.toThrow()
    // Literal patterns, measured in the text.
    expect(await limited().prepare(`select 'a' like '${fifty}' as hit`).first('hit')).toBe(0)
    expect(() => limited().prepare(`select 'a' like '${fiftyOne}' as hit`)).toThrow(
      /a LIKE pattern of 51 bytes, over 50\. Statement: select 'a' like '%aaa/,
    )
    expect(() => limited().prepare(`select 'a' GLOB '${'*'.repeat(51)}' as hit`)).toThrow(/a GLOB pattern of 51 bytes/)
  })

  it('a pattern it cannot measure before it runs: refused, so that every pattern that passes is measured', () => {
    for (const query of [
      "select 1 from structure where nom like '%' || ? || '%'",
      "select 1 from structure where nom like ? || '%'",
      'select 1 from structure where nom like path',
      'select like(?, nom) from structure',
    ]) {
      expect(() => limited().prepare(query), query).toThrow(/cannot be measured \(bind it whole\)\. Statement: select/)
    }
    // What follows a whole pattern: its escape, a collation, the rest of the condition.
    const whole = "select 1 from structure where (nom like ? escape '\\' collate nocase) and path glob ? or id = ?"
    expect(() => limited().prepare(whole).bind('%a%', '/1/*', 1)).not.toThrow()
  })

  it('checks each statement of a batch, and runs them as D1 does', async () => {
    const database = limited()
    const [first, second] = await database.batch([
      database.prepare(selectOf(2)).bind(1, 2),
      database.prepare('select 3 as total'),
    ])
    expect([first?.results, second?.results]).toEqual([[{ total: 2 }], [{ total: 3 }]])
    await expect(
      (async () =>
        database.batch([database.prepare('select 1'), database.prepare(selectOf(101)).bind(...ones(101))]))(),
    ).rejects.toThrow(/101 parameters, over 100/)
  })
})

describe('where the wrapper is', () => {
  beforeAll(async () => {
    await createOrganisation()
  })

  it('around the D1 of every request and of the background work, in development and tests; never in production', () => {
    for (const ENVIRONMENT of ['test', 'development']) {
      const scoped = openRequestScope({ ...env, ENVIRONMENT }, { write: true })
      expect(() => scoped.DB.prepare(selectOf(101)), ENVIRONMENT).toThrow(/101 parameters/)
      expect(() => backgroundContext({ ...env, ENVIRONMENT }).d1.prepare(selectOf(101)), ENVIRONMENT).toThrow(
        /101 parameters/,
      )
    }
    const production = openRequestScope({ ...env, ENVIRONMENT: 'production' }, { write: true })
    expect(() => production.DB.prepare(selectOf(101)).bind(...ones(101))).not.toThrow()
    expect(backgroundContext({ ...env, ENVIRONMENT: 'production' }).d1).toBe(env.DB)
    // Wrapped once, whatever wraps it again.
    expect(productionLimited(limited())).toBe(limited())
  })

  it('a statement it refuses answers 500 TECHNICAL_ERROR, as production’s refusal does, the statement in the log', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    // A data layer that writes every statement longer than D1 takes (a comment added), as a regression would.
    const padded = (query: string) => `${query} /*${'x'.repeat(D1_MAX_STATEMENT_BYTES)}*/`
    const oversized = {
      withSession: (constraint: D1SessionBookmark | D1SessionConstraint) => {
        const session = productionLimited(env.DB.withSession(constraint))
        return {
          prepare: (query: string) => session.prepare(padded(query)),
          batch: (statements: D1PreparedStatement[]) => session.batch(statements),
          getBookmark: () => session.getBookmark(),
        }
      },
    } as unknown as D1Database
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const body = { identifiant: user.login, motDePasse: user.password }
    await expectError(await loginWith(body, {}, { DB: oversized }), 500, 'TECHNICAL_ERROR')
    const error = logged.mock.calls.find(([message]) => message === 'Unhandled API error')?.[1]
    expect(String(error)).toMatch(/D1 refuses this statement in production: \d+ bytes, over 100000\. Statement: \S/)
  })
})
