import { Hono } from 'hono'
import { notFound } from '../lib/errors'
import type { AppEnv } from '../lib/types'
import { devMail, devMails } from '../services/core/dev-mailbox'

/**
 * The development mailbox (DESIGN §5): the outbox as a newcomer needs it to follow a reset link
 * from `npm start`. It exists only when ENVIRONMENT=development; anywhere else it is a 404 like any
 * unknown path, and it is left out of the OpenAPI description.
 */
export const devRoutes = new Hono<AppEnv>()
  .use('/rest/dev/*', async (c, next) => {
    if (c.var.ctx.env.ENVIRONMENT !== 'development') throw notFound('No such endpoint')
    await next()
  })
  .get('/rest/dev/mails', async (c) => c.json(await devMails(c.var.ctx)))
  .get('/rest/dev/mails/:id{[0-9]+}', async (c) => c.json(await devMail(c.var.ctx, Number(c.req.param('id')))))
  .get('/rest/dev/mails/:id{[0-9]+}/html', async (c) => {
    const mail = await devMail(c.var.ctx, Number(c.req.param('id')))
    // Shown framed in the mailbox page: no script, its own styles only, links open a new tab.
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox",
    )
    c.header('X-Content-Type-Options', 'nosniff')
    c.header('Referrer-Policy', 'no-referrer')
    return c.html(mail.html.replace('<head>', '<head><base target="_blank">'))
  })
