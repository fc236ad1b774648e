import { MAIL_LANGUAGES, type MailLanguage } from './messages'

/** A mail ready for the outbox: the same content as HTML and as plain text. */
export type RenderedMail = { subject: string; html: string; text: string }

export type MailContent = {
  subject: string
  greeting: string
  paragraphs: string[]
  action?: { label: string; url: string }
  /** Smaller print under the action (expiry, what to do if it was not you). */
  notes?: string[]
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)

/** Fills `{{name}}` placeholders; unknown names are left visible rather than silently dropped. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole))
}

const FONT = 'font-family:Arial,Helvetica,sans-serif'

/**
 * Renders a transactional mail: a single-column table layout with inline styles (what mail clients
 * render reliably), a bulletproof button, the raw link for clients that block it, and a text part
 * with the same words. Every value is escaped in the HTML part.
 */
export function renderMail(language: MailLanguage, content: MailContent): RenderedMail {
  const words = MAIL_LANGUAGES[language]
  const p = (text: string, style = '') =>
    `<p style="margin:0 0 16px;${FONT};font-size:15px;line-height:1.5;color:#1f2937;${style}">${escapeHtml(text)}</p>`
  const action = content.action
  const button = action
    ? `<table role="presentation" cellspacing="0" cellpadding="0" border="0" style="margin:8px 0 24px"><tr>` +
      `<td style="border-radius:6px;background:#7a4419"><a href="${escapeHtml(action.url)}" ` +
      `style="display:inline-block;padding:12px 20px;${FONT};font-size:15px;font-weight:bold;color:#ffffff;text-decoration:none;border-radius:6px">` +
      `${escapeHtml(action.label)}</a></td></tr></table>` +
      p(words.linkFallback, 'font-size:13px;color:#4b5563') +
      `<p style="margin:0 0 16px;${FONT};font-size:13px;word-break:break-all"><a href="${escapeHtml(action.url)}" style="color:#7a4419">${escapeHtml(action.url)}</a></p>`
    : ''
  const notes = (content.notes ?? []).map((note) => p(note, 'font-size:13px;color:#4b5563')).join('')
  const html = `<!DOCTYPE html>
<html lang="${language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="background:#f3f4f6"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="max-width:560px;background:#ffffff;border-radius:8px"><tr><td style="padding:32px">
${p(words.signature, 'font-size:13px;font-weight:bold;color:#7a4419')}
${p(content.greeting)}
${content.paragraphs.map((text) => p(text)).join('\n')}
${button}
${notes}
</td></tr></table>
${p(words.automatic, 'font-size:12px;color:#6b7280;margin:16px 0 0')}
</td></tr></table>
</body>
</html>`
  const text = [
    content.greeting,
    '',
    ...content.paragraphs.flatMap((text) => [text, '']),
    ...(action ? [action.label, action.url, ''] : []),
    ...(content.notes ?? []).flatMap((note) => [note, '']),
    '-- ',
    words.signature,
    words.automatic,
  ].join('\n')
  return { subject: content.subject, html, text }
}
