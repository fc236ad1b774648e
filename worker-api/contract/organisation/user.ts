import { z } from 'zod'
import { positiveInt } from '../common'
import { MAIL_MAX, MAIL_PATTERN } from '../mail-rules'

export const posteSchema = z.object({
  id: z.number().int(),
  structure: z.object({ id: z.number().int(), nom: z.string() }),
  fonction: z.object({ id: z.number().int(), libelle: z.string() }),
  utilisateur: z.object({ id: z.number().int() }),
  dateDebut: z.string().describe('dd/MM/yyyy'),
  dateFin: z.string().describe('dd/MM/yyyy'),
})

export const userSchema = z.object({
  id: z.number().int(),
  login: z.string(),
  nom: z.string(),
  prenom: z.string(),
  mail: z.string(),
  actif: z.boolean(),
  supprime: z.boolean(),
  admin: z.boolean(),
  modification: z.boolean().describe('Whether the caller may edit this user'),
  postesEnCours: z.array(posteSchema),
  postesFutur: z.array(posteSchema),
  tokenRegister: z.number().int().nullable().describe('Registration token expiry, epoch milliseconds'),
  motDePasseChoisi: z
    .boolean()
    .describe(
      'Whether the user has chosen their password: false for one invited (tokenRegister: until when), imported or provisioned without an invitation (tokenRegister null: POST utilisateur/{id}/invitation invites them), or whose registration waits',
    ),
  mailEnAttente: z
    .string()
    .nullable()
    .describe("The address the user asked to move to, until confirmed from it (the change's link, 24 h)"),
})
export type Poste = z.infer<typeof posteSchema>
export type User = z.infer<typeof userSchema>

export const idParam = z.object({ id: positiveInt() })

/** Spec §5: mail required, valid, at most 50 characters. */
export const mailSchema = z
  .string('validation.required')
  .trim()
  .min(1, 'validation.required')
  .max(MAIL_MAX, 'validation.mailMax')
  .regex(MAIL_PATTERN, 'validation.mail')

export const nameSchema = z
  .string('validation.required')
  .trim()
  // Blank (spaces only) is missing, not too short.
  .min(1, { message: 'validation.required', abort: true })
  .min(3, 'validation.nameLength')
  .max(50, 'validation.nameLength')

/** PUT rest/bd/utilisateur/{id} — the profile form (spec §5); other fields of a user object are ignored. */
export const profileSchema = z.object({
  nom: nameSchema,
  prenom: nameSchema,
  mail: mailSchema,
})
export type ProfileInput = z.infer<typeof profileSchema>

/** What GET rest/public/bd/utilisateur/mail/token/{token} answers: the address to confirm, and for which login. */
export const mailChangeSchema = z.object({ mail: z.string(), login: z.string() })

/** POST rest/public/bd/utilisateur/mail/confirm/ — the link's token. */
export const confirmMailSchema = z.object({
  token: z.string('validation.required').min(1, 'validation.required').max(200),
})

/** The confirmation field of a form that asks for a new address twice (spec §5 create user). */
export const confirmationSchema = z.string('validation.required').trim().min(1, 'validation.required')

/**
 * `schema` with its `confirmation` repeating its `mail` (any case), else an error on `confirmation`.
 * Checked as soon as both are there, even when other fields are wrong, so that a page sent without
 * JavaScript lists every problem at once.
 */
export const mailConfirmed = <T extends z.ZodType<{ mail: string; confirmation: string }>>(schema: T) =>
  schema.refine(({ mail, confirmation }) => mail.toLowerCase() === confirmation.toLowerCase(), {
    message: 'userCreate.mailMismatch',
    path: ['confirmation'],
    when: ({ value }) => {
      const { mail, confirmation } = (value ?? {}) as { mail?: unknown; confirmation?: unknown }
      return typeof mail === 'string' && typeof confirmation === 'string' && confirmation !== ''
    },
  })
