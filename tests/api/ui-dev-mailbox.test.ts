import { env } from 'cloudflare:test'
import type { AppLoadContext } from '@remix-run/cloudflare'
import { describe, expect, it } from 'vitest'
import { loader as mailboxLoader } from '../../app/routes/dev.mails._index'
import { loader as mailLoader } from '../../app/routes/dev.mails.$id'
import { app, db } from './helpers'

const contextFor = (ENVIRONMENT: string) =>
  ({
    cloudflare: { env: { ...env, ENVIRONMENT }, ctx: { waitUntil() {}, passThroughOnException() {} } },
    api: app,
  }) as unknown as AppLoadContext

const args = (ENVIRONMENT: string, params: Record<string, string> = {}) =>
  ({
    request: new Request('http://localhost:8787/dev/mails'),
    context: contextFor(ENVIRONMENT),
    params,
  }) as Parameters<typeof mailboxLoader>[0]

async function thrownStatus(run: () => Promise<unknown>) {
  try {
    await run()
  } catch (thrown) {
    return (thrown as Response).status
  }
  return 'no error'
}

describe('the development mailbox pages', () => {
  it('list and open the outbox in development', async () => {
    const { id } = await db()
      .insertInto('outbox')
      .values({
        to_address: 'a@example.test',
        subject: 'Bonjour',
        html: '<p>x</p>',
        text: 'Voir http://localhost:8787/x',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const list = (await mailboxLoader(args('development'))) as { mails: { id: number; subject: string }[] }
    expect(list.mails.map((mail) => mail.subject)).toContain('Bonjour')
    const one = (await mailLoader(args('development', { id: String(id) }))) as {
      mail: { links: string[]; html?: string }
    }
    expect(one.mail.links).toEqual(['http://localhost:8787/x'])
    expect(one.mail.html).toBeUndefined()
  })

  it.each(['production', 'test', ''])('are a 404 with ENVIRONMENT=%j', async (environment) => {
    expect(await thrownStatus(() => mailboxLoader(args(environment)))).toBe(404)
    expect(await thrownStatus(() => mailLoader(args(environment, { id: '1' })))).toBe(404)
  })

  it('answer 404 for an id that is not one', async () => {
    expect(await thrownStatus(() => mailLoader(args('development', { id: 'abc' })))).toBe(404)
    expect(await thrownStatus(() => mailLoader(args('development', { id: '999999' })))).toBe(404)
  })
})
