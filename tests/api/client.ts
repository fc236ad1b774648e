import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import { type ClientResponse, hc } from 'hono/client'
import { expect } from 'vitest'
import { z } from 'zod'
import { API_BASE, type ApiRoutes } from '../../worker-api/contract/api'
import { type ErrorBody, errorSchema } from '../../worker-api/contract/errors'
import { app, ORIGIN } from './helpers'

/**
 * The API as a program calls it, typed by the routes themselves (Hono's `hc<ApiRoutes>`, as the UI's client is): a
 * path, a parameter or a body the routes do not declare fails `npm run typecheck`, and an answer is read as the type
 * its status declares (`okBody`), never cast by hand. It runs in-process (`app.request`, real routing, middleware and
 * D1), then waits for the work a response left running (mail delivery), as the Workers runtime would. `token` is the
 * caller's bearer token; `overrides` change the Worker's bindings for these calls; `origin` is the host the calls
 * reach (the portal's own unless given).
 */
export function api(token?: string, overrides: Partial<typeof env> = {}, origin = ORIGIN) {
  return hc<ApiRoutes>(`${origin}${API_BASE}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const ctx = createExecutionContext()
      const response = await app.request(
        input instanceof Request ? input : String(input),
        init,
        { ...env, ...overrides },
        ctx,
      )
      await waitOnExecutionContext(ctx)
      return response
    },
  })
}

/** The JSON body a route declares for the answer of status `S`. */
export type BodyOf<R, S extends number> =
  R extends ClientResponse<infer T, infer Status, 'json'> ? (S extends Status ? T : never) : never

/**
 * The body of an answer of status `status` (200 unless given), typed as the route declares it for that status; any other
 * status fails the test, with the body it had.
 */
export async function okBody<R extends ClientResponse<unknown, number, string>, S extends number = 200>(
  call: R | Promise<R>,
  status: S = 200 as S,
): Promise<BodyOf<R, S>> {
  const response = await call
  if (response.status !== status) {
    expect({ status: response.status, body: await response.text() }).toEqual({ status, body: '(the declared answer)' })
  }
  return (await response.json()) as BodyOf<R, S>
}

/** The API's error body (DESIGN §2), read strictly with the Worker's own schema: its three keys, no other. */
export const apiError = z.strictObject(errorSchema.shape) satisfies z.ZodType<ErrorBody>

/** The error body of a refused call, its status and business code checked. */
export async function errorBody(
  response: { status: number; json(): Promise<unknown> },
  status: number,
  businessCode: ErrorBody['businessCode'],
): Promise<ErrorBody> {
  const body = apiError.parse(await response.json())
  expect({ status: response.status, businessCode: body.businessCode }).toEqual({ status, businessCode })
  return body
}
