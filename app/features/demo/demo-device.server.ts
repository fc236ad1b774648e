import { type AppLoadContext, createCookie } from '@remix-run/cloudflare'
import { API_BASE } from '../../../worker-api/contract/base'
import { DEVICE_CODE_GRANT } from '../../../worker-api/contract/oidc/oidc'
import { DEMO_CLIENT_ID } from './demo-oidc'

/**
 * The demo device (`npm start`, /demo-app/appareil): a shared terminal without a keyboard, signing in as the demo's
 * OpenID Connect client with the device authorization grant. It shows its code and the QR code of the address that
 * carries it, and polls the token endpoint each time the page reloads (every `interval` seconds, by itself). It calls
 * the provider in-process, as the demo application does, with the visiting browser's address and name as its own.
 */

export const DEMO_DEVICE_PATH = '/demo-app/appareil'

/** What the device holds: its request under way, or who signed in on it. */
export type DemoDevice =
  | { step: 'waiting'; deviceCode: string; userCode: string; complete: string; interval: number; expiresAt: string }
  | { step: 'signedIn'; name: string; login: string; application: string }

export const demoDeviceCookie = (context: AppLoadContext) =>
  createCookie('demo-device', {
    path: DEMO_DEVICE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    maxAge: 36_000,
    secrets: [context.cloudflare.env.SESSION_SECRET],
  })

/** A form posted to the provider in-process, as the device (its browser's name and address). */
function post(request: Request, context: AppLoadContext, path: string, fields: Record<string, string>) {
  const headers = new Headers({ 'Content-Type': 'application/x-www-form-urlencoded' })
  for (const name of ['User-Agent', 'CF-Connecting-IP']) {
    const value = request.headers.get(name)
    if (value) headers.set(name, value)
  }
  const target = new Request(`${new URL(request.url).origin}${API_BASE}${path}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(fields).toString(),
  })
  return context.api.fetch(target, context.cloudflare.env, context.cloudflare.ctx as ExecutionContext)
}

/** The device asks for its codes (RFC 8628 §3.1). */
export async function startDevice(request: Request, context: AppLoadContext): Promise<DemoDevice | string> {
  const response = await post(request, context, '/oidc/device_authorization', {
    client_id: DEMO_CLIENT_ID,
    scope: 'openid profile postes',
  })
  const body = (await response.json()) as Record<string, unknown>
  if (!response.ok) return String(body.error ?? 'server_error')
  return {
    step: 'waiting',
    deviceCode: String(body.device_code),
    userCode: String(body.user_code),
    complete: String(body.verification_uri_complete),
    interval: Number(body.interval),
    expiresAt: new Date(Date.now() + Number(body.expires_in) * 1000).toISOString(),
  }
}

/**
 * One poll of the token endpoint (RFC 8628 §3.4): the device signed in (its user read from UserInfo), still waiting
 * (with the interval to wait now), or the error that ends its request (`access_denied`, `expired_token`).
 */
export async function pollDevice(
  request: Request,
  context: AppLoadContext,
  device: Extract<DemoDevice, { step: 'waiting' }>,
): Promise<DemoDevice | { error: string }> {
  const response = await post(request, context, '/oidc/token', {
    grant_type: DEVICE_CODE_GRANT,
    device_code: device.deviceCode,
    client_id: DEMO_CLIENT_ID,
  })
  const body = (await response.json()) as Record<string, unknown>
  if (body.error === 'authorization_pending') return device
  if (body.error === 'slow_down') return { ...device, interval: device.interval + 5 }
  if (!response.ok || typeof body.access_token !== 'string') return { error: String(body.error ?? 'server_error') }
  const userinfo = await context.api.fetch(
    new Request(`${new URL(request.url).origin}${API_BASE}/oidc/userinfo`, {
      headers: { Authorization: `Bearer ${body.access_token}` },
    }),
    context.cloudflare.env,
    context.cloudflare.ctx as ExecutionContext,
  )
  const claims = (await userinfo.json()) as Record<string, unknown>
  return {
    step: 'signedIn',
    name: String(claims.name ?? claims.sub),
    login: String(claims.preferred_username ?? ''),
    application: DEMO_CLIENT_ID,
  }
}
