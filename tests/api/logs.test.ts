import { beforeAll, describe, expect, it } from 'vitest'
import { call, createOrganisation, db, expectError, post, signedInUser } from './helpers'

beforeAll(createOrganisation)

const LOGS = '/rest/bd/logs/'
const EDGE =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51'

const rowOf = (id: number) => db().selectFrom('log').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

describe('POST /rest/bd/logs/', () => {
  it('answers 201 with the id of the row it wrote for the caller', async () => {
    const user = await signedInUser()
    const response = await post(
      LOGS,
      { nomLog: 'Pesage', commentaire: 'ouverture', nomNavigateur: 'Firefox', versionNavigateur: '128.0' },
      { token: user.jwt.accessToken },
    )
    expect(response.status).toBe(201)
    const body = (await response.json()) as { id: number }
    expect(Object.keys(body)).toEqual(['id'])
    expect(await rowOf(body.id)).toMatchObject({
      utilisateur_id: user.id,
      type_log: 'APPLI_PESAGE',
      nom_log: 'Pesage',
      commentaire: 'ouverture',
      nom_navigateur: 'Firefox',
      version_navigateur: '128.0',
    })
  })

  it('derives the type from nomLog', async () => {
    const user = await signedInUser()
    const cases = [
      ['CONNEXION', 'CONNEXION'],
      ['DECONNEXION', 'DECONNEXION'],
      ['Pesage', 'APPLI_PESAGE'],
      ['Yard dangereux', 'APPLI_YARD'],
      ['Module Rendez vous', 'APPLI_MODRDV'],
      ['Facturation', 'APPLICATION'],
      ['Autre chose', 'APPLICATION'],
    ]
    for (const [nomLog, typeLog] of cases) {
      const response = await post(
        LOGS,
        { nomLog, nomNavigateur: 'Chrome', versionNavigateur: '120' },
        { token: user.jwt.accessToken },
      )
      expect(response.status).toBe(201)
      const { id } = (await response.json()) as { id: number }
      expect({ nomLog, type: (await rowOf(id)).type_log }).toEqual({ nomLog, type: typeLog })
    }
  })

  it('falls back to the browser of the User-Agent when the client sends none', async () => {
    const user = await signedInUser()
    const response = await post(
      LOGS,
      { nomLog: 'Pesage' },
      { token: user.jwt.accessToken, headers: { 'User-Agent': EDGE } },
    )
    expect(response.status).toBe(201)
    const { id } = (await response.json()) as { id: number }
    expect(await rowOf(id)).toMatchObject({
      nom_navigateur: 'Microsoft Edge',
      version_navigateur: '124.0.2478.51',
      commentaire: null,
    })
  })

  it('answers 400 VALIDATION_FAILED for an empty or missing nomLog', async () => {
    const user = await signedInUser()
    for (const body of [{ nomLog: '' }, { nomLog: '   ' }, {}, { nomLog: 12 }]) {
      const error = await expectError(await post(LOGS, body, { token: user.jwt.accessToken }), 400, 'VALIDATION_FAILED')
      expect(error.attributs).toEqual([expect.objectContaining({ field: 'nomLog' })])
    }
  })

  it('answers 401 without a token, and writes nothing', async () => {
    const before = await db().selectFrom('log').select('id').execute()
    await expectError(await post(LOGS, { nomLog: 'Pesage' }), 401, 'UNAUTHORIZED')
    expect(await db().selectFrom('log').select('id').execute()).toHaveLength(before.length)
    expect((await call(LOGS, { method: 'POST', body: '{}', token: 'garbage' })).status).toBe(401)
  })
})
