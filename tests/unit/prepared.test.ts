import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { getDb, prepared } from '../../worker-api/db/client'

// Compiling needs no database: a binding nobody calls.
const db = getDb({} as D1Database)

describe('a prepared statement', () => {
  const userById = prepared((db, values: { id: number; day: string }) =>
    db
      .selectFrom('utilisateur')
      .select('id')
      .where('id', '=', values.id)
      .where('actif', '=', 1)
      .where(sql<boolean>`${values.day} >= '2000-01-01'`),
  )

  it('compiles as Kysely does, each use with its own values and the constants kept', () => {
    const direct = db
      .selectFrom('utilisateur')
      .select('id')
      .where('id', '=', 7)
      .where('actif', '=', 1)
      .where(sql<boolean>`${'2026-11-27'} >= '2000-01-01'`)
      .compile()
    const first = userById(db, { id: 7, day: '2026-11-27' }).compile()
    const second = userById(db, { id: 8, day: '2026-11-28' }).compile()
    expect(first.sql).toBe(direct.sql)
    expect(first.parameters).toEqual(direct.parameters)
    expect(second.sql).toBe(direct.sql)
    expect(second.parameters).toEqual([8, 1, '2026-11-28'])
  })

  it('refuses a statement whose shape depends on a value', () => {
    const shaped = prepared((db, values: { name: string }) =>
      db.selectFrom('utilisateur').select('id').where('login', 'like', `${values.name}%`),
    )
    expect(() => shaped(db, { name: 'Agent' }).compile()).toThrow('name is not a whole parameter')
    const unused = prepared((db, _values: { id: number }) => db.selectFrom('utilisateur').select('id'))
    expect(() => unused(db, { id: 1 }).compile()).toThrow('id is not a whole parameter')
  })
})
