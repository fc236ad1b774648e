import { describe, expect, it } from 'vitest'
import { toastHeaders } from '../../app/lib/toast.server'
import { action as switchLanguage } from '../../app/routes/language'
import { uiContext } from './helpers'

const context = uiContext

const setCookieOf = (headers: HeadersInit | Headers) => new Headers(headers).get('Set-Cookie') ?? ''

describe('the notice and language cookies', () => {
  for (const [scheme, secure] of [
    ['https', true],
    ['http', false],
  ] as const) {
    it(`are ${secure ? '' : 'not '}Secure over ${scheme}, like the session cookie`, async () => {
      const request = new Request(`${scheme}://portail.example.org/pages/user/me`)
      const toast = setCookieOf(await toastHeaders(request, context, { type: 'success', key: 'profile.saved' }))
      expect(toast).toMatch(/^portail-toast=/)
      expect(/;\s*Secure/i.test(toast)).toBe(secure)
      expect(toast).toMatch(/HttpOnly/i)

      const form = new FormData()
      form.set('lng', 'en')
      form.set('redirectTo', '/login')
      const switched = await switchLanguage({
        request: new Request(`${scheme}://portail.example.org/language`, { method: 'POST', body: form }),
        context,
        params: {},
      } as Parameters<typeof switchLanguage>[0])
      const language = setCookieOf((switched as Response).headers)
      expect(language).toMatch(/^lng=/)
      expect(/;\s*Secure/i.test(language)).toBe(secure)
    })
  }
})
