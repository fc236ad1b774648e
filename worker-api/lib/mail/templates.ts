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

/** Sent to the new address a user gave themself: the change waits for this link (DESIGN §5). */
export function mailChangeConfirmMail(
  language: MailLanguage,
  user: Recipient,
  newMail: string,
  url: string,
  hours: number,
): RenderedMail {
  const words = MAIL_LANGUAGES[language]
  const m = words.mailChangeConfirm
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(words.greeting, user),
    paragraphs: [fill(m.intro, { ...user, mail: newMail })],
    action: { label: m.action, url },
    notes: [fill(m.expiry, { hours }), m.ignore],
  })
}

/** Sent to the current address when a change to another one is asked for, before it takes effect. */
export function mailChangeRequestedMail(language: MailLanguage, user: Recipient, newMail: string): RenderedMail {
  const words = MAIL_LANGUAGES[language]
  const m = words.mailChangeRequested
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(words.greeting, user),
    paragraphs: [fill(m.intro, { ...user, mail: newMail })],
    notes: [m.warning],
  })
}

/** Sent to the new address an administrator gave a user: it is the account's from now on. */
export function mailNowUsedMail(language: MailLanguage, user: Recipient, newMail: string): RenderedMail {
  const words = MAIL_LANGUAGES[language]
  const m = words.mailNowUsed
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(words.greeting, user),
    paragraphs: [fill(m.intro, { ...user, mail: newMail })],
    notes: [m.warning],
  })
}
