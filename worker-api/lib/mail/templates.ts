import { MAIL_LANGUAGES, type MailLanguage } from './messages'
import { fill, type RenderedMail, renderMail } from './render'

type Recipient = { nom: string; prenom: string; login: string }

export const mailLanguage = (langue: string): MailLanguage => (langue === 'en' ? 'en' : 'fr')

/** The password-reset mail: a single-use link to /renewPassword/{token} on the user's domain. */
export function passwordResetMail(language: MailLanguage, user: Recipient, url: string, hours: number): RenderedMail {
  const words = MAIL_LANGUAGES[language]
  const m = words.passwordReset
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(words.greeting, user),
    paragraphs: [fill(m.intro, user)],
    action: { label: m.action, url },
    notes: [fill(m.expiry, { hours }), m.ignore],
  })
}

/** Sent to the former address when a user's mail changes, so a hijacked session cannot do it silently. */
export function mailChangedMail(language: MailLanguage, user: Recipient, newMail: string): RenderedMail {
  const words = MAIL_LANGUAGES[language]
  const m = words.mailChanged
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(words.greeting, user),
    paragraphs: [fill(m.intro, { ...user, mail: newMail })],
    notes: [m.warning],
  })
}

/** Sent after a password change or reset, so that a change made by someone else does not go unseen. */
export function passwordChangedMail(language: MailLanguage, user: Recipient): RenderedMail {
  const words = MAIL_LANGUAGES[language]
  const m = words.passwordChanged
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(words.greeting, user),
    paragraphs: [fill(m.intro, user)],
    notes: [m.warning],
  })
}
