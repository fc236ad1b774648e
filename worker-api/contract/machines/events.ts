import { z } from 'zod'

/**
 * The portal's events (issue 65): each says what changed, who did it and about whom. The same object is a webhook's
 * delivered body and an item of the pull (GET rest/bd/evenements).
 */

/** How long an event is kept, for the programs that pull them and for the delivery log. */
export const EVENT_KEPT_DAYS = 30

/** The most events one pull answers. */
export const EVENTS_PAGE_MAX = 100
export const EVENTS_PAGE_DEFAULT = 50

export const eventActorSchema = z
  .object({
    type: z.enum(['utilisateur', 'compte_service', 'systeme']),
    id: z.number().int().optional(),
    login: z.string().optional().describe("A user's login"),
    nom: z.string().optional().describe("A service account's name"),
  })
  .describe('Who acted: a user, a service account, or the portal itself (a date passing, a deadline)')

export const eventSchema = z.object({
  id: z.number().int().describe('Increasing; the pull resumes after it (depuis)'),
  type: z.string().describe('utilisateur.cree, poste.debut, …'),
  date: z.string().describe('When it happened (ISO 8601, UTC)'),
  acteur: eventActorSchema,
  sujet: z.object({ type: z.string(), id: z.number().int() }).describe('What it is about'),
  data: z.record(z.string(), z.unknown()).describe('The subject once changed (a user, a post, …)'),
})
export type PortalEvent = z.infer<typeof eventSchema>

/** GET rest/bd/evenements. */
export const eventsQuery = z.object({
  depuis: z.coerce
    .number<number>()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('The last id already read: the answer starts after it (0 or absent: the oldest kept)'),
  limite: z.coerce
    .number<number>()
    .int()
    .min(1)
    .max(EVENTS_PAGE_MAX)
    .optional()
    .describe(`Events at most (default ${EVENTS_PAGE_DEFAULT})`),
})
export type EventsQuery = z.infer<typeof eventsQuery>

export const eventsPageSchema = z.object({
  evenements: z.array(eventSchema),
  suivant: z.number().int().describe('What to send as depuis next: past every event read, those out of scope included'),
  fin: z.boolean().describe('Whether this answer reached the newest event'),
})
export type EventsPage = z.infer<typeof eventsPageSchema>
