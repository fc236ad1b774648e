import { createRoute } from '@hono/zod-openapi'
import { z } from 'zod'
import { BusinessError } from '../lib/errors'
import { router } from '../lib/validation'
import { checkCaptcha, newChallenge, newQuestion } from '../services/core/captcha'
import { errors, json } from './openapi'

export const captchaRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/captcha/challenge',
      tags: ['Captcha'],
      summary: 'A fresh ALTCHA proof-of-work challenge',
      responses: {
        200: json(
          z.object({
            algorithm: z.string(),
            challenge: z.string(),
            maxnumber: z.number().optional(),
            salt: z.string(),
            signature: z.string(),
          }),
          'Challenge',
        ),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await newChallenge(c.var.ctx), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/captcha/question',
      tags: ['Captcha'],
      summary: 'A signed arithmetic question, the fallback for browsers without JavaScript',
      responses: { 200: json(z.object({ a: z.number(), b: z.number(), question: z.string() }), 'Question') },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await newQuestion(c.var.ctx), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/utilisateur/validate/captcha',
      tags: ['Captcha'],
      summary: 'Whether a solved payload would be accepted (does not consume it)',
      request: { query: z.object({ request: z.string().max(4096).optional() }) },
      responses: { 200: json(z.object({ success: z.boolean() }), 'Verdict'), ...errors(400) },
    }),
    async (c) => {
      const verdict = await checkCaptcha(c.var.ctx, c.req.valid('query').request)
      if (verdict === 'malformed') throw new BusinessError('CAPTCHA_CHAR_INVALID', 400, 'Malformed captcha payload')
      return c.json({ success: verdict === 'ok' }, 200)
    },
  )
