import { z } from 'zod'
import { pageQuery, positiveInt, ref } from '../common'
import { isClientUri, OIDC_URI_MAX_LENGTH } from '../oidc/oidc'
import { PREVIOUS_SECRET_HOURS } from './service-accounts'

/**
 * Webhooks (issue 65): an integrator subscribes an https address to the portal's events about the users and
 * structures of a sub-tree; each delivery is signed in Standard Webhooks' form (lib/webhook-signature.ts) with the
 * subscription's secret, shown once.
 */

/** The events a subscription may name, each `famille.action`. */
export const WEBHOOK_EVENT_TYPES = [
  'utilisateur.cree',
  'utilisateur.modifie',
  'utilisateur.desactive',
  'utilisateur.supprime',
  'utilisateur.restaure',
  'poste.cree',
  'poste.modifie',
  'poste.supprime',
  'poste.debut',
  'poste.fin',
  'acces.accorde',
  'acces.retire',
  'connexion.reussie',
  'connexion.verrouillee',
  'session.terminee',
  'inscription.creee',
  'inscription.validee',
  'inscription.refusee',
  'demande.creee',
  'demande.accordee',
  'demande.refusee',
  'demande.retiree',
  'demande.expiree',
  'revue.ouverte',
  'revue.echue',
  'revue.cloturee',
  'import.termine',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** The families a subscription may name whole (`inscription.*`): every event of the family, present and future. */
export const WEBHOOK_EVENT_FAMILIES = [
  'utilisateur',
  'poste',
  'acces',
  'connexion',
  'session',
  'inscription',
  'demande',
  'revue',
  'import',
] as const

/** The most event types or families one subscription names. */
export const WEBHOOK_EVENTS_MAX = 30

/** What a subscription names: an event type, or a family and `.*`. */
export const WEBHOOK_EVENT_NAMES = [
  ...WEBHOOK_EVENT_TYPES,
  ...WEBHOOK_EVENT_FAMILIES.map((family) => `${family}.*` as const),
] as const
export const webhookEventSchema = z.enum(WEBHOOK_EVENT_NAMES)

const eventsSchema = z
  .array(webhookEventSchema, 'validation.required')
  .min(1, 'validation.required')
  .max(WEBHOOK_EVENTS_MAX, 'validation.tooLong')
  .refine((events) => new Set(events).size === events.length, 'validation.invalid')
  .describe("The event types (utilisateur.cree, …) or whole families ('poste.*') delivered")

/**
 * Where deliveries are posted: https on a public host (the back-channel logout's rule); this machine's loopback, http
 * too, in development and tests only (the service decides that).
 */
const webhookUrl = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .max(OIDC_URI_MAX_LENGTH, 'validation.tooLong')
  .refine(isClientUri, 'validation.clientUri')

const descriptionSchema = z.string().trim().max(200, 'validation.tooLong')

/** POST rest/bd/webhook. */
export const webhookCreateSchema = z
  .object({
    url: webhookUrl,
    evenements: eventsSchema,
    description: descriptionSchema.nullish(),
    structure: ref.describe(
      "The sub-tree whose events are delivered: a structure of the caller's scope (the root: the whole tree)",
    ),
    actif: z.boolean().optional().describe('false: made switched off (default true)'),
  })
  .strict()
export type WebhookCreate = z.infer<typeof webhookCreateSchema>

/** PATCH rest/bd/webhook/{id}: one thing at least. */
export const webhookUpdateSchema = z
  .object({
    url: webhookUrl.optional(),
    evenements: eventsSchema.optional(),
    description: descriptionSchema.nullish(),
    actif: z.boolean().optional().describe('false: no more deliveries until switched on again'),
  })
  .strict()
  .refine((input) => [input.url, input.evenements, input.description, input.actif].some((v) => v !== undefined), {
    message: 'validation.required',
    path: ['url'],
  })
export type WebhookUpdate = z.infer<typeof webhookUpdateSchema>

/** What a creation answers: the subscription's id and its secret, in this answer only. */
export const webhookCreatedSchema = z.object({
  id: z.number().int(),
  secret: z.string().describe('The signing secret (whsec_…, Standard Webhooks), in this answer only'),
})
export type WebhookCreated = z.infer<typeof webhookCreatedSchema>

/** POST rest/bd/webhook/{id}/secret. */
export const webhookSecretSchema = z
  .object({
    revoquerAncien: z
      .boolean()
      .optional()
      .describe(
        `true: the former secret stops signing at once; else it signs beside the new one ${PREVIOUS_SECRET_HOURS} h`,
      ),
  })
  .strict()
export type WebhookSecretInput = z.infer<typeof webhookSecretSchema>
export const webhookSecretAnswerSchema = z.object({
  url: z.string().describe('The address whose receiver verifies with this secret'),
  secret: z.string().describe('The new signing secret, in this answer only'),
  ancienSecretExpire: z
    .string()
    .nullable()
    .describe('Until when the former secret signs too (ISO), null if it stopped'),
})

export const webhookSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  evenements: z.array(z.string()),
  description: z.string().nullable(),
  actif: z.boolean(),
  structure: z.object({ id: z.number().int(), nom: z.string() }),
  responsable: z
    .object({ id: z.number().int(), nom: z.string(), prenom: z.string() })
    .nullable()
    .describe('The administrator who made it'),
  ancienSecretExpire: z.string().nullable().describe('Until when a former secret signs beside the current one'),
  desactivation: z
    .object({
      motif: z.enum(['GONE', 'ECHECS']),
      date: z.string(),
    })
    .nullable()
    .describe(
      'Why the portal stopped it (its address answered 410 Gone, or a delivery failed a whole day), until switched on again',
    ),
  creation: z.string(),
  modification: z.string(),
})
export type Webhook = z.infer<typeof webhookSchema>
export const webhookListSchema = z.array(webhookSchema)

export const webhookIdParam = z.object({ id: positiveInt() })

/** GET rest/bd/webhook: the page, a search of the address and description. */
export const webhookListQuery = z.object(pageQuery)
export type WebhookListQuery = z.infer<typeof webhookListQuery>

export const WEBHOOK_DELIVERY_STATES = ['EN_ATTENTE', 'LIVREE', 'ABANDONNEE'] as const
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number]

/** GET rest/bd/webhook/{id}/livraisons: a page of its delivery log, newest first; `etat` keeps one state. */
export const webhookDeliveriesQuery = z.object({
  page: pageQuery.page,
  taille: pageQuery.taille,
  etat: z.enum(WEBHOOK_DELIVERY_STATES).optional().describe('Only the deliveries in this state'),
})
export type WebhookDeliveriesQuery = z.infer<typeof webhookDeliveriesQuery>

export const webhookDeliverySchema = z.object({
  id: z.number().int(),
  evenement: z.object({ id: z.number().int(), type: z.string(), date: z.string() }),
  etat: z.enum(WEBHOOK_DELIVERY_STATES).describe('Waiting (or being retried), delivered, or given up'),
  tentatives: z.number().int().describe('Attempts made'),
  dernierCode: z.number().int().nullable().describe("The receiver's last answer's status (null: none, or no answer)"),
  derniereErreur: z.string().nullable().describe('Why the last attempt failed'),
  derniereTentative: z.string().nullable(),
  prochaineTentative: z.string().nullable().describe('When it is tried next, while waiting'),
  livreeLe: z.string().nullable(),
})
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>
export const webhookDeliveryListSchema = z.array(webhookDeliverySchema)

export const webhookDeliveryParam = z.object({ id: positiveInt(), livraisonId: positiveInt() })
