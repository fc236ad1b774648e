import { z } from 'zod'
import { lienSchema } from '../federation/links'
import { userSchema } from '../organisation/user'

/**
 * A portal session (a sign-in, and the refreshes that kept it): one refresh-token family. What the
 * list of a user's sessions shows of it, and the applications whose sessions were opened from it.
 */
export const portalSessionSchema = z.object({
  id: z.string().describe('The session: its refresh-token family, as DELETE rest/bd/session/{id} takes it'),
  navigateur: z.string().nullable().describe('The browser that signed in, as its User-Agent named it'),
  versionNavigateur: z.string().nullable(),
  creation: z.string().describe('ISO 8601 instant: the sign-in'),
  derniereUtilisation: z.string().describe('ISO 8601 instant: the last time it was used (its last refresh)'),
  courante: z.boolean().describe("The session of the caller's own access token"),
  applications: z
    .array(z.object({ id: z.number().int(), libelle: z.string() }))
    .describe('The applications whose live sessions were opened from it (launch code or OpenID Connect), by name'),
  appareil: z
    .object({
      nom: z.string().describe('The name its approver gave the device (else its kind, or its application’s name)'),
      application: z.object({ id: z.number().int(), libelle: z.string() }),
      approuveDepuis: z
        .string()
        .nullable()
        .describe('The kind of device it was approved from: mobile, tablet, desktop (null: unknown)'),
    })
    .nullable()
    .describe(
      "A device's session (the device authorization grant), signed in to one application; null for a browser's",
    ),
})
export type PortalSession = z.infer<typeof portalSessionSchema>

/** GET rest/bd/session/liste, GET rest/bd/utilisateur/{id}/sessions: the open sessions, the latest used first. */
export const portalSessionListSchema = z.array(portalSessionSchema)

/** GET rest/bd/utilisateur/{id}: `sessions=true` adds the user's open sessions to the user (a profile page's one call). */
export const userReadQuery = z.object({
  sessions: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      "true: add sessions, the user's open sessions as session/liste and utilisateur/{id}/sessions answer them",
    ),
})

/** GET rest/bd/utilisateur/{id}: the user, and their open sessions when asked for. */
export const userWithSessionsSchema = userSchema.extend({
  sessions: portalSessionListSchema
    .nullable()
    .optional()
    .describe(
      "With sessions=true: one's own sessions (courante marks the caller's), or those of a user the caller manages (modification); null for a user the caller may only see",
    ),
  fournisseurs: z
    .array(lienSchema)
    .nullable()
    .optional()
    .describe(
      "With sessions=true, for another user: their links to partners' identity providers, for a user the caller manages (null otherwise)",
    ),
})
export type UserWithSessions = z.infer<typeof userWithSessionsSchema>

/** DELETE rest/bd/session/{id}: a session's id (a family id; anything else is an unknown session). */
export const sessionIdParam = z.object({ id: z.string().min(1).max(64) })
