import type { AppLoadContext } from '@remix-run/cloudflare'
import type { CaptchaConfig, CaptchaQuestion } from '~/components/captcha'
import { callApi } from './api.server'

/** What a page with the human-verification widget needs: the no-JS question and the widget to show. */
export async function captchaSetup(request: Request, context: AppLoadContext) {
  const question = await callApi<CaptchaQuestion>(request, context, 'public/bd/captcha/question')
  if (!question.ok) throw new Response('Captcha unavailable', { status: 503 })
  const { env } = context.cloudflare
  const captcha: CaptchaConfig = {
    provider: env.CAPTCHA_PROVIDER === 'turnstile' ? 'turnstile' : 'altcha',
    siteKey: env.TURNSTILE_SITE_KEY ?? null,
  }
  return { question: question.data, captcha }
}
