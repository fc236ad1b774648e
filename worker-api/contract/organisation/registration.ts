import { z } from 'zod'
import { datesInOrder, pageQuery, positiveInt, wireDateSchema } from '../common'
import { fonctionLibelleSchema, structureNomSchema } from './structure'
import { confirmationSchema, mailConfirmed, mailSchema, nameSchema, userSchema } from './user'

/** A carrier company a visitor may register with (GET rest/public/bd/transporteur/structures). */
export const carrierStructureSchema = z.object({ id: z.number().int(), nom: z.string() })
export type CarrierStructure = z.infer<typeof carrierStructureSchema>

/**
 * POST rest/public/bd/transporteur/inscription (spec §3 registration payload): the person, and their
 * company as an existing carrier `{id}` or a typed new name `{nom}`; the captcha is checked by the
 * server (DESIGN §6).
 */
export const registrationSchema = z.object({
  user: z.object({ mail: mailSchema, nom: nameSchema, prenom: nameSchema }),
  structure: z.union([
    z.object({ id: positiveInt() }).describe('An existing carrier, from transporteur/structures'),
    z
      .object({ nom: structureNomSchema })
      .describe(
        'A carrier’s name (any case), or a new company’s: kept on the registration, created when it is authorised',
      ),
  ]),
  captcha: z.string().max(4096).optional().describe('The solved captcha (required)'),
})
export type RegistrationInput = z.infer<typeof registrationSchema>

/**
 * The answer to a registration: who is now waiting for an administrator, and with which company — a
 * carrier of the public list, or the name typed as it was typed (`id` null: the company is created
 * when an administrator authorises the registration).
 */
export const registeredSchema = z.object({
  mail: z.string(),
  nom: z.string(),
  prenom: z.string(),
  structure: z.object({ id: z.number().int().nullable(), nom: z.string() }),
})
export type Registered = z.infer<typeof registeredSchema>

/**
 * A pending registration in the queue (spec §3 User, `tokenRegister` its link's expiry) and its
 * company (`id` null for a name typed at registration, created when the registration is authorised).
 */
export const pendingUserSchema = userSchema.extend({
  structure: z.object({ id: z.number().int().nullable(), nom: z.string() }).nullable(),
})
export type PendingUser = z.infer<typeof pendingUserSchema>

export const REGISTRATION_SORTS = ['expiry', '-expiry', 'mail', '-mail', 'nom', '-nom', 'prenom', '-prenom'] as const

/** GET rest/bd/authorize/get/user/all: every pending registration, or one page with `page`. */
export const registrationListQuery = z.object({
  ...pageQuery,
  tri: z
    .enum(REGISTRATION_SORTS)
    .optional()
    .describe(
      'Sort (default expiry: those with a link first, soonest expiry first, -expiry latest first; a leading minus sorts descending)',
    ),
})
export type RegistrationListQuery = z.infer<typeof registrationListQuery>

/**
 * GET rest/bd/authorize/user/{id}/fonctions: the functions an authorisation may give the carrier a post
 * of, in order (the template's first first): those of their company, or, for a company created at
 * the authorisation, the names of the carrier type's template (`id` null).
 */
export const offeredFonctionSchema = z.object({
  id: z.number().int().nullable().describe('null: a function of the template, created with the company'),
  libelle: z.string(),
})
export type OfferedFonction = z.infer<typeof offeredFonctionSchema>

export const registrationIdParam = z.object({ id: positiveInt() })

/** POST rest/bd/authorize/user (spec §7): authorise (send or renew the link) or refuse (delete). */
export const authorizeSchema = z
  .object({
    user: z.object({ id: positiveInt() }).describe('The pending user (other fields are ignored)'),
    authorize: z.boolean(),
    poste: datesInOrder(
      z.object({
        fonction: z
          .union([z.object({ id: positiveInt() }), z.object({ libelle: fonctionLibelleSchema })])
          .describe(
            "A function of the carrier's company by its id; for a company created at this authorisation (typed by the carrier), by its name in the carrier type's template",
          ),
        dateDebut: wireDateSchema,
        dateFin: wireDateSchema,
      }),
    )
      .optional()
      .describe('With authorize: true, the post the carrier gets, written in the same batch as the activation'),
  })
  .refine((input) => input.authorize || input.poste === undefined, {
    message: 'validation.posteWithoutAuthorize',
    path: ['poste'],
  })
export type AuthorizeInput = z.infer<typeof authorizeSchema>

/** Spec §4: the user as they now are, and whether the registration was deleted (refused). */
export const authorizeResultSchema = z.object({ supprime: z.boolean(), user: pendingUserSchema })
export type AuthorizeResult = z.infer<typeof authorizeResultSchema>

/**
 * The public registration form (spec §2 /createAccount, §5): the company as typed or picked by its
 * name, the address twice (`mailConfirmed`), the names.
 */
export const registrationFormSchema = mailConfirmed(
  z.object({
    structure: structureNomSchema,
    mail: mailSchema,
    confirmation: confirmationSchema,
    nom: nameSchema,
    prenom: nameSchema,
  }),
)
export type RegistrationForm = z.infer<typeof registrationFormSchema>
