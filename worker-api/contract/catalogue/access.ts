import { z } from 'zod'
import { applicationSchema, positiveInt } from '../common'
import { ownRequestSchema, requestableSchema } from '../governance/access-requests'
import { samlPostSchema } from '../saml/saml'

export { type ApplicationSummary, applicationSchema } from '../common'

/** The most of the caller's latest requests `demandes=N` reads with their access. */
export const LAUNCHER_REQUESTS_MAX = 20

/**
 * GET rest/bd/acces/utilisateur/{userId}: the applications a user may launch today; with
 * `futurs=true`, also those a future post will open (not launchable yet), each from the day it does; with
 * `demandes=N`, on one's own list, also what the launcher's "Autres applications" shows (as `GET
 * rest/bd/demande/applications` and the N newest of `GET rest/bd/demande/miennes`), in the same round trip.
 */
export const accessListSchema = z.object({
  accesApplication: z.array(z.object({ application: applicationSchema })),
  accesFuturs: z
    .array(z.object({ application: applicationSchema, dateDebut: z.string().describe('dd/MM/yyyy') }))
    .optional()
    .describe('With futurs=true: the applications future posts open, by the first day one does'),
  demandables: z
    .array(requestableSchema)
    .optional()
    .describe('With demandes=N: the demandable applications the caller cannot launch, each with its request waiting'),
  demandes: z.array(ownRequestSchema).optional().describe("With demandes=N: the caller's N newest requests"),
})

export const accessQuery = z.object({
  futurs: z.enum(['true', 'false']).optional().describe('true: add accesFuturs'),
  demandes: positiveInt()
    .max(LAUNCHER_REQUESTS_MAX)
    .optional()
    .describe(
      `On one's own list only (else 400): add demandables and the N newest requests (N ≤ ${LAUNCHER_REQUESTS_MAX})`,
    ),
})
export type AccessList = z.infer<typeof accessListSchema>

export const launchQuery = z.object({ idApplication: positiveInt() })

export const userIdParam = z.object({ userId: positiveInt() })

/**
 * GET rest/bd/acces/application: where to open the application, with its single-use launch code; an
 * OpenID Connect application opens at its initiate-login address (with `iss` and `target_link_uri`) and
 * signs the user in itself: its `refreshToken` is empty. A SAML application's `url` is its first assertion consumer
 * service, and `saml` the signed response the browser posts there.
 */
export const launchSchema = z.object({
  url: z.string(),
  refreshToken: z.string(),
  saml: samlPostSchema
    .optional()
    .describe('A SAML application’s: the signed response to post to `url`, its first assertion consumer service'),
})
export type Launch = z.infer<typeof launchSchema>
