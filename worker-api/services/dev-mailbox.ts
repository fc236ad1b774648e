import { getDb } from '../db/client'
import type { Env } from '../env'
import { notFound } from '../lib/errors'

export type DevMailSummary = {
  id: number
  to: string
  subject: string
  kind: string
  createdAt: string
  sentAt: string | null
  attempts: number
  lastError: string | null
}

const LIST_LIMIT = 100

/** The newest mails of the outbox, delivered or not (development only, see routes/dev.ts). */
export async function devMails(env: Env): Promise<DevMailSummary[]> {
  const rows = await getDb(env.DB)
    .selectFrom('outbox')
    .select(['id', 'to_address', 'subject', 'kind', 'created_at', 'sent_at', 'attempts', 'last_error'])
    .orderBy('id', 'desc')
    .limit(LIST_LIMIT)
    .execute()
  return rows.map((row) => ({
    id: row.id,
    to: row.to_address,
    subject: row.subject,
    kind: row.kind,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    attempts: row.attempts,
    lastError: row.last_error,
  }))
}

/** One mail, whole, with the links of its text part (so the mailbox can offer to follow them). */
export async function devMail(env: Env, id: number) {
  const row = await getDb(env.DB).selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound('Unknown mail')
  return {
    id: row.id,
    to: row.to_address,
    subject: row.subject,
    kind: row.kind,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    attempts: row.attempts,
    lastError: row.last_error,
    text: row.text,
    html: row.html,
    links: [...new Set(row.text.match(/https?:\/\/\S+/g) ?? [])],
  }
}
