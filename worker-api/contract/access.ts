import { z } from 'zod'
import { positiveInt } from './common'

export const applicationSchema = z.object({ id: z.number().int(), libelle: z.string(), icone: z.string() })
export type ApplicationSummary = z.infer<typeof applicationSchema>

/** GET rest/bd/acces/utilisateur/{userId}: the applications a user may launch today. */
export const accessListSchema = z.object({ accesApplication: z.array(z.object({ application: applicationSchema })) })
export type AccessList = z.infer<typeof accessListSchema>

export const launchQuery = z.object({ idApplication: positiveInt() })

export const userIdParam = z.object({ userId: positiveInt() })

/** GET rest/bd/acces/application: where to open the application, with its single-use launch code. */
export const launchSchema = z.object({ url: z.string(), refreshToken: z.string() })
