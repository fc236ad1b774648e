import type { AppLoadContext } from '@remix-run/cloudflare'
import { publicApi, read } from '~/lib/api.server'
import type { CaptchaConfig } from './captcha-config'

/** What a page with the human-verification widget needs: the no-JS question and the widget to show. */
export async function captchaSetup(request: Request, context: AppLoadContext) {
  const question = await read(publicApi(request, context).rest.public.bd.captcha.question.$get())
  if (!question.ok) throw new Response('Captcha unavailable', { status: 503 })
  const { env } = context.cloudflare
  const captcha: CaptchaConfig = {
    provider: env.CAPTCHA_PROVIDER === 'turnstile' ? 'turnstile' : 'altcha',
    siteKey: env.TURNSTILE_SITE_KEY ?? null,
  }
  return { question: question.data, captcha }
}
