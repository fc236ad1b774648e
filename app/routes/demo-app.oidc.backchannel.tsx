import type { ActionFunctionArgs } from '@remix-run/cloudflare'
import { createLocalJWKSet, jwtVerify } from 'jose'
import { DEMO_CLIENT_ID, noteLoggedOut } from '~/features/demo/demo-oidc.server'
import { API_BASE } from '../../worker-api/contract/base'

const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'

/**
 * The demo application's back-channel logout URI: the portal posts a logout token when a session the
 * demo signed in through ends. The demo checks it as the specification says (signature against the
 * provider's keys, issuer, audience, `typ`, the event, a `sid`, no nonce) and notes the session ended.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = new URLSearchParams(await request.text())
  const token = form.get('logout_token') ?? ''
  const origin = new URL(request.url).origin
  const keys = await context.api.fetch(
    new Request(`${origin}${API_BASE}/oidc/jwks`),
    context.cloudflare.env,
    context.cloudflare.ctx as ExecutionContext,
  )
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(await keys.json()), {
      issuer: origin,
      audience: DEMO_CLIENT_ID,
      typ: 'logout+jwt',
      algorithms: ['ES256'],
      maxTokenAge: '2 minutes',
    })
    const events = payload.events as Record<string, unknown> | undefined
    if (!events || !(LOGOUT_EVENT in events) || typeof payload.sid !== 'string' || 'nonce' in payload) {
      throw new Error('Not a logout token')
    }
    await noteLoggedOut(payload.sid)
    return new Response(null, { status: 200, headers: { 'Cache-Control': 'no-store' } })
  } catch {
    return Response.json({ error: 'invalid_request' }, { status: 400, headers: { 'Cache-Control': 'no-store' } })
  }
}
