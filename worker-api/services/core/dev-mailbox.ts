import type { DevMail, DevMailSummary } from '../../contract/dev'
import type { OutboxRow } from '../../db/schema'
import { notFound } from '../../lib/errors'
import type { Ctx } from '../../lib/types'

const LIST_LIMIT = 100

type SummaryRow = Pick<
  OutboxRow,
  'id' | 'to_address' | 'subject' | 'kind' | 'created_at' | 'sent_at' | 'attempts' | 'last_error'
>

const summary = (row: SummaryRow): DevMailSummary => ({
  id: row.id,
  to: row.to_address,
  subject: row.subject,
  kind: row.kind,
  createdAt: row.created_at,
  sentAt: row.sent_at,
  attempts: row.attempts,
  lastError: row.last_error,
})

/** The newest mails of the outbox, delivered or not (development only, see routes/dev.ts). */
export async function devMails(ctx: Ctx): Promise<DevMailSummary[]> {
  const rows = await ctx.db
    .selectFrom('outbox')
    .select(['id', 'to_address', 'subject', 'kind', 'created_at', 'sent_at', 'attempts', 'last_error'])
    .orderBy('id', 'desc')
    .limit(LIST_LIMIT)
    .execute()
  return rows.map(summary)
}

/** One mail, whole, with the links of its text part (so the mailbox can offer to follow them). */
export async function devMail(ctx: Ctx, id: number): Promise<DevMail> {
  const row = await ctx.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound('Unknown mail')
  return {
    ...summary(row),
    text: row.text,
    html: row.html,
    links: [...new Set(row.text.match(/https?:\/\/\S+/g) ?? [])],
  }
}
