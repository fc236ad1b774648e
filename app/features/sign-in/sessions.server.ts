import { apiMessage, type Message } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { focusFragment, formReply, submitted } from '~/lib/form.server'

/**
 * The forms of the list of one's own sessions (sessions-list.tsx): a session ended
 * (`session`, its `id`) or all the others (`sessions-autres`), then back to `back` with a notice.
 * Null for any other form of the page.
 */
export async function ownSessionsAction(auth: Auth, form: FormData, back: string) {
  const intent = form.get('intent')
  if (intent !== 'session' && intent !== 'sessions-autres') return null
  const fail = async (error: Message) => formReply(intent, submitted(form).reply(), error, await auth.headers())
  const done = (key: string, values?: Record<string, string>) =>
    auth.redirectWithToast(`${back}${focusFragment(form)}`, { type: 'success', key, values })

  if (intent === 'sessions-autres') {
    const result = await auth.settle(auth.api.rest.bd.session.autres.$delete())
    if (!result.ok) return fail(apiMessage(result, 'sessions.endFailed'))
    return done('sessions.othersEnded')
  }
  const id = form.get('id')
  if (typeof id !== 'string' || id === '') return fail({ key: 'errors.technical' })
  const result = await auth.settle(auth.api.rest.bd.session[':id'].$delete({ param: { id } }))
  // Ended meanwhile (from another device): said as such.
  if (!result.ok)
    return fail(result.status === 404 ? { key: 'sessions.gone' } : apiMessage(result, 'sessions.endFailed'))
  return done('sessions.ended', { browser: String(form.get('browser') ?? '') })
}
