import { env } from 'cloudflare:test'
import { Webhook } from 'standardwebhooks'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Webhook as Subscription, WebhookCreated } from '../../../worker-api/contract/machines/webhooks'
import { webhookHeaders } from '../../../worker-api/lib/webhook-signature'
import { signingSecrets } from '../../../worker-api/services/machines/webhooks'
import { call, createOrganisation, createUser, currentPost, db, expectError, post, sessionFor } from '../helpers'

/**
 * Webhook subscriptions (issue 65): an administrator subscribes an https address of a public host to the events of a
 * sub-tree of their scope; its signing secret is shown once, kept sealed, and rotated with the former one signing
 * beside it a day. Delegated administrators never reach another sub-tree's subscriptions.
 */

let root: string
let nord: string
let sud: string

beforeAll(async () => {
  await createOrganisation()
  root = (await sessionFor((await createUser({ admin: true, postes: [currentPost(1, 1)] })).id)).accessToken
  nord = (await sessionFor((await createUser({ admin: true, postes: [currentPost(2, 2)] })).id)).accessToken
  sud = (await sessionFor((await createUser({ admin: true, postes: [currentPost(3, 3)] })).id)).accessToken
})

let sequence = 0
const subscription = (body: Record<string, unknown> = {}) => ({
  url: `https://rh.example/hooks/${++sequence}`,
  evenements: ['utilisateur.*', 'poste.fin'],
  structure: { id: 4 },
  ...body,
})
async function subscribe(token: string, body: Record<string, unknown> = {}) {
  const response = await post('/rest/bd/webhook', subscription(body), { token })
  expect(response.status).toBe(201)
  return (await response.json()) as WebhookCreated
}
const stored = (id: number) => db().selectFrom('webhook').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const logged = (action: string) =>
  db()
    .selectFrom('log')
    .select(['commentaire'])
    .where('nom_log', '=', action)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow()

describe('a webhook subscription', () => {
  it('is made on a structure of the caller’s scope, its secret answered once in Standard Webhooks’ form, never again', async () => {
    const made = await subscribe(nord, { description: 'SIRH' })
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
    const read = await call(`/rest/bd/webhook/${made.id}`, { token: nord })
    expect(read.status).toBe(200)
    const body = (await read.json()) as Subscription
    expect(body).toMatchObject({
      url: `https://rh.example/hooks/${sequence}`,
      evenements: ['poste.fin', 'utilisateur.*'],
      description: 'SIRH',
      actif: true,
      structure: { id: 4 },
      ancienSecretExpire: null,
    })
    expect(JSON.stringify(body)).not.toContain(made.secret.slice(6))
    // Kept sealed: the row holds no secret a reader of the database could use, the portal opens it to sign.
    const row = await stored(made.id)
    expect(row.secret_scelle).not.toContain(made.secret.slice(6))
    expect(await signingSecrets(env, row)).toEqual([made.secret])
    // What it signs with it, a receiver verifies with the secret it was given.
    const payload = JSON.stringify({ type: 'poste.fin' })
    const headers = await webhookHeaders(await signingSecrets(env, row), 'msg_1', new Date(), payload)
    expect(new Webhook(made.secret).verify(payload, headers)).toEqual({ type: 'poste.fin' })
    // Its history entry names the address and events, never the secret.
    const entry = await logged('WEBHOOK_CREATION')
    expect(entry.commentaire).toContain('https://rh.example/hooks/')
    expect(entry.commentaire).not.toContain(made.secret.slice(6))
  })

  it('is refused outside the caller’s scope: a structure of another sub-tree, another sub-tree’s subscription', async () => {
    // Direction Sud's administrator on Direction Nord's structure.
    await expectError(await post('/rest/bd/webhook', subscription(), { token: sud }), 403, 'FORBIDDEN')
    const nordOwn = await subscribe(nord)
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { actif: false }],
      ['DELETE', '', undefined],
      ['POST', '/secret', {}],
    ] as const) {
      const answer = await call(`/rest/bd/webhook/${nordOwn.id}${path}`, {
        method,
        token: sud,
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      await expectError(answer, 404, 'NOT_FOUND')
    }
    const listed = (await (await call('/rest/bd/webhook', { token: sud })).json()) as Subscription[]
    expect(listed.map((item) => item.id)).not.toContain(nordOwn.id)
    // Untouched, and the root's administrator reads it.
    expect((await stored(nordOwn.id)).actif).toBe(1)
    expect((await call(`/rest/bd/webhook/${nordOwn.id}`, { token: root })).status).toBe(200)
  })

  it('posts to https on a public host only; this machine’s loopback in development and tests alone', async () => {
    for (const url of [
      'http://rh.example/hooks',
      'https://10.0.0.8/hooks',
      'https://169.254.169.254/latest',
      'https://[fd00::1]/hooks',
      'https://user:pass@rh.example/hooks',
      'https://rh.example/hooks#part',
      'ftp://rh.example/hooks',
      'rh.example/hooks',
    ]) {
      const refused = await expectError(
        await post('/rest/bd/webhook', subscription({ url }), { token: root }),
        400,
        'VALIDATION_FAILED',
      )
      expect(refused.attributs, url).toContainEqual(
        expect.objectContaining({ field: 'url', message: 'validation.clientUri' }),
      )
    }
    const loopback = subscription({ url: 'http://127.0.0.1:8788/hooks' })
    expect((await post('/rest/bd/webhook', loopback, { token: root })).status).toBe(201)
    const production = await expectError(
      await post('/rest/bd/webhook', loopback, { token: root, env: { ENVIRONMENT: 'production' } }),
      400,
      'VALIDATION_FAILED',
    )
    expect(production.attributs).toContainEqual({ field: 'url', message: 'validation.clientUriLocal' })
  })

  it('names known event types or whole families, each once', async () => {
    for (const evenements of [[], ['utilisateur.explose'], ['poste.*', 'poste.*'], ['*'], ['inscription']]) {
      await expectError(
        await post('/rest/bd/webhook', subscription({ evenements }), { token: root }),
        400,
        'VALIDATION_FAILED',
      )
    }
    const made = await subscribe(root, { evenements: ['revue.*', 'demande.*', 'inscription.*', 'acces.retire'] })
    expect(JSON.parse((await stored(made.id)).evenements)).toEqual([
      'acces.retire',
      'demande.*',
      'inscription.*',
      'revue.*',
    ])
  })

  it('is changed and switched off, each change in the history', async () => {
    const made = await subscribe(nord)
    const changed = await call(`/rest/bd/webhook/${made.id}`, {
      method: 'PATCH',
      token: nord,
      body: JSON.stringify({ actif: false, evenements: ['poste.*'], url: 'https://rh.example/v2' }),
    })
    expect(changed.status).toBe(200)
    expect(await changed.json()).toMatchObject({ actif: false, evenements: ['poste.*'], url: 'https://rh.example/v2' })
    expect((await logged('WEBHOOK_MODIFICATION')).commentaire).toContain('actif=0')
    // Nothing to change is a clear 400.
    await expectError(
      await call(`/rest/bd/webhook/${made.id}`, { method: 'PATCH', token: nord, body: '{}' }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('gets a new secret: the former one signs beside it 24 hours, or stops at once when asked', async () => {
    const made = await subscribe(nord)
    const rotated = await post(`/rest/bd/webhook/${made.id}/secret`, {}, { token: nord })
    expect(rotated.status).toBe(200)
    expect(rotated.headers.get('Cache-Control')).toBe('no-store')
    const { url, secret, ancienSecretExpire } = (await rotated.json()) as {
      url: string
      secret: string
      ancienSecretExpire: string
    }
    expect(url).toBe((await stored(made.id)).url)
    expect(secret).not.toBe(made.secret)
    const hours = (Date.parse(ancienSecretExpire) - Date.now()) / 3_600_000
    expect(hours).toBeGreaterThan(23.9)
    expect(hours).toBeLessThanOrEqual(24)
    const row = await stored(made.id)
    expect(await signingSecrets(env, row)).toEqual([secret, made.secret])
    // Past its day, the former one signs no more.
    const later = new Date(Date.now() + 24 * 3_600_000 + 1_000).toISOString()
    expect(await signingSecrets(env, row, later)).toEqual([secret])
    // Revoked at once: the new one alone.
    const revoked = await post(`/rest/bd/webhook/${made.id}/secret`, { revoquerAncien: true }, { token: nord })
    const now = (await revoked.json()) as { secret: string; ancienSecretExpire: string | null }
    expect(now.ancienSecretExpire).toBeNull()
    expect(await signingSecrets(env, await stored(made.id))).toEqual([now.secret])
    expect((await logged('WEBHOOK_SECRET')).commentaire).toContain('ancien secret révoqué')
  })

  it('is deleted, its address kept in the history', async () => {
    const made = await subscribe(nord)
    const deleted = await call(`/rest/bd/webhook/${made.id}`, { method: 'DELETE', token: nord })
    expect(deleted.status).toBe(204)
    expect(await db().selectFrom('webhook').select('id').where('id', '=', made.id).executeTakeFirst()).toBeUndefined()
    expect((await logged('WEBHOOK_SUPPRESSION')).commentaire).toContain('https://rh.example/hooks/')
    await expectError(await call(`/rest/bd/webhook/${made.id}`, { token: nord }), 404, 'NOT_FOUND')
  })

  it('is found by any word of its address or description, accents or not', async () => {
    const plain = await subscribe(root, { url: 'https://paie.example/recu' })
    const described = await subscribe(root, { url: 'https://rh.example/annuaire', description: 'Équipe Sécurité' })
    const found = async (q: string) =>
      (
        (await (await call(`/rest/bd/webhook?q=${encodeURIComponent(q)}`, { token: root })).json()) as Subscription[]
      ).map((item) => item.id)
    expect(await found('paie')).toEqual([plain.id])
    expect(await found('equipe securite')).toEqual([described.id])
    expect(await found('ANNUAIRE')).toEqual([described.id])
  })

  it('judges the caller before the address: a user is refused 403 whatever they post', async () => {
    const user = (await sessionFor((await createUser({ postes: [currentPost(4, 2)] })).id)).accessToken
    const loopback = subscription({ url: 'http://127.0.0.1:8788/hooks' })
    const answer = await post('/rest/bd/webhook', loopback, { token: user, env: { ENVIRONMENT: 'production' } })
    await expectError(answer, 403, 'FORBIDDEN')
  })

  it('keeps its structure from being deleted (409 STRUCTURE_HAS_WEBHOOK) until it is deleted itself', async () => {
    const agency = await post(
      '/rest/bd/structure',
      { nom: `Agence webhook ${++sequence}`, type: { id: 3 }, parent: { id: 2 } },
      { token: root },
    )
    expect(agency.status).toBe(201)
    const { id: structure } = (await agency.json()) as { id: number }
    const made = await subscribe(nord, { structure: { id: structure } })
    await expectError(
      await call(`/rest/bd/structure/${structure}`, { method: 'DELETE', token: root }),
      409,
      'STRUCTURE_HAS_WEBHOOK',
    )
    expect((await call(`/rest/bd/webhook/${made.id}`, { method: 'DELETE', token: nord })).status).toBe(204)
    expect((await call(`/rest/bd/structure/${structure}`, { method: 'DELETE', token: root })).status).toBe(204)
  })

  it('cannot be made without the key that seals secrets: 503, nothing written', async () => {
    const before = await db()
      .selectFrom('webhook')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    await expectError(
      await post('/rest/bd/webhook', subscription(), { token: root, env: { WEBHOOK_SECRET_KEY: undefined } }),
      503,
      'TECHNICAL_ERROR',
    )
    const after = await db()
      .selectFrom('webhook')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })
})
