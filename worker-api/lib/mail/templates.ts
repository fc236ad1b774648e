import { MAIL_LANGUAGES, type MailLanguage, type MailWords } from './messages'
import { fill, type RenderedMail, renderMail } from './render'

type Recipient = { nom: string; prenom: string; login: string }
type LinkWords = { subject: string; intro: string; action: string; expiry: string; ignore: string }
type NoticeWords = { subject: string; intro: string; warning: string }

export const mailLanguage = (langue: string): MailLanguage => (langue === 'en' ? 'en' : 'fr')

/** A mail carrying a single-use link: what it is for, the button, how long it lives, what if not you. */
function linkMail(
  language: MailLanguage,
  words: (all: MailWords) => LinkWords,
  user: Recipient,
  values: Record<string, string>,
  url: string,
  hours: number,
): RenderedMail {
  const all = MAIL_LANGUAGES[language]
  const m = words(all)
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(all.greeting, user),
    paragraphs: [fill(m.intro, { ...user, ...values })],
    action: { label: m.action, url },
    notes: [fill(m.expiry, { hours, days: hours / 24 }), m.ignore],
  })
}

/** A notice of something done to the account, with what to do if it was not the user. */
function noticeMail(
  language: MailLanguage,
  words: (all: MailWords) => NoticeWords,
  user: Recipient,
  values: Record<string, string> = {},
): RenderedMail {
  const all = MAIL_LANGUAGES[language]
  const m = words(all)
  return renderMail(language, {
    subject: m.subject,
    greeting: fill(all.greeting, user),
    paragraphs: [fill(m.intro, { ...user, ...values })],
    notes: [m.warning],
  })
}

/** The password-reset mail: a single-use link to /renewPassword/{token} on the user's domain. */
export const passwordResetMail = (language: MailLanguage, user: Recipient, url: string, hours: number) =>
  linkMail(language, (w) => w.passwordReset, user, {}, url, hours)

/** Sent to the new address a user gave themself: the change waits for this link (DESIGN §5). */
export const mailChangeConfirmMail = (
  language: MailLanguage,
  user: Recipient,
  newMail: string,
  url: string,
  hours: number,
) => linkMail(language, (w) => w.mailChangeConfirm, user, { mail: newMail }, url, hours)

/** Sent to the former address when a user's mail changes, so a hijacked session cannot do it silently. */
export const mailChangedMail = (language: MailLanguage, user: Recipient, newMail: string) =>
  noticeMail(language, (w) => w.mailChanged, user, { mail: newMail })

/** Sent to the current address when a change to another one is asked for, before it takes effect. */
export const mailChangeRequestedMail = (language: MailLanguage, user: Recipient, newMail: string) =>
  noticeMail(language, (w) => w.mailChangeRequested, user, { mail: newMail })

/**
 * Sent to the new address an administrator gave a user (`admin` names them): as for one's own change,
 * the address moves only once this link is opened, so a typo or a hostile address takes nothing over.
 */
export const mailChangeByAdminConfirmMail = (
  language: MailLanguage,
  user: Recipient,
  admin: string,
  newMail: string,
  url: string,
  hours: number,
) => linkMail(language, (w) => w.mailChangeByAdminConfirm, user, { admin, mail: newMail }, url, hours)

/** Sent to the current address when an administrator asks for another one: who asked, and that nothing moved yet. */
export const mailChangeByAdminMail = (language: MailLanguage, user: Recipient, admin: string, newMail: string) =>
  noticeMail(language, (w) => w.mailChangeByAdmin, user, { admin, mail: newMail })

/**
 * The invitation of a user an administrator created (`admin` names them): a single-use link to
 * /renewPassword/{token} where the user chooses the password that activates the account.
 */
export const invitationMail = (language: MailLanguage, user: Recipient, admin: string, url: string, hours: number) =>
  linkMail(language, (w) => w.invitation, user, { admin }, url, hours)

/**
 * The answer to a carrier's accepted registration (`structure` names their company): a single-use
 * link to /renewPassword/{token} where they choose the password that completes it.
 */
export const registrationMail = (
  language: MailLanguage,
  user: Recipient,
  structure: string,
  url: string,
  hours: number,
) => linkMail(language, (w) => w.registration, user, { structure }, url, hours)

/** Sent after a password change or reset, so that a change made by someone else does not go unseen. */
export const passwordChangedMail = (language: MailLanguage, user: Recipient) =>
  noticeMail(language, (w) => w.passwordChanged, user)

/** What a notice about the second factor names: an authenticator app, a passkey, new recovery codes. */
export type Factor = { kind: 'totp' } | { kind: 'passkey'; nom: string } | { kind: 'recoveryCodes' }

const factorWords = (language: MailLanguage, factor: Factor) => {
  const words = MAIL_LANGUAGES[language].factors
  return factor.kind === 'passkey' ? fill(words.passkey, { nom: factor.nom }) : words[factor.kind]
}

/** Sent when a second factor is added to the account (or its recovery codes renewed). */
export const factorAddedMail = (language: MailLanguage, user: Recipient, factor: Factor) =>
  noticeMail(language, (w) => w.factorAdded, user, { facteur: factorWords(language, factor) })

/** Sent when a second factor is removed from the account. */
export const factorRemovedMail = (language: MailLanguage, user: Recipient, factor: Factor) =>
  noticeMail(language, (w) => w.factorRemoved, user, { facteur: factorWords(language, factor) })

/** Sent when an administrator (`admin` names them) resets the user's second factor. */
export const factorResetMail = (language: MailLanguage, user: Recipient, admin: string) =>
  noticeMail(language, (w) => w.factorReset, user, { admin })

/**
 * Sent when an administrator (`admin` names them) ended every session of the user: signed out
 * everywhere by someone else, they are told who did it.
 */
export const sessionsEndedByAdminMail = (language: MailLanguage, user: Recipient, admin: string) =>
  noticeMail(language, (w) => w.sessionsEndedByAdmin, user, { admin })

/**
 * Sent to a webhook subscription's administrator when it stops being served: its address answered 410 Gone
 * (`gone`), or a delivery failed a whole day (`failing`).
 */
export function webhookDisabledMail(
  language: MailLanguage,
  owner: Recipient,
  url: string,
  why: 'gone' | 'failing',
): RenderedMail {
  const words = MAIL_LANGUAGES[language].webhookDisabled
  return noticeMail(language, (w) => w.webhookDisabled, owner, { url, motif: words[why] })
}

/** What a mail about an access request names (dates as dd/MM/yyyy). */
export type RequestFacts = { application: string; debut: string; fin: string; motif: string; expiration: string }

/**
 * Sent to an administrator who manages the requester (`demandeur` names them): what is asked, why, and the link to
 * the requests to decide; `waitingDays` set, the reminder to the next sub-tree up of a request still waiting.
 */
export function accessRequestedMail(
  language: MailLanguage,
  admin: Recipient | { nom: string; prenom: string },
  demandeur: string,
  facts: RequestFacts,
  url: string,
  waitingDays?: number,
): RenderedMail {
  const all = MAIL_LANGUAGES[language]
  const m = waitingDays === undefined ? all.accessRequested : all.accessRequestWaiting
  const values = { ...facts, demandeur, jours: waitingDays ?? 0 }
  return renderMail(language, {
    subject: fill(m.subject, values),
    greeting: fill(all.greeting, admin),
    paragraphs: [fill(m.intro, values)],
    action: { label: m.action, url },
    notes: [fill(m.expiry, values)],
  })
}

/** Sent to the requester once a request is decided or expired: what was granted, why it was refused, or that it lapsed. */
export function accessAnsweredMail(
  language: MailLanguage,
  user: { nom: string; prenom: string },
  answer:
    | { kind: 'granted'; admin: string; fonction: string; structure: string; commentaire: string | null }
    | { kind: 'refused'; admin: string; commentaire: string }
    | { kind: 'expired'; days: number },
  facts: { application: string; debut: string; fin: string },
): RenderedMail {
  const all = MAIL_LANGUAGES[language]
  const paragraphs: string[] = []
  let subject: string
  let note: string
  if (answer.kind === 'granted') {
    const values = { ...facts, ...answer, commentaire: answer.commentaire ?? '' }
    subject = fill(all.accessGranted.subject, values)
    paragraphs.push(fill(all.accessGranted.intro, values))
    if (answer.commentaire) paragraphs.push(fill(all.accessGranted.comment, values))
    note = fill(all.accessGranted.note, values)
  } else if (answer.kind === 'refused') {
    const values = { ...facts, ...answer }
    subject = fill(all.accessRefused.subject, values)
    paragraphs.push(fill(all.accessRefused.intro, values))
    note = all.accessRefused.note
  } else {
    const values = { ...facts, jours: answer.days }
    subject = fill(all.accessExpired.subject, values)
    paragraphs.push(fill(all.accessExpired.intro, values))
    note = all.accessExpired.note
  }
  return renderMail(language, { subject, greeting: fill(all.greeting, user), paragraphs, notes: [note] })
}

/** Sent to an administrator with posts of a review campaign left to review: halfway, and two days before the due date. */
export function reviewReminderMail(
  language: MailLanguage,
  admin: { nom: string; prenom: string },
  review: { campagne: string; echeance: string; restants: number; url: string },
): RenderedMail {
  const all = MAIL_LANGUAGES[language]
  const m = all.reviewReminder
  return renderMail(language, {
    subject: fill(m.subject, review),
    greeting: fill(all.greeting, admin),
    paragraphs: [fill(m.intro, review)],
    action: { label: m.action, url: review.url },
    notes: [fill(m.due, review)],
  })
}
