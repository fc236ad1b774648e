import type { ImportMessage } from './bulk/bulk'
import type { ReviewMessage } from './governance/access-reviews'
import type { ArchiveMessage } from './history/archive'
import type { SearchMessage } from './history/search'

/**
 * What the jobs queue carries (wrangler.toml, binding `JOBS`): one step of a long piece of work, tagged by its kind —
 * a lot of an import (services/bulk/run.ts), a step of an access review campaign (services/governance/review-runs.ts), a step of a month's archive
 * (services/history/archive.ts), a step of a search of the archived months (services/history/archive-search.ts).
 * Each step is idempotent: delivered twice, it writes once. A new kind of work adds its member here, and the consumer
 * (server.ts `queue`) its case.
 */
export type Job =
  | ({ kind: 'import-lot' } & ImportMessage)
  | ({ kind: 'review-step' } & ReviewMessage)
  | ({ kind: 'archive-step' } & ArchiveMessage)
  | ({ kind: 'history-search' } & SearchMessage)
  /** Send the webhook deliveries that are due (services/machines/webhook-delivery.ts); the rows say which. */
  | { kind: 'webhook-delivery' }
