import { describe, expect, it } from 'vitest'
import { getDb } from '../../worker-api/db/client'
import { createMeter, meteredD1, revokesTokens, serverTiming } from '../../worker-api/db/meter'
import { openRequestScope, validBookmark } from '../../worker-api/db/request-scope'
import type { Env } from '../../worker-api/lib/types'

/** A stand-in for D1 that records what reaches it: the counter is what is under test here. */
function fakeD1() {
  const batches: unknown[][] = []
  const run: string[] = []
  class Statement {
    constructor(
      readonly sql: string,
      readonly values: unknown[] = [],
    ) {}
    bind(...values: unknown[]) {
      return new Statement(this.sql, values)
    }
    async first() {
      run.push(`first ${this.sql} ${this.values.join(',')}`)
      return { x: 1 }
    }
    async all() {
      run.push(`all ${this.sql}`)
      return { results: [] }
    }
    async run() {
      run.push(`run ${this.sql}`)
      return { meta: {} }
    }
    async raw() {
      run.push(`raw ${this.sql}`)
      return []
    }
  }
  const database = {
    prepare: (sql: string) => new Statement(sql),
    async batch(statements: unknown[]) {
      batches.push(statements)
      return statements.map(() => ({ results: [] }))
    },
  } as unknown as D1Database
  return { database, batches, run, Statement }
}

describe('the statement counter', () => {
  it('counts each statement run alone as one statement and one round trip', async () => {
    const { database, run } = fakeD1()
    const meter = createMeter()
    const db = meteredD1(database, meter)
    await db.prepare('SELECT ?').bind(7).first()
    await db.prepare('SELECT 2').all()
    await db.prepare('UPDATE t SET x = 1').run()
    await db.prepare('SELECT 3').raw()
    expect(run).toEqual(['first SELECT ? 7', 'all SELECT 2', 'run UPDATE t SET x = 1', 'raw SELECT 3'])
    expect(meter).toMatchObject({ statements: 4, roundTrips: 4 })
  })

  it('counts a batch as its statements in one round trip, and hands D1 its own statements', async () => {
    const { database, batches, Statement } = fakeD1()
    const meter = createMeter()
    const db = meteredD1(database, meter)
    await db.batch([db.prepare('INSERT 1'), db.prepare('INSERT ?').bind(2), db.prepare('INSERT 3')])
    expect(meter).toMatchObject({ statements: 3, roundTrips: 1 })
    expect(batches[0]?.every((statement) => statement instanceof Statement)).toBe(true)
    expect((batches[0] as InstanceType<typeof Statement>[]).map((s) => s.values)).toEqual([[], [2], []])
  })

  it('preparing and binding cost nothing; a failed statement still counts', async () => {
    const meter = createMeter()
    const failing = {
      prepare: () => ({
        bind() {
          return this
        },
        first: () => Promise.reject(new Error('no such table')),
      }),
      batch: async () => [],
    } as unknown as D1Database
    const db = meteredD1(failing, meter)
    const statement = db.prepare('SELECT nothing').bind(1)
    expect(meter.statements).toBe(0)
    await expect(statement.first()).rejects.toThrow('no such table')
    expect(meter).toMatchObject({ statements: 1, roundTrips: 1 })
  })

  it('says it in a Server-Timing header', () => {
    const meter = {
      ...createMeter(),
      statements: 3,
      roundTrips: 2,
      d1Ms: 4.26,
      apiCalls: 2,
      apiMs: 9.04,
      renderMs: 1.5,
    }
    expect(serverTiming(meter, 12.345)).toBe(
      'd1;dur=4.3;desc="3 statements, 2 round trips", api;dur=9;desc="2 in-process calls", render;dur=1.5, total;dur=12.3',
    )
    expect(serverTiming(createMeter())).toBe('d1;dur=0;desc="0 statements, 0 round trips"')
  })
})

/**
 * A write that revokes refresh tokens may queue back-channel logouts (migrations/0022's trigger), which
 * the request delivers once its answer is out; a request that revoked none skips that read.
 */
describe('the statements that revoke refresh tokens', () => {
  const db = getDb(fakeD1().database)
  const at = '2026-01-01T00:00:00.000Z'

  it('are every update of revoked_at on refresh_token, as Kysely or raw SQL writes it', () => {
    for (const query of [
      db.updateTable('refresh_token').set({ revoked_at: at, revoked_reason: 'ADMINISTRATEUR' }).where('id', '=', 1),
      db.updateTable('refresh_token').set({ revoked_at: at }).where('application_id', '=', 2),
      db.updateTable('refresh_token').set({ revoked_reason: 'AUTRE_APPAREIL', revoked_at: at }),
    ]) {
      expect(revokesTokens(query.compile().sql)).toBe(true)
    }
    expect(revokesTokens('UPDATE refresh_token\n  SET revoked_at = ?1 WHERE family_id = ?2')).toBe(true)
  })

  it('are not a rotation, a read of revoked tokens, nor a revocation elsewhere', () => {
    for (const text of [
      db.updateTable('refresh_token').set({ rotated_at: at, successor: 'x' }).where('revoked_at', 'is', null),
      db.selectFrom('refresh_token').select('id').where('revoked_at', 'is', null),
    ]
      .map((query) => query.compile().sql)
      .concat('UPDATE mail_token SET revoked_at = ?1 WHERE utilisateur_id = ?2')) {
      expect(revokesTokens(text)).toBe(false)
    }
  })

  it('mark the request that prepares one', () => {
    const meter = createMeter()
    const metered = meteredD1(fakeD1().database, meter)
    metered.prepare('SELECT 1')
    expect(meter.revokesTokens).toBe(false)
    metered.prepare(db.updateTable('refresh_token').set({ revoked_at: at }).compile().sql)
    expect(meter.revokesTokens).toBe(true)
  })
})

describe('the request scope', () => {
  const env = (constraints: string[]) =>
    ({
      DB: {
        withSession(constraint: string) {
          constraints.push(constraint)
          return { ...fakeD1().database, getBookmark: () => null }
        },
      },
    }) as unknown as Env

  it('opens writes at the primary, reads at the bookmark, or anywhere without a valid one', () => {
    const constraints: string[] = []
    const bookmark = '0000000a-0000000b-0000000c-0123456789abcdef0123456789abcdef'
    openRequestScope(env(constraints), { write: true, bookmark })
    openRequestScope(env(constraints), { write: false, bookmark })
    openRequestScope(env(constraints), { write: false, bookmark: 'first-primary' })
    openRequestScope(env(constraints), { write: false })
    expect(constraints).toEqual(['first-primary', bookmark, 'first-unconstrained', 'first-unconstrained'])
    expect(validBookmark(`${bookmark}\n`)).toBeNull()
  })
})
