/**
 * Signed webhooks (issue 65), in Standard Webhooks' form (standardwebhooks.com): a subscription's secret is `whsec_`
 * and the base64 of random bytes; a delivery carries `webhook-id`, `webhook-timestamp` (seconds since 1970) and
 * `webhook-signature`, `v1,` and the base64 of HMAC-SHA256(secret's bytes, `id.timestamp.body`), one per secret that
 * signs (space-separated: the former secret signs beside the new one after a rotation). Signed with Web Crypto; the
 * tests verify what it signs with the `standardwebhooks` library, as a receiver would.
 */

import { base64, hmacSha256 } from './crypto'

export const WEBHOOK_SECRET_PREFIX = 'whsec_'
/** A secret's random bytes: 32 (the standard asks 24 to 64). */
export const WEBHOOK_SECRET_BYTES = 32

/** A new secret, shown once to whoever subscribes. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${base64(crypto.getRandomValues(new Uint8Array(WEBHOOK_SECRET_BYTES)))}`
}

/** A secret's key bytes, or null for a value that is not one. */
export function webhookKey(secret: string): Uint8Array<ArrayBuffer> | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length)
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return null
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))
  return bytes.length >= 24 && bytes.length <= 64 ? bytes : null
}

/** One secret's signature of a delivery: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`. */
export async function webhookSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = webhookKey(secret)
  if (!key) throw new Error('Not a webhook secret')
  return `v1,${base64(await hmacSha256(key, `${id}.${timestamp}.${body}`))}`
}

/** The headers of a delivery, signed by each of `secrets` (the current one first). */
export async function webhookHeaders(
  secrets: readonly string[],
  id: string,
  sentAt: Date,
  body: string,
): Promise<Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>> {
  const timestamp = Math.floor(sentAt.getTime() / 1000)
  const signatures = await Promise.all(secrets.map((secret) => webhookSignature(secret, id, timestamp, body)))
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  }
}
