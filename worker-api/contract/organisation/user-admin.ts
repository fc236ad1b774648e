import { z } from 'zod'
import { datesInOrder, pageQuery, positiveInt, ref, requiredId, wireDateSchema } from '../common'
import { confirmationSchema, mailConfirmed, mailSchema, nameSchema } from './user'

/** The first post of a user created by an administrator (spec §3: `poste {structure, fonction {id}, dateDebut, dateFin}`). */
const firstPosteSchema = datesInOrder(
  z.object({ structure: ref, fonction: ref, dateDebut: wireDateSchema, dateFin: wireDateSchema }),
)

/**
 * POST rest/bd/utilisateur (spec §3 create payload). The login is the mail (DESIGN §3), whatever
 * `login` says; `domain` is the origin the account is bound to, the caller's own site when absent.
 */
export const createUserSchema = z.object({
  login: z.string().max(200).optional().describe('Ignored: the login of a created user is their mail'),
  nom: nameSchema,
  prenom: nameSchema,
  mail: mailSchema,
  admin: z.boolean().default(false),
  actif: z.boolean().default(true),
  domain: z
    .string()
    .max(200)
    .optional()
    .describe("The site origin the account is bound to (spec §3); the same host as the caller's"),
  poste: firstPosteSchema,
})
export type CreateUserInput = z.infer<typeof createUserSchema>

export const USER_SORTS = ['nom', '-nom', 'prenom', '-prenom', 'mail', '-mail'] as const

const flag = (description: string) => z.enum(['true', 'false']).optional().describe(description)

/** GET rest/bd/utilisateur/liste: with `page`, one page of the users in scope, filtered and sorted in SQL. */
export const userListQuery = z.object({
  ...pageQuery,
  poste: flag('true: users holding a current post; false: users holding none today'),
  actif: flag('true: active users; false: inactive ones'),
  supprime: flag('true: deleted users; false: the others'),
  tri: z.enum(USER_SORTS).optional().describe('Sort (default nom; a leading minus sorts descending)'),
})
export type UserListQuery = z.infer<typeof userListQuery>

/** PUT rest/bd/utilisateur/state (spec §7). */
export const userStateSchema = z.object({ id: positiveInt(), actif: z.boolean() })
/** PUT rest/bd/utilisateur/admin: the "admin des niveaux inférieurs" flag. */
export const userAdminSchema = z.object({ id: positiveInt(), admin: z.boolean() })

/** GET rest/public/bd/utilisateur/mail?mail= */
export const mailCheckQuery = z.object({ mail: z.string().trim().min(1).max(200) })
/**
 * The account holding an address (any case): its mail and whether it is active (spec §4 mail check:
 * active → used, inactive → linked account inactive); both null when the address is free.
 */
export const mailCheckSchema = z.object({ mail: z.string().nullable(), actif: z.boolean().nullable() })
export type MailCheck = z.infer<typeof mailCheckSchema>

/**
 * The create-user form in logged mode (spec §2, §5): identity and first post, before it becomes the
 * API's body; the address is asked twice (`mailConfirmed`).
 */
export const createUserFormSchema = mailConfirmed(
  datesInOrder(
    z.object({
      mail: mailSchema,
      confirmation: confirmationSchema,
      nom: nameSchema,
      prenom: nameSchema,
      admin: z.preprocess((value) => value === 'on' || value === 'true' || value === true, z.boolean()),
      structure: requiredId(),
      fonction: requiredId(),
      dateDebut: wireDateSchema,
      dateFin: wireDateSchema,
    }),
  ),
)
export type CreateUserForm = z.input<typeof createUserFormSchema>
