import { describe, expect, it } from 'vitest'
import { MAIL_LANGUAGES } from '../../worker-api/lib/mail/messages'
import { escapeHtml, fill, renderMail } from '../../worker-api/lib/mail/render'
import { mailChangedMail, mailLanguage, passwordResetMail } from '../../worker-api/lib/mail/templates'
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, retryDelaySeconds } from '../../worker-api/services/core/outbox'

const user = { nom: 'Martin', prenom: 'Claire', login: 'cmartin' }
const URL_ = 'https://portail.example.org/renewPassword/AbC-123_xyz'

/** Every leaf of a word set, as dotted key → text. */
function leaves(words: object, prefix = ''): [string, string][] {
  return Object.entries(words).flatMap(([key, value]) =>
    typeof value === 'string' ? [[`${prefix}${key}`, value] as [string, string]] : leaves(value, `${prefix}${key}.`),
  )
}

const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort()
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])

describe('passwordResetMail', () => {
  it('carries the same link in the text part and the HTML part (button and fallback)', () => {
    const mail = passwordResetMail('fr', user, URL_, 3)
    expect(mail.text.split('\n')).toContain(URL_)
    expect(hrefs(mail.html)).toEqual([URL_, URL_])
    expect(mail.html).toContain(`>${URL_}</a>`)
  })

  it('greets the user, names the account and the lifetime of the link in both parts', () => {
    const mail = passwordResetMail('fr', user, URL_, 3)
    expect(mail.subject).toBe('Réinitialisation de votre mot de passe')
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('Bonjour Claire Martin,')
      expect(part).toContain('cmartin')
      expect(part).toContain('valable 3 heures')
      expect(part).not.toMatch(/\{\{\w+\}\}/)
    }
  })

  it('speaks English when asked', () => {
    const mail = passwordResetMail('en', user, URL_, 3)
    expect(mail.subject).toBe('Resetting your password')
    expect(mail.html).toContain('<html lang="en">')
    expect(mail.text).toContain('Hello Claire Martin,')
    expect(mail.text).toContain('valid for 3 hours')
  })

  it('escapes every value in the HTML part and keeps the text part as typed', () => {
    const hostile = { nom: '<script>alert(1)</script>', prenom: 'Zoé & "Co"', login: "o'brien<b>" }
    const url = 'https://portail.example.org/renewPassword/x?a=1&b="2"'
    const mail = passwordResetMail('fr', hostile, url, 3)
    expect(mail.html).not.toContain('<script')
    expect(mail.html).not.toContain('<b>')
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(mail.html).toContain('Zoé &amp; &quot;Co&quot;')
    expect(mail.html).toContain('o&#39;brien&lt;b&gt;')
    // An attribute cannot be broken out of; unescaped, the href is the link.
    const escapedUrl = 'https://portail.example.org/renewPassword/x?a=1&amp;b=&quot;2&quot;'
    expect(hrefs(mail.html)).toEqual([escapedUrl, escapedUrl])
    expect(mail.text).toContain('Bonjour Zoé & "Co" <script>alert(1)</script>,')
    expect(mail.text).toContain(url)
  })
})

describe('mailChangedMail', () => {
  it('names the new address and has no action link', () => {
    const mail = mailChangedMail('fr', user, 'nouvelle@example.test')
    expect(mail.subject).toBe('Votre adresse e-mail a été modifiée')
    expect(mail.text).toContain('est désormais nouvelle@example.test')
    expect(hrefs(mail.html)).toEqual([])
  })
})

describe('renderMail', () => {
  it('puts the same words in both parts, and the subject as the HTML title', () => {
    const mail = renderMail('fr', {
      subject: 'Sujet <important>',
      greeting: 'Bonjour,',
      paragraphs: ['Premier paragraphe.', 'Second paragraphe.'],
      notes: ['Une note.'],
    })
    expect(mail.subject).toBe('Sujet <important>')
    expect(mail.html).toContain('<title>Sujet &lt;important&gt;</title>')
    for (const words of ['Bonjour,', 'Premier paragraphe.', 'Second paragraphe.', 'Une note.']) {
      expect(mail.text).toContain(words)
      expect(mail.html).toContain(words)
    }
    expect(mail.text).toContain(MAIL_LANGUAGES.fr.signature)
    expect(mail.text).toContain(MAIL_LANGUAGES.fr.automatic)
  })
})

describe('mail words (MAIL_LANGUAGES)', () => {
  const languages = Object.keys(MAIL_LANGUAGES) as (keyof typeof MAIL_LANGUAGES)[]

  it('has French and English', () => {
    expect(languages.sort()).toEqual(['en', 'fr'])
  })

  it('has the same keys, none empty, with the same placeholders, in every language', () => {
    const reference = new Map(leaves(MAIL_LANGUAGES.fr))
    for (const language of languages) {
      const words = new Map(leaves(MAIL_LANGUAGES[language]))
      expect({ language, keys: [...words.keys()].sort() }).toEqual({ language, keys: [...reference.keys()].sort() })
      for (const [key, text] of words) {
        expect(text.trim(), `${language}.${key}`).not.toBe('')
        expect(placeholders(text), `${language}.${key}`).toEqual(placeholders(reference.get(key) ?? ''))
      }
    }
  })

  it('picks the mail language of a stored user language, French by default', () => {
    expect(mailLanguage('en')).toBe('en')
    expect(mailLanguage('fr')).toBe('fr')
    expect(mailLanguage('de')).toBe('fr')
  })
})

describe('fill', () => {
  it('fills known placeholders and leaves unknown ones visible', () => {
    expect(fill('Bonjour {{prenom}} {{nom}}, {{inconnu}}', { prenom: 'Claire', nom: 'Martin' })).toBe(
      'Bonjour Claire Martin, {{inconnu}}',
    )
    expect(fill('{{hours}} heures', { hours: 3 })).toBe('3 heures')
  })

  it('inserts values literally, even ones that look like replacement patterns', () => {
    expect(fill('{{a}}', { a: "$& $1 $$ $'" })).toBe("$& $1 $$ $'")
    expect(fill('{{a}}', { a: '{{b}}', b: 'x' })).toBe('{{b}}')
  })

  it('does not escape: escaping is the HTML renderer’s job', () => {
    expect(fill('{{a}}', { a: '<b>' })).toBe('<b>')
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
  })
})

describe('retryDelaySeconds', () => {
  it('starts at a minute, never shrinks, and caps at the last delay', () => {
    expect(retryDelaySeconds(1)).toBe(60)
    const delays = Array.from({ length: MAX_ATTEMPTS + 5 }, (_, i) => retryDelaySeconds(i + 1))
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] as number)
    expect(delays[1]).toBeGreaterThan(delays[0] as number)
    const cap = RETRY_DELAYS_SECONDS.at(-1)
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS.length)).toBe(cap)
    expect(retryDelaySeconds(MAX_ATTEMPTS)).toBe(cap)
    expect(retryDelaySeconds(1000)).toBe(cap)
  })

  it('keeps trying 11 times over 27.9 hours (README, SECURITY.md) before giving up', () => {
    const waited = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryDelaySeconds(i + 1)).reduce((a, b) => a + b)
    expect(MAX_ATTEMPTS).toBe(11)
    expect(waited).toBe(100_380)
    expect((waited / 3600).toFixed(1)).toBe('27.9')
  })
})
