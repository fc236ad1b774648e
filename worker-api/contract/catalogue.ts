import { z } from 'zod'
import { pageQuery, positiveInt } from './common'

/** The icon names the launcher draws (app/components/app-icon.tsx); an application's `icone` is one. */
export const APPLICATION_ICONS = ['warning', 'calendar', 'scale', 'receipt', 'truck', 'warehouse'] as const
export type ApplicationIcon = (typeof APPLICATION_ICONS)[number]

/** How an application receives its users: `CODE`, the single-use launch code (DESIGN §4). */
export const APPLICATION_PROTOCOLS = ['CODE'] as const

/** An application of the catalogue, as root administrators manage it. */
export const catalogueApplicationSchema = z.object({
  id: z.number().int(),
  libelle: z.string(),
  icone: z.string().describe(`The launcher's icon: ${APPLICATION_ICONS.join(', ')}`),
  url: z.string().describe('Where a launch sends the user, with the launch code'),
  actif: z.boolean().describe('false: in no launcher, its launch answers 404; its grants are kept'),
  protocole: z.enum(APPLICATION_PROTOCOLS).describe('CODE: the single-use launch code'),
  fonctions: z
    .array(
      z.object({
        id: z.number().int(),
        libelle: z.string(),
        structure: z.object({ id: z.number().int(), nom: z.string() }),
      }),
    )
    .describe('The functions that grant it, by structure'),
  nbUtilisateurs: z
    .number()
    .int()
    .describe(
      'The users who may launch it today: accounts that can sign in with a current post of a granting function (0 while it is off)',
    ),
})
export type CatalogueApplication = z.infer<typeof catalogueApplicationSchema>

export const APPLICATION_SORTS = ['libelle', '-libelle', 'nbUtilisateurs', '-nbUtilisateurs'] as const

export const applicationListQuery = z.object({
  ...pageQuery,
  tri: z.enum(APPLICATION_SORTS).optional().describe('Sort (default libelle; a leading minus sorts descending)'),
})

export const applicationIdParam = z.object({ id: positiveInt() })
