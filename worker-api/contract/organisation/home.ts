import { z } from 'zod'
import { positiveInt } from '../common'
import { storageSchema } from '../history/storage'
import type { UserListQuery } from './user-admin'

/** How many days the home's sign-in chart and launch counts look back (today included). */
export const HOME_DAYS = 30
/** A post ending within this many days (today included) is listed on the home page. */
export const ENDING_POST_DAYS = 30
/** A registration's link expiring within this many hours is counted as expiring soon. */
export const EXPIRING_LINK_HOURS = 48
/** The service accounts the home lists by their calls today. */
export const HOME_ACCOUNTS = 10
/** The ending posts a page of the home's list shows. */
export const ENDING_POSTS_PAGE = 10

/** The user lists the home's three counts stand for: the filters of `utilisateur/liste`, and of the page's links. */
export const HOME_USER_LISTS = {
  avecPoste: { poste: 'true', supprime: 'false' },
  sansPoste: { poste: 'false', supprime: 'false' },
  inactifs: { actif: 'false', supprime: 'false' },
} as const satisfies Record<string, UserListQuery>

/** GET rest/bd/accueil: the page of the ending posts (the other figures have none). */
export const homeQuery = z.object({
  page: positiveInt().optional().describe(`1-based page of the posts ending soon (${ENDING_POSTS_PAGE} a page)`),
})
export type HomeQuery = z.infer<typeof homeQuery>

const count = () => z.number().int().nonnegative()

/** A post ending within `ENDING_POST_DAYS`, with who holds it, where, and whether the caller may extend it. */
export const endingPostSchema = z.object({
  id: z.number().int(),
  dateDebut: z.string().describe('dd/MM/yyyy'),
  dateFin: z.string().describe('dd/MM/yyyy'),
  utilisateur: z.object({ id: z.number().int(), nom: z.string(), prenom: z.string() }),
  structure: z.object({ id: z.number().int(), nom: z.string() }),
  fonction: z.object({ id: z.number().int(), libelle: z.string() }),
  modification: z.boolean().describe('The caller may change its period (PUT rest/bd/poste)'),
})
export type EndingPost = z.infer<typeof endingPostSchema>

/**
 * The administration home's figures, all in the caller's scope. Each count is the total of the list
 * it stands for: the user list with the filters named, the authorisation queue.
 */
export const homeSchema = z.object({
  utilisateurs: z.object({
    avecPoste: count().describe('utilisateur/liste?poste=true&supprime=false'),
    sansPoste: count().describe('utilisateur/liste?poste=false&supprime=false'),
    inactifs: count().describe('utilisateur/liste?actif=false&supprime=false'),
  }),
  inscriptions: z.object({
    enAttente: count().describe('The authorisation queue (authorize/get/user/all)'),
    liensExpirant: count().describe(`Of those, the ones whose link expires within ${EXPIRING_LINK_HOURS} h`),
  }),
  postesFinissant: z.object({
    total: count(),
    items: z
      .array(endingPostSchema)
      .describe(`Posts of users in scope ending from today to ${ENDING_POST_DAYS - 1} days on, soonest first`),
  }),
  connexions: z
    .array(z.object({ jour: z.string().describe('dd/MM/yyyy'), nombre: count() }))
    .describe(`Sign-ins of users in scope per day (Paris time), the last ${HOME_DAYS} days, oldest first`),
  lancements: z
    .array(z.object({ application: z.string(), nombre: count() }))
    .describe(`Launches by users in scope over the last ${HOME_DAYS} days, per application name, most first`),
  comptesService: z
    .array(
      z.object({
        id: z.number().int(),
        nom: z.string(),
        appels: count(),
        derniereUtilisation: z.string().nullable().describe('ISO instant of its last call'),
      }),
    )
    .describe(
      `The service accounts in scope that called today (UTC), with their calls, most first (at most ${HOME_ACCOUNTS})`,
    ),
  stockage: storageSchema
    .nullable()
    .describe(
      "The database's size, the history's share, the months in D1 and in the archive (administrators of the whole tree; null for others)",
    ),
})
export type Home = z.infer<typeof homeSchema>
