import { z } from 'zod'
import { positiveInt } from '../common'

/** A portal user's link to a partner's identity provider (issue 63). */
export const lienSchema = z.object({
  fournisseur: z.object({ id: z.number().int(), nom: z.string() }),
  mail: z.string().nullable().describe('The address the provider gave when the link was made'),
  creeLe: z.string().describe('When the link was made (ISO 8601)'),
  derniereConnexion: z.string().nullable().describe('The last sign-in through it (ISO 8601)'),
})
export type Lien = z.infer<typeof lienSchema>

export const ownLinkParam = z.object({ id: positiveInt() })
export const userLinkParam = z.object({ id: positiveInt(), fournisseurId: positiveInt() })
export const userIdParam = z.object({ id: positiveInt() })
