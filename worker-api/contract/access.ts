import { z } from 'zod'
import { positiveInt } from './common'

export const applicationSchema = z.object({ id: z.number().int(), libelle: z.string(), icone: z.string() })
export type ApplicationSummary = z.infer<typeof applicationSchema>

/**
 * GET rest/bd/acces/utilisateur/{userId}: the applications a user may launch today; with
 * `futurs=true`, also those a future post will open (not launchable yet), each from the day it does.
 */
export const accessListSchema = z.object({
  accesApplication: z.array(z.object({ application: applicationSchema })),
  accesFuturs: z
    .array(z.object({ application: applicationSchema, dateDebut: z.string().describe('dd/MM/yyyy') }))
    .optional()
    .describe('With futurs=true: the applications future posts open, by the first day one does'),
})

export const accessQuery = z.object({
  futurs: z.enum(['true', 'false']).optional().describe('true: add accesFuturs'),
})
export type AccessList = z.infer<typeof accessListSchema>

export const launchQuery = z.object({ idApplication: positiveInt() })

export const userIdParam = z.object({ userId: positiveInt() })

/**
 * GET rest/bd/acces/application: where to open the application, with its single-use launch code; an
 * OpenID Connect application opens at its initiate-login address (with `iss` and `target_link_uri`) and
 * signs the user in itself: its `refreshToken` is empty.
 */
export const launchSchema = z.object({ url: z.string(), refreshToken: z.string() })
export type Launch = z.infer<typeof launchSchema>
