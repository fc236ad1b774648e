import { z } from 'zod'
import { pageQuery, positiveInt } from '../common'
import { oidcClientInputSchema, oidcClientSchema } from '../oidc/oidc'
import { fonctionLibelleSchema } from '../organisation/structure'
import {
  NAME_ID_FORMATS,
  namesServiceProvider,
  SAML_ATTRIBUTE_SOURCES,
  type SamlAttributeSource,
  type SamlServiceProviderInput,
  samlServiceProviderInputSchema,
  samlServiceProviderSchema,
} from '../saml/saml'

/** The icon names the launcher draws (app/components/app-icon.tsx); an application's `icone` is one. */
export const APPLICATION_ICONS = ['warning', 'calendar', 'scale', 'receipt', 'truck', 'warehouse'] as const
export type ApplicationIcon = (typeof APPLICATION_ICONS)[number]

/**
 * How an application receives its users: `CODE`, the single-use launch code (DESIGN §4); `OIDC`, as a
 * client of the portal's OpenID Connect provider (DESIGN §4b); `SAML`, as a service provider of its SAML 2.0 identity
 * provider.
 */
export const APPLICATION_PROTOCOLS = ['CODE', 'OIDC', 'SAML'] as const

/** An application of the catalogue, as root administrators manage it. */
export const catalogueApplicationSchema = z.object({
  id: z.number().int(),
  libelle: z.string(),
  icone: z.string().describe(`The launcher's icon: ${APPLICATION_ICONS.join(', ')}`),
  url: z.string().describe('Where a launch sends the user, with the launch code'),
  actif: z.boolean().describe('false: in no launcher, its launch answers 404; its grants are kept'),
  demandable: z
    .boolean()
    .describe('true: users who cannot launch it may ask for it from their launcher (access requests)'),
  protocole: z
    .enum(APPLICATION_PROTOCOLS)
    .describe(
      'CODE: the single-use launch code; OIDC: an OpenID Connect client (see `oidc`); SAML: a SAML service provider (see `saml`)',
    ),
  oidc: oidcClientSchema.nullable().describe('The OpenID Connect client of an OIDC application; null otherwise'),
  saml: samlServiceProviderSchema.nullable().describe('The service provider of a SAML application; null otherwise'),
  fonctions: z
    .array(
      z.object({
        id: z.number().int(),
        libelle: z.string(),
        structure: z.object({ id: z.number().int(), nom: z.string() }),
      }),
    )
    .describe(
      'The functions that grant it, by structure: all of them, or the first `fonctionsMax` when the call asks so',
    ),
  nbFonctions: z.number().int().describe('How many functions grant it (all of them, however many `fonctions` names)'),
  nbUtilisateurs: z
    .number()
    .int()
    .describe(
      'The users who may launch it today: accounts that can sign in with a current post of a granting function (0 while it is off)',
    ),
})
export type CatalogueApplication = z.infer<typeof catalogueApplicationSchema>

export const APPLICATION_SORTS = ['libelle', '-libelle', 'nbUtilisateurs', '-nbUtilisateurs'] as const

/** The most functions one call may grant an application (each is a bound value in D1). */
export const GRANTS_MAX = 50

/**
 * The granting functions each application of the list names unless the call asks for another number: a catalogue
 * copied into every structure by the templates grants an application through thousands of functions, and naming them
 * all made the list the slowest read of a large organisation (`nbFonctions` counts them all; one application's read
 * names all of them).
 */
export const LIST_GRANTS_SHOWN = 10

/**
 * How many of its granting functions each application names (`fonctions`), when a screen shows only
 * the first: a catalogue copied into every structure by the templates grants an application through
 * thousands of functions.
 */
const fonctionsMax = (absent: string) =>
  z.coerce
    .number<number>()
    .int()
    .min(0)
    .max(GRANTS_MAX)
    .optional()
    .describe(`Name at most this many granting functions per application (0 to ${GRANTS_MAX}); absent, ${absent}`)
const fonctionsMaxQuery = { fonctionsMax: fonctionsMax('all of them') }

export const applicationListQuery = z.object({
  ...pageQuery,
  tri: z.enum(APPLICATION_SORTS).optional().describe('Sort (default libelle; a leading minus sorts descending)'),
  fonctionsMax: fonctionsMax(`the first ${LIST_GRANTS_SHOWN}`),
})

export const applicationIdParam = z.object({ id: positiveInt() })
export const applicationQuery = z.object(fonctionsMaxQuery)

/** An application's name: required, 3 to 50 characters, unique whatever its case. */
export const applicationLibelleSchema = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .min(3, 'validation.nameLength')
  .max(50, 'validation.nameLength')

/**
 * Where a launch sends the user: an absolute http(s) URL, or a path on the portal's own host
 * ('/demo-app/pesage'), which the launch resolves against the portal's origin. Nothing else: no
 * `javascript:`, no protocol-relative '//host'.
 */
export const applicationUrlSchema = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .max(2000, 'validation.tooLong')
  .refine(isLaunchUrl, 'validation.url')
  .describe("An absolute http(s) URL, or a path on the portal's host ('/app')")

export function isLaunchUrl(value: string): boolean {
  if (/^\/(?![/\\])/.test(value)) {
    try {
      return new URL(value, 'https://portal.invalid').host === 'portal.invalid'
    } catch {
      return false
    }
  }
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '' && !url.username && !url.password
  } catch {
    return false
  }
}

const grantsSchema = z
  .array(z.object({ id: positiveInt() }))
  .max(GRANTS_MAX, 'validation.tooMany')
  .describe(`The functions that grant it (${GRANTS_MAX} at most)`)

const applicationFields = z.object({
  libelle: applicationLibelleSchema,
  icone: z.enum(APPLICATION_ICONS, 'validation.required').describe(`One of ${APPLICATION_ICONS.join(', ')}`),
  url: applicationUrlSchema,
  actif: z.boolean('validation.required'),
  demandable: z
    .boolean()
    .optional()
    .describe('Users may ask for it from their launcher (absent: false at creation, unchanged by PUT)'),
  protocole: z.enum(APPLICATION_PROTOCOLS, 'validation.required'),
  oidc: oidcClientInputSchema
    .nullable()
    .optional()
    .describe('Required with `protocole: OIDC` (null or absent otherwise): the client as registered'),
  saml: samlServiceProviderInputSchema
    .nullable()
    .optional()
    .describe('Required with `protocole: SAML` (null or absent otherwise): the service provider'),
  fonctions: grantsSchema,
})

/** An OIDC application says its client, a SAML one its service provider; a CODE one has neither. */
function clientWithProtocol(
  input: { protocole?: string | undefined; oidc?: unknown; saml?: unknown },
  ctx: z.RefinementCtx,
) {
  if (input.protocole === 'OIDC' && (input.oidc === undefined || input.oidc === null))
    ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['oidc'] })
  if (input.protocole === 'SAML' && (input.saml === undefined || input.saml === null))
    ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['saml'] })
}

/** A new SAML application names its service provider: its metadata, or its typed entityID. */
function providerNamed(input: { protocole?: string | undefined; saml?: ApplicationInputSaml }, ctx: z.RefinementCtx) {
  if (input.protocole === 'SAML' && input.saml && !namesServiceProvider(input.saml))
    ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['saml', 'entityId'] })
}
type ApplicationInputSaml = z.infer<typeof samlServiceProviderInputSchema> | null | undefined

/** POST and PUT rest/bd/application: `{id, libelle, icone, url, actif, protocole, oidc, saml, fonctions: [{id}]}` (id for PUT). */
export const applicationInputSchema = applicationFields.superRefine(clientWithProtocol).superRefine(providerNamed)
export type ApplicationInput = z.infer<typeof applicationInputSchema>

/**
 * PUT rest/bd/application: as POST with its id; without `fonctions`, its grants stay as they are;
 * without `protocole`, its protocol and client.
 */
export const applicationUpdateSchema = applicationFields
  .extend({
    id: positiveInt(),
    protocole: z
      .enum(APPLICATION_PROTOCOLS, 'validation.required')
      .optional()
      .describe('Absent: the protocol and its client or service provider stay as they are'),
    fonctions: grantsSchema
      .optional()
      .describe(`The functions that grant it (${GRANTS_MAX} at most); absent, unchanged`),
  })
  .superRefine(clientWithProtocol)
export type ApplicationUpdate = z.infer<typeof applicationUpdateSchema>

/** A form's checkbox: ticked, it posts `on`; unticked, nothing. */
const checkbox = z.preprocess((value) => value === 'on' || value === 'true' || value === true, z.boolean())

/** A textarea of addresses, one a line: its lines trimmed, the blank ones left out. */
const addressLines = z
  .string()
  .transform((text) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
  )
  .default([])

/** The names an attribute is sent under, separated by commas; none, it is not sent. */
const attributeNames = z
  .string()
  .optional()
  .transform((text) =>
    (text ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  )

/** An address that may be left empty: null then. */
const optionalAddress = z
  .string()
  .trim()
  .optional()
  .transform((value) => value || null)

/**
 * An OIDC application's client, checked by the API's own rules (`oidcClientInputSchema`); the client
 * fields of a form that chose the launch code are not looked at. Run even when other fields failed, so
 * that a page sent back says every field to correct at once.
 */
function clientWhenOidc(form: { protocole?: unknown; oidc?: unknown }, ctx: z.RefinementCtx) {
  if (form.protocole !== 'OIDC') return
  const client = oidcClientInputSchema.safeParse(form.oidc ?? { public: false, redirectUris: [] })
  if (client.success) return
  for (const issue of client.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: ['oidc', ...issue.path] })
}

/**
 * `applicationInputSchema` as the portal's form posts it: checkboxes, a radio group, and the OpenID Connect addresses
 * one a line in textareas. A refused address is said on its field by its place among the lines kept
 * (`oidc.redirectUris[1]`), as the API names it (`oidc.redirectUris.1`).
 */
export const applicationFormSchema = z
  .object({
    libelle: applicationLibelleSchema,
    icone: z.enum(APPLICATION_ICONS, 'validation.required'),
    url: applicationUrlSchema,
    actif: checkbox,
    demandable: checkbox,
    protocole: z.enum(APPLICATION_PROTOCOLS, 'validation.required'),
    oidc: z
      .object({
        public: checkbox,
        redirectUris: addressLines,
        postLogoutRedirectUris: addressLines,
        initiateLoginUri: optionalAddress,
        backchannelLogoutUri: optionalAddress,
        deviceGrant: checkbox,
      })
      .optional(),
    saml: z
      .object({
        metadata: z
          .string()
          .optional()
          .transform((value) => value?.trim() || null),
        nameIdFormat: z.enum(NAME_ID_FORMATS, 'validation.required').default('email'),
        signAssertion: checkbox,
        signResponse: checkbox,
        attributes: z.object(
          Object.fromEntries(SAML_ATTRIBUTE_SOURCES.map((source) => [source, attributeNames])) as Record<
            SamlAttributeSource,
            typeof attributeNames
          >,
        ),
      })
      .optional(),
    fonctions: z
      .array(z.coerce.number<number>().int().positive())
      .max(GRANTS_MAX, 'validation.tooMany')
      .default([])
      .transform((ids) => [...new Set(ids)]),
  })
  .superRefine(clientWhenOidc, { when: (payload) => typeof payload.value === 'object' && payload.value !== null })
  .superRefine(providerWhenSaml, { when: (payload) => typeof payload.value === 'object' && payload.value !== null })
export type ApplicationForm = z.input<typeof applicationFormSchema>

/** The SAML fields of the application form, as read. */
export type SamlForm = NonNullable<z.output<typeof applicationFormSchema>['saml']>

/**
 * The service provider the SAML fields say: the metadata pasted (none: the one registered is kept), what the portal
 * sends, each source's attribute names in the order of the sources.
 */
export function samlFormInput(form: SamlForm | undefined): SamlServiceProviderInput {
  return {
    metadata: form?.metadata ?? null,
    nameIdFormat: form?.nameIdFormat ?? 'email',
    signAssertion: form?.signAssertion ?? false,
    signResponse: form?.signResponse ?? false,
    attributes: SAML_ATTRIBUTE_SOURCES.flatMap((source) =>
      (form?.attributes[source] ?? []).map((nom) => ({ source, nom })),
    ),
  }
}

/**
 * A SAML application's fields, checked by the API's own rules; said on the form's fields: the attributes' on their
 * group, the rest on its own.
 */
function providerWhenSaml(form: { protocole?: unknown; saml?: unknown }, ctx: z.RefinementCtx) {
  if (form.protocole !== 'SAML') return
  const provider = samlServiceProviderInputSchema.safeParse(samlFormInput(form.saml as SamlForm | undefined))
  if (provider.success) return
  for (const issue of provider.error.issues) {
    const path = issue.path[0] === 'attributes' ? ['attributes'] : issue.path
    ctx.addIssue({ code: 'custom', message: issue.message, path: ['saml', ...path] })
  }
}

/** The most functions a structure type's template holds, and applications each grants. */
export const TEMPLATE_FONCTIONS_MAX = 20
export const TEMPLATE_GRANTS_MAX = 20
/** The most distinct applications a template names in all. */
export const TEMPLATE_APPLICATIONS_MAX = 50

/** A template's function names are unique whatever their case: a second one is said on its field. */
function uniqueLibelles(fonctions: { libelle: string }[], ctx: z.RefinementCtx) {
  const seen = new Set<string>()
  fonctions.forEach((fonction, index) => {
    const key = fonction.libelle.toLocaleLowerCase('fr')
    if (seen.has(key)) ctx.addIssue({ code: 'custom', message: 'validation.duplicate', path: [index, 'libelle'] })
    seen.add(key)
  })
}

/** GET rest/bd/typestructure/{id}/fonctions: a function of the template, with what it grants. */
export const templateFonctionSchema = z.object({
  libelle: z.string(),
  applications: z.array(z.object({ id: z.number().int(), libelle: z.string() })),
})
export type TemplateFonction = z.infer<typeof templateFonctionSchema>

/**
 * GET rest/bd/typestructure/fonctions: what the templates screen shows, in one answer: every type a
 * structure may be given (from the top of the hierarchy down) with its template, and the applications
 * a template may grant (the whole catalogue, by name).
 */
export const templatesSchema = z.object({
  types: z.array(z.object({ id: z.number().int(), libelle: z.string(), fonctions: z.array(templateFonctionSchema) })),
  applications: z.array(
    z.object({
      id: z.number().int(),
      libelle: z.string(),
      actif: z.boolean().describe('false: granted by a template, it is still in no launcher until switched on'),
    }),
  ),
})
export type Templates = z.infer<typeof templatesSchema>

/**
 * PUT rest/bd/typestructure/{id}/fonctions: the whole template, in order (a new carrier company's
 * first is the function the authorisation queue preselects); its names unique whatever their case.
 */
export const templateInputSchema = z
  .array(
    z.object({
      libelle: fonctionLibelleSchema,
      applications: z.array(z.object({ id: positiveInt() })).max(TEMPLATE_GRANTS_MAX, 'validation.tooMany'),
    }),
  )
  .max(TEMPLATE_FONCTIONS_MAX, 'validation.tooMany')
  .superRefine((fonctions, ctx) => {
    // Every application named is looked up in one statement: at most D1's bound values allow.
    const applications = new Set(fonctions.flatMap((f) => f.applications.map((a) => a.id)))
    if (applications.size > TEMPLATE_APPLICATIONS_MAX)
      ctx.addIssue({ code: 'custom', message: 'validation.tooMany', path: [] })
    uniqueLibelles(fonctions, ctx)
  })
  .describe(
    `The functions a new structure of this type starts with, in order (${TEMPLATE_FONCTIONS_MAX} at most, each granting ${TEMPLATE_GRANTS_MAX} applications at most, ${TEMPLATE_APPLICATIONS_MAX} distinct ones in all)`,
  )
export type TemplateInput = z.infer<typeof templateInputSchema>

/** The templates screen's form: the functions in order, each with the ids of the applications it grants. */
export const templateFormSchema = z.object({
  fonctions: z
    .array(
      z.object({
        libelle: fonctionLibelleSchema,
        applications: z
          .array(z.coerce.number<number>().int().positive())
          .max(TEMPLATE_GRANTS_MAX, 'validation.tooMany')
          .default([]),
      }),
    )
    .max(TEMPLATE_FONCTIONS_MAX, 'validation.tooMany')
    .default([])
    .superRefine(uniqueLibelles),
})
export type TemplateForm = z.input<typeof templateFormSchema>

export const typeIdParam = z.object({ id: positiveInt() })
