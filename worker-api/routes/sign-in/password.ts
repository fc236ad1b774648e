import { createRoute } from '@hono/zod-openapi'
import { forgotSchema, renewSchema, tokenParam, tokenUserSchema } from '../../contract/sign-in/password'
import { afterResponse } from '../../lib/after-response'
import { router } from '../../lib/validation'
import { deliverOutbox } from '../../services/core/outbox'
import { admitForgotRequest, queueResetMail, renewPassword, tokenUser } from '../../services/sign-in/password'
import { errors, json, jsonBody } from '../openapi'

export const passwordRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/password/forgot/',
      tags: ['Password'],
      summary: 'Ask for a password-reset mail; the answer is the same whether the mail is known or not',
      request: { body: jsonBody(forgotSchema) },
      responses: {
        204: { description: 'Accepted: a mail is on its way if an active account has it' },
        ...errors(400, 429),
      },
    }),
    async (c) => {
      const input = c.req.valid('json')
      await admitForgotRequest(c.var.ctx, input.captcha)
      // Looked up and written after the answer, so that neither its content nor its timing tells
      // whether the address has an account.
      afterResponse(c, async () => {
        const queue = () => queueResetMail(c.var.ctx, input.mail)
        // One more try on a passing database error: the person is already told a mail is on its way.
        const ids = await queue().catch((error: unknown) => {
          console.error('Reset mail not queued; trying again', error)
          return queue()
        })
        await deliverOutbox(c.var.ctx, { ids })
      })
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/password/token/{token}',
      tags: ['Password'],
      summary: 'The user a reset link is for: 404 TOKEN_NOT_FOUND, 410 TOKEN_USED or TOKEN_EXPIRED otherwise',
      request: { params: tokenParam },
      responses: { 200: json(tokenUserSchema, 'The link is usable'), ...errors(400, 404, 410) },
    }),
    async (c) => {
      c.header('Referrer-Policy', 'no-referrer')
      return c.json(await tokenUser(c.var.ctx, c.req.valid('param').token), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/password/renew/',
      tags: ['Password'],
      summary: 'Set a new password with a reset link (single use); every session of the user ends',
      request: { body: jsonBody(renewSchema) },
      responses: { 204: { description: 'Password set' }, ...errors(400, 403, 404, 410) },
    }),
    async (c) => {
      await renewPassword(c.var.ctx, c.req.valid('json'))
      return c.body(null, 204)
    },
  )
