import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import {
  newWebhookSecret,
  WEBHOOK_SECRET_BYTES,
  webhookHeaders,
  webhookKey,
  webhookSignature,
} from '../../worker-api/lib/webhook-signature'

/**
 * What the portal signs, verified as a receiver would: with the Standard Webhooks library (`standardwebhooks`, written
 * by the standard's authors, not here), its secret and its five minutes' tolerance.
 */

const body = JSON.stringify({
  id: 'evt_1',
  type: 'poste.fin',
  date: '2026-12-05T00:00:00.000Z',
  sujet: { utilisateur: 42 },
  data: { poste: 7, structure: 'Site de Lille', accents: 'élève à Noël' },
})

describe('a webhook secret', () => {
  it(`is whsec_ and the base64 of ${WEBHOOK_SECRET_BYTES} random bytes, a new one each time`, () => {
    const first = newWebhookSecret()
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
    expect(webhookKey(first)).toHaveLength(WEBHOOK_SECRET_BYTES)
    expect(newWebhookSecret()).not.toBe(first)
  })

  it('is refused when it is not one: no prefix, not base64, too short or too long', () => {
    for (const value of [
      '',
      'whsec_',
      'c2VjcmV0',
      'whsec_not base64!',
      `whsec_${btoa('short')}`,
      `whsec_${btoa('x'.repeat(65))}`,
    ]) {
      expect(webhookKey(value), value).toBeNull()
    }
  })
})

describe('a delivery signed with Standard Webhooks', () => {
  it('is verified by the standard library with the subscription secret, the body read back', async () => {
    const secret = newWebhookSecret()
    const headers = await webhookHeaders([secret], 'msg_2f1c', new Date(), body)
    expect(headers['webhook-id']).toBe('msg_2f1c')
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
  })

  it('signs with the former secret beside the new one, each verifying alone', async () => {
    const [current, former] = [newWebhookSecret(), newWebhookSecret()]
    const headers = await webhookHeaders([current, former], 'msg_rotation', new Date(), body)
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2)
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body))
    expect(new Webhook(former).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow()
  })

  it('fails verification when the body, the id or the time is changed, or the delivery is too old', async () => {
    const secret = newWebhookSecret()
    const headers = await webhookHeaders([secret], 'msg_tamper', new Date(), body)
    const receiver = new Webhook(secret)
    expect(() => receiver.verify(body.replace('Lille', 'Lens'), headers)).toThrow()
    expect(() => receiver.verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow()
    expect(() =>
      receiver.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }),
    ).toThrow()
    // Signed six minutes ago: beyond the receiver's five.
    const stale = await webhookHeaders([secret], 'msg_stale', new Date(Date.now() - 6 * 60_000), body)
    expect(() => receiver.verify(body, stale)).toThrow()
  })

  it('is the HMAC-SHA256 the standard specifies, byte for byte', async () => {
    // The secret and message of the standard's own example (spec/standard-webhooks.md, "Signature scheme").
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const payload = '{"test": 2432232314}'
    const signature = await webhookSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, payload)
    expect(signature).toBe(
      new Webhook(secret).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), payload),
    )
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })
})
