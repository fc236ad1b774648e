import { z } from 'zod'
import { applicationSchema, datesInOrder, pageQuery, positiveInt, ref, wireDateSchema } from '../common'

/** A request's life: waiting, then granted, refused, withdrawn by its author, or expired undecided. */
export const REQUEST_STATES = ['EN_ATTENTE', 'ACCORDEE', 'REFUSEE', 'RETIREE', 'EXPIREE'] as const
export type RequestState = (typeof REQUEST_STATES)[number]

/** The days a request waits for a decision before it expires (its author is told and may ask again). */
export const REQUEST_EXPIRY_DAYS = 14
/** After this many days undecided, the administrators of the next sub-tree up are told of a request too. */
export const REQUEST_ESCALATION_DAYS = 7
/** The longest period a request may ask for unless a root administrator sets another (security settings). */
export const REQUEST_DURATION_DEFAULT_DAYS = 90
/** How far ahead a requested period may start. */
export const REQUEST_START_MAX_DAYS = 365
/** The requests a user may make in a day (24 hours): each mails their administrators. */
export const REQUESTS_PER_DAY = 10
/** The most administrators told of one request at a time (the nearest sub-tree's). */
export const REQUEST_APPROVERS_TOLD = 20
/** The most functions a decision offers to grant a request with. */
export const REQUEST_PROPOSALS_MAX = 50

/** Why a request is made, or refused: required, 3 to 500 characters. */
export const reasonSchema = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .min(3, 'validation.reasonLength')
  .max(500, 'validation.reasonLength')

/** POST rest/bd/demande: an application, why, and the period wanted (dd/MM/yyyy, the end on or after the start). */
export const requestInputSchema = datesInOrder(
  z.object({
    application: ref,
    motif: reasonSchema,
    dateDebut: wireDateSchema,
    dateFin: wireDateSchema,
  }),
)
export type RequestInput = z.infer<typeof requestInputSchema>

export const requestCreatedSchema = z.object({ id: z.number().int(), etat: z.enum(REQUEST_STATES) })

/** A request as its author sees it. */
export const ownRequestSchema = z.object({
  id: z.number().int(),
  application: applicationSchema,
  motif: z.string(),
  dateDebut: z.string().describe('dd/MM/yyyy'),
  dateFin: z.string().describe('dd/MM/yyyy'),
  etat: z.enum(REQUEST_STATES),
  dateDemande: z.string().describe('When it was made (ISO 8601 instant)'),
  expiration: z.string().describe('dd/MM/yyyy: the last day it waits for a decision'),
  dateDecision: z.string().nullable().describe('When it was decided, withdrawn or expired (ISO 8601 instant)'),
  commentaire: z.string().nullable().describe("The administrator's comment: the reason of a refusal"),
})
export type OwnRequest = z.infer<typeof ownRequestSchema>

/** GET rest/bd/demande/applications: a demandable application the caller cannot launch, and their request of it. */
export const requestableSchema = z.object({
  application: applicationSchema,
  dureeMaxJours: z.number().int().describe('The longest period a request may ask for, in days'),
  demande: ownRequestSchema.nullable().describe('The request of it waiting for a decision, if any'),
})
export type Requestable = z.infer<typeof requestableSchema>

export const ownRequestsQuery = z.object({ page: pageQuery.page, taille: pageQuery.taille })

/** A post of the requester, as a decision shows it: what they already have. */
const heldPostSchema = z.object({
  structure: z.object({ id: z.number().int(), nom: z.string() }),
  fonction: z.object({ id: z.number().int(), libelle: z.string() }),
  dateDebut: z.string().describe('dd/MM/yyyy'),
  dateFin: z.string().describe('dd/MM/yyyy'),
})

/** GET rest/bd/demande/aTraiter: a request waiting for the caller, with who asks and what they hold. */
export const pendingRequestSchema = z.object({
  id: z.number().int(),
  utilisateur: z.object({
    id: z.number().int(),
    login: z.string(),
    nom: z.string(),
    prenom: z.string(),
    mail: z.string(),
  }),
  application: applicationSchema,
  motif: z.string(),
  dateDebut: z.string().describe('dd/MM/yyyy'),
  dateFin: z.string().describe('dd/MM/yyyy'),
  dateDemande: z.string().describe('ISO 8601 instant'),
  expiration: z.string().describe('dd/MM/yyyy: the last day it waits for a decision'),
  postes: z.array(heldPostSchema).describe("The requester's current and future posts"),
})
export type PendingRequest = z.infer<typeof pendingRequestSchema>

export const REQUEST_SORTS = ['dateDemande', '-dateDemande'] as const
export const pendingRequestsQuery = z.object({
  ...pageQuery,
  q: pageQuery.q.describe("Words (the first 6) each found in the requester's names, login or mail, or the application"),
  tri: z.enum(REQUEST_SORTS).optional().describe('Sort (default dateDemande: the oldest, nearest its expiry, first)'),
})
export type PendingRequestsQuery = z.infer<typeof pendingRequestsQuery>

/** GET rest/bd/demande/{id}: a request the caller may decide, with the functions that could grant it. */
export const requestDetailSchema = pendingRequestSchema.extend({
  etat: z.enum(REQUEST_STATES),
  propositions: z
    .array(
      z.object({
        fonction: z.object({ id: z.number().int(), libelle: z.string() }),
        structure: z.object({ id: z.number().int(), nom: z.string() }),
        actuelle: z.boolean().describe('The requester holds a post in this structure'),
        ouvreAussi: z
          .array(z.string())
          .describe('The other active applications a post of this function opens, by name: granting it opens them too'),
      }),
    )
    .describe(
      `The functions of the caller's scope that open the application: the requester's own structures first, then those that open the fewest other applications (${REQUEST_PROPOSALS_MAX} at most)`,
    ),
})
export type RequestDetail = z.infer<typeof requestDetailSchema>
export const requestDetailQuery = z.object({
  q: pageQuery.q.describe('Words of the structure or function name, to find a proposal beyond the first ones'),
})

/**
 * POST rest/bd/demande/{id}/decision: grant (`accord: true`, with the function of a structure that will open the
 * application, and the post's dates, the request's by default) or refuse (`accord: false`, with the reason).
 */
export const decisionInputSchema = z
  .object({
    accord: z.boolean('validation.required'),
    fonction: ref.optional().describe('Granting: the function of the new post'),
    structure: ref.optional().describe('Granting: its structure'),
    dateDebut: wireDateSchema.optional().describe("Granting: the post's first day (default: the request's)"),
    dateFin: wireDateSchema.optional().describe("Granting: the post's last day (default: the request's)"),
    commentaire: z.string().trim().max(500, 'validation.reasonLength').optional(),
  })
  .superRefine((input, ctx) => {
    if (input.accord) {
      if (!input.fonction) ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['fonction'] })
      if (!input.structure) ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['structure'] })
      if ((input.dateDebut === undefined) !== (input.dateFin === undefined))
        ctx.addIssue({
          code: 'custom',
          message: 'validation.required',
          path: [input.dateDebut ? 'dateFin' : 'dateDebut'],
        })
    } else if ((input.commentaire ?? '').length < 3) {
      ctx.addIssue({ code: 'custom', message: 'validation.reasonLength', path: ['commentaire'] })
    }
  })
export type DecisionInput = z.infer<typeof decisionInputSchema>

export const decisionResultSchema = z.object({
  id: z.number().int(),
  etat: z.enum(REQUEST_STATES),
  poste: z.object({ id: z.number().int() }).nullable().describe('The post a grant created'),
})
export type DecisionResult = z.infer<typeof decisionResultSchema>

export const requestIdParam = z.object({ id: positiveInt() })
