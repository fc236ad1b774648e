import { z } from 'zod'
import { pageQuery, positiveInt, ref, wireDateSchema } from '../common'

/** What happens at the due date to a post nobody reviewed: kept (confirmed), or ended that day. */
export const UNREVIEWED_OUTCOMES = ['CONSERVER', 'TERMINER'] as const
/** A campaign's life: its items being written, open, its due date being applied, past it, closed. */
export const REVIEW_STATES = ['OUVERTURE', 'OUVERTE', 'ECHEANCE', 'ECHUE', 'CLOTUREE'] as const
export type ReviewState = (typeof REVIEW_STATES)[number]
export const ITEM_STATES = ['A_REVOIR', 'CONFIRME', 'TERMINE'] as const
export type ItemState = (typeof ITEM_STATES)[number]
export const ITEM_DECISIONS = ['CONFIRMER', 'TERMINER'] as const

/** The posts one message of the queue writes as items when a campaign opens, or handles at its due date. */
export const REVIEW_BATCH = 2000
/** The most items one call decides (one JSON value, whatever their number). */
export const DECISIONS_MAX = 500
/** The most items one call decides by a filter (`…/decisions/tous`): a message of the due date's worth. */
export const DECISIONS_ALL_MAX = REVIEW_BATCH
/**
 * The largest body of a call deciding items: 500 decisions, each with a comment of 500 characters, where other calls
 * take 64 KiB.
 */
export const DECISIONS_BODY_BYTES = 1024 * 1024
/** The structures a campaign's progress names at most: those with the most posts left to review. */
export const REVIEW_STRUCTURES_SHOWN = 100
/** How far ahead a campaign's due date may be. */
export const REVIEW_DUE_MAX_DAYS = 366
/** The reminders before the due date: halfway, and this many days before it. */
export const REVIEW_LAST_REMINDER_DAYS = 2

export const reviewNameSchema = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .min(3, 'validation.nameLength')
  .max(100, 'validation.tooLong')

/** POST rest/bd/revue. */
export const reviewInputSchema = z.object({
  nom: reviewNameSchema,
  structure: ref.describe('The sub-tree reviewed: a structure of the caller’s scope'),
  echeance: wireDateSchema.describe('The due date, dd/MM/yyyy: after today, within a year'),
  siNonRevu: z.enum(UNREVIEWED_OUTCOMES, 'validation.required'),
})
export type ReviewInput = z.infer<typeof reviewInputSchema>

const progressSchema = z.object({
  total: z.number().int(),
  confirmes: z.number().int(),
  termines: z.number().int(),
})

/** A campaign with its progress in the caller's scope. */
export const reviewSchema = z.object({
  id: z.number().int(),
  nom: z.string(),
  structure: z.object({ id: z.number().int(), nom: z.string() }),
  echeance: z.string().describe('dd/MM/yyyy'),
  siNonRevu: z.enum(UNREVIEWED_OUTCOMES),
  etat: z.enum(REVIEW_STATES),
  dateCreation: z.string().describe('ISO 8601 instant'),
  dateCloture: z.string().nullable(),
  dateEcheanceAppliquee: z
    .string()
    .nullable()
    .describe('ISO 8601 instant the posts nobody reviewed were kept or ended, once done'),
  auteur: z.string().nullable().describe('Who opened it (a user, or a service account)'),
  cloturePar: z.string().nullable().describe('Who closed it'),
  progression: progressSchema.describe('The items of the caller’s scope: all, confirmed, ended'),
})
export type Review = z.infer<typeof reviewSchema>

export const reviewListQuery = z.object({ page: pageQuery.page, taille: pageQuery.taille })

/** GET rest/bd/revue/{id}: a campaign with its progress per structure of the caller's scope. */
export const reviewDetailSchema = reviewSchema.extend({
  structures: z
    .array(progressSchema.extend({ id: z.number().int(), nom: z.string() }))
    .describe(
      `Per structure with items in the caller’s scope, in the tree’s order: the ${REVIEW_STRUCTURES_SHOWN} with the most posts left to review`,
    ),
  structuresTronquees: z.boolean().describe(`More than ${REVIEW_STRUCTURES_SHOWN} structures have items`),
})
export type ReviewDetail = z.infer<typeof reviewDetailSchema>

/** An item: a post of the campaign, with its user and what is known of their activity. */
export const reviewItemSchema = z.object({
  id: z.number().int(),
  etat: z.enum(ITEM_STATES),
  poste: z.object({
    id: z.number().int().nullable().describe('null once the post was deleted'),
    structure: z.object({ id: z.number().int(), nom: z.string() }),
    fonction: z.object({ libelle: z.string() }),
    dateDebut: z.string().describe('dd/MM/yyyy'),
    dateFin: z.string().describe('dd/MM/yyyy, as the campaign found it'),
  }),
  utilisateur: z.object({
    id: z.number().int().nullable(),
    login: z.string(),
    nom: z.string(),
    prenom: z.string(),
    derniereConnexion: z.string().nullable().describe('ISO 8601 instant of their last sign-in'),
    dernierLancement: z.string().nullable().describe('ISO 8601 instant of their last launch'),
  }),
  applications: z.array(z.string()).describe('What the post opens'),
  decision: z
    .object({
      date: z.string(),
      par: z.string().nullable(),
      commentaire: z.string().nullable(),
      dateFin: z.string().nullable().describe('dd/MM/yyyy: the end given, for an ended post'),
      automatique: z.boolean().describe('Decided at the due date, nobody having reviewed it'),
    })
    .nullable(),
})
export type ReviewItem = z.infer<typeof reviewItemSchema>

export const reviewItemsQuery = z.object({
  ...pageQuery,
  q: pageQuery.q.describe("Words (the first 6) each found in the user's login and names or the function"),
  structure: positiveInt().optional().describe('Only the items of this structure'),
  etat: z.enum(ITEM_STATES).optional().describe('Only the items in this state'),
})
export type ReviewItemsQuery = z.infer<typeof reviewItemsQuery>

/** The most items `GET rest/bd/revue/{id}?elements=N` reads with the campaign: a page of the items' call. */
export const REVIEW_PAGE_ITEMS_MAX = 100

/**
 * GET rest/bd/revue/{id}: with `elements=N`, also a page of N of the caller's items with their total, as `GET
 * rest/bd/revue/{id}/elements?taille=N` answers it (`page`, `structure`, `etat` and `q` as there), in the same round
 * trip; those four without `elements` are refused rather than ignored.
 */
export const reviewDetailQuery = z
  .object({
    elements: positiveInt()
      .max(REVIEW_PAGE_ITEMS_MAX)
      .optional()
      .describe(`Add one page of this many items (≤ ${REVIEW_PAGE_ITEMS_MAX}) and their total, as …/elements answers`),
    page: positiveInt().optional().describe('With elements: the 1-based page of the items (1 by default)'),
    q: reviewItemsQuery.shape.q.describe('With elements: as …/elements'),
    structure: reviewItemsQuery.shape.structure.describe('With elements: as …/elements'),
    etat: reviewItemsQuery.shape.etat.describe('With elements: as …/elements'),
  })
  .refine(
    ({ elements, ...items }) => elements !== undefined || Object.values(items).every((value) => value === undefined),
    { path: ['elements'], message: 'validation.required' },
  )
export type ReviewDetailQuery = z.infer<typeof reviewDetailQuery>

/** GET rest/bd/revue/{id}, with `elements=N` a page of the items and their total beside the campaign. */
export const reviewPageSchema = reviewDetailSchema.extend({
  elements: z.array(reviewItemSchema).optional().describe('With elements=N: one page of the items'),
  totalElements: z.number().int().optional().describe('With elements=N: the items the filters keep'),
})
export type ReviewPage = z.infer<typeof reviewPageSchema>

/** POST rest/bd/revue/{id}/decisions: items confirmed or ended (on `dateFin`, today by default). */
export const reviewDecisionsSchema = z
  .array(
    z.object({
      element: ref,
      decision: z.enum(ITEM_DECISIONS, 'validation.required'),
      dateFin: wireDateSchema.optional().describe('TERMINER: the post’s last day (today by default)'),
      commentaire: z.string().trim().max(500, 'validation.reasonLength').optional(),
    }),
  )
  .min(1, 'validation.required')
  .max(DECISIONS_MAX, 'validation.tooMany')
export type ReviewDecisions = z.infer<typeof reviewDecisionsSchema>

/**
 * POST rest/bd/revue/{id}/decisions/tous: every item still to review of the caller's scope that the filters keep (as
 * …/elements filters them), confirmed or ended alike.
 */
export const reviewDecideAllSchema = z.object({
  decision: z.enum(ITEM_DECISIONS, 'validation.required'),
  structure: positiveInt().optional().describe('Only the items of this structure'),
  q: reviewItemsQuery.shape.q,
  dateFin: wireDateSchema.optional().describe('TERMINER: the posts’ last day (today by default)'),
  commentaire: z.string().trim().max(500, 'validation.reasonLength').optional(),
})
export type ReviewDecideAll = z.infer<typeof reviewDecideAllSchema>

export const reviewDecideAllResultSchema = z.object({
  decides: z.number().int().describe('The items this call decided'),
  restants: z
    .number()
    .int()
    .describe(
      `The items the filters keep still to review: past ${DECISIONS_ALL_MAX} a call, or not the caller's to decide (their own post, a user they do not manage)`,
    ),
})

export const reviewDecisionsResultSchema = z.object({
  decides: z.array(z.number().int()).describe('The items this call decided'),
  dejaDecides: z.array(z.number().int()).describe('Items decided meanwhile by someone else (or not the caller’s)'),
})

/** A step of a campaign on the jobs queue (contract/jobs.ts): which step, and from which post id the opening goes on. */
export type ReviewMessage = { revueId: number; etape: 'ouverture' | 'echeance'; depuis: number }

export const reviewIdParam = z.object({ id: positiveInt() })
