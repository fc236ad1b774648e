import type { Env } from '../types'

/** One mail as the outbox hands it to a provider. */
export type OutgoingMail = { id: number; createdAt: string; to: string; subject: string; html: string; text: string }

/**
 * Where mail goes (DESIGN §5), chosen by MAIL_PROVIDER. `send` resolves once the provider has
 * accepted the mail (with its message id when it gives one) and throws otherwise; the outbox retries.
 */
export interface MailProvider {
  readonly name: string
  send(mail: OutgoingMail): Promise<{ messageId: string | null }>
}

export const MAIL_PROVIDERS = ['log', 'resend'] as const
export type MailProviderName = (typeof MAIL_PROVIDERS)[number]

/** Local default: the mail stays in the outbox (read it at /dev/mails); one line goes to the log. */
export const logProvider: MailProvider = {
  name: 'log',
  async send(mail) {
    console.log(`[mail] #${mail.id} "${mail.subject}" (kept in the outbox; see /dev/mails in development)`)
    return { messageId: null }
  },
}

export const RESEND_ENDPOINT = 'https://api.resend.com/emails'
const SEND_TIMEOUT_MS = 10_000

/**
 * Resend's HTTP API. The Idempotency-Key makes a retry of a mail Resend already accepted (say, the
 * answer was lost) a no-op on their side for 24 hours, so a retry never sends a duplicate.
 */
export function resendProvider(apiKey: string, from: string): MailProvider {
  return {
    name: 'resend',
    async send(mail) {
      const response = await fetch(RESEND_ENDPOINT, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': `portail-outbox/${mail.id}/${mail.createdAt}`,
        },
        body: JSON.stringify({ from, to: [mail.to], subject: mail.subject, html: mail.html, text: mail.text }),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      })
      const body = await response.text()
      if (!response.ok) throw new Error(`Resend answered ${response.status}: ${body.slice(0, 300)}`)
      let messageId: string | null = null
      try {
        messageId = (JSON.parse(body) as { id?: string }).id ?? null
      } catch {
        // Accepted without a readable id: still delivered.
      }
      return { messageId }
    },
  }
}

/** Refuses every mail, so that a misconfigured provider keeps them queued rather than lost. */
function unconfigured(reason: string): MailProvider {
  return {
    name: 'unconfigured',
    async send() {
      throw new Error(reason)
    },
  }
}

/**
 * What is wrong with the mail configuration, or null. Not fatal: sign-in and everything else work,
 * mail waits in the outbox (with this as its last error) until the configuration is fixed.
 */
export function mailConfigProblem(env: Env): string | null {
  const name = env.MAIL_PROVIDER ?? 'log'
  if (!(MAIL_PROVIDERS as readonly string[]).includes(name)) return `Unknown MAIL_PROVIDER "${name}"`
  if (name === 'resend' && !(env.RESEND_API_KEY && env.MAIL_FROM)) {
    return 'MAIL_PROVIDER=resend needs RESEND_API_KEY and MAIL_FROM'
  }
  return null
}

/** The configured provider. `log` only when asked for (or by default): never as a fallback. */
export function mailProvider(env: Env): MailProvider {
  const problem = mailConfigProblem(env)
  if (problem) return unconfigured(problem)
  if (env.MAIL_PROVIDER === 'resend' && env.RESEND_API_KEY && env.MAIL_FROM) {
    return resendProvider(env.RESEND_API_KEY, env.MAIL_FROM)
  }
  return logProvider
}
