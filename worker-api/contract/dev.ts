/** The development mailbox (DESIGN §5; development only, outside the OpenAPI description). */
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

/** One mail, whole, with the links of its text part (so the mailbox can offer to follow them). */
export type DevMail = DevMailSummary & { text: string; html: string; links: string[] }
