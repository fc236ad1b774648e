import { type RawBuilder, sql } from 'kysely'
import type { SamlServiceProvider, SamlServiceProviderInput } from '../../contract/saml/saml'
import type { DB, Guard } from '../../db/client'
import { isLocalEnvironment } from '../../env'
import { BusinessError } from '../../lib/errors'
import { parseSpMetadata } from '../../lib/saml/sp-metadata'
import { SamlInputError } from '../../lib/saml/xml'
import { certificateBase64, certificatePublicKey, certificateSummary } from '../../lib/saml-keys'
import type { Ctx } from '../../lib/types'

/**
 * A SAML application's service provider (issue 62): what its metadata or its administrator says of it (entityID,
 * services, certificates), and what the portal sends it (name identifier, signatures, attributes).
 */

/** The columns a catalogue read selects (`sp`, left-joined on the application `a`). */
export const SAML_COLUMNS = [
  'sp.entity_id',
  'sp.acs',
  'sp.slo_url',
  'sp.slo_binding',
  'sp.certificats',
  'sp.requetes_signees',
  'sp.format_name_id',
  'sp.signer_reponse',
  'sp.signer_assertion',
  'sp.attributs',
] as const

export type SamlColumns = {
  entity_id: string | null
  acs: string | null
  slo_url: string | null
  slo_binding: 'HTTP-Redirect' | 'HTTP-POST' | null
  certificats: string | null
  requetes_signees: number | null
  format_name_id: SamlServiceProvider['nameIdFormat'] | null
  signer_reponse: number | null
  signer_assertion: number | null
  attributs: string | null
}

/** The service provider of a catalogue row, null without one. */
export function toSamlProvider(row: SamlColumns): SamlServiceProvider | null {
  if (row.entity_id === null) return null
  return {
    entityId: row.entity_id,
    assertionConsumerServices: (JSON.parse(row.acs ?? '[]') as { url: string }[]).map((acs) => acs.url),
    singleLogoutService: row.slo_url,
    certificates: (JSON.parse(row.certificats ?? '[]') as string[]).map(
      (certificate) => certificateSummary(certificate) ?? { sujet: '?', expire: null },
    ),
    authnRequestsSigned: row.requetes_signees === 1,
    nameIdFormat: row.format_name_id ?? 'email',
    signResponse: row.signer_reponse === 1,
    signAssertion: row.signer_assertion === 1,
    attributes: JSON.parse(row.attributs ?? '[]') as SamlServiceProvider['attributes'],
  }
}

/** What is stored of a service provider, its metadata read or its typed facts checked. */
export type SamlProviderFacts = {
  entityId: string
  acs: { url: string; index: number | null }[]
  slo: { url: string; binding: 'HTTP-Redirect' | 'HTTP-POST' } | null
  certificates: string[]
  authnRequestsSigned: boolean
  input: SamlServiceProviderInput
}

/** The field an input's problem is said on: its metadata when it gave one. */
const fieldOf = (input: SamlServiceProviderInput, typed: string) => (input.metadata ? 'saml.metadata' : `saml.${typed}`)

/** The message key of what keeps metadata from being read (its English reason is the answer's message). */
const METADATA_PROBLEMS: Partial<Record<SamlInputError['reason'], string>> = {
  MALFORMED: 'validation.samlMetadata',
  TOO_LARGE: 'validation.tooLong',
}

/** A certificate typed as PEM or base64, as base64 DER; null if it is no certificate. */
function typedCertificate(text: string): string | null {
  const base64 = certificateBase64(text)
  return certificatePublicKey(base64) ? base64 : null
}

/**
 * The facts of a service provider: read from its metadata when given (400 on `saml.metadata`, its reason in the
 * message; the reader checks its addresses and certificates), else as typed (each certificate checked). Its addresses
 * on this machine only in development and tests.
 */
export function samlProviderFacts(ctx: Ctx, input: SamlServiceProviderInput): SamlProviderFacts {
  let facts: SamlProviderFacts
  if (input.metadata) {
    try {
      const read = parseSpMetadata(input.metadata)
      facts = {
        entityId: read.entityId,
        acs: read.assertionConsumerServices,
        slo: read.singleLogoutService,
        certificates: read.certificates,
        authnRequestsSigned: read.authnRequestsSigned,
        input,
      }
    } catch (error) {
      if (!(error instanceof SamlInputError)) throw error
      throw new BusinessError('VALIDATION_FAILED', 400, error.message, [
        { field: 'saml.metadata', message: METADATA_PROBLEMS[error.reason] ?? 'validation.samlMetadataNotSp' },
      ])
    }
  } else {
    const certificates = (input.certificates ?? []).map(typedCertificate)
    const bad = certificates.indexOf(null)
    if (bad >= 0) {
      throw new BusinessError('VALIDATION_FAILED', 400, 'Not an X.509 certificate', [
        { field: `saml.certificates.${bad}`, message: 'validation.samlCertificate' },
      ])
    }
    facts = {
      entityId: input.entityId as string,
      acs: (input.assertionConsumerServices ?? []).map((url, index) => ({ url, index })),
      slo: input.singleLogoutService ? { url: input.singleLogoutService, binding: 'HTTP-Redirect' } : null,
      certificates: certificates as string[],
      authnRequestsSigned: input.authnRequestsSigned ?? false,
      input,
    }
  }
  if (!isLocalEnvironment(ctx.env)) {
    const local = [...facts.acs.map((a) => a.url), facts.slo?.url].find((url) => url?.startsWith('http:'))
    if (local) {
      throw new BusinessError('VALIDATION_FAILED', 400, 'A loopback address is accepted in development only', [
        { field: fieldOf(input, 'assertionConsumerServices'), message: 'validation.clientUriLocal' },
      ])
    }
  }
  return facts
}

/**
 * The facts of the service provider registered for a catalogue row, with the new settings of `input` (a PUT that names
 * no provider keeps it); null when the application has none (the input then names one: 400 on `saml.entityId`).
 */
export function registeredProviderFacts(row: SamlColumns, input: SamlServiceProviderInput): SamlProviderFacts {
  if (row.entity_id === null) {
    throw new BusinessError('VALIDATION_FAILED', 400, 'The application has no service provider yet: name one', [
      { field: 'saml.entityId', message: 'validation.required' },
    ])
  }
  return {
    entityId: row.entity_id,
    acs: JSON.parse(row.acs ?? '[]') as SamlProviderFacts['acs'],
    slo: row.slo_url ? { url: row.slo_url, binding: row.slo_binding ?? 'HTTP-Redirect' } : null,
    certificates: JSON.parse(row.certificats ?? '[]') as string[],
    authnRequestsSigned: row.requetes_signees === 1,
    input,
  }
}

/** The application holding an entityID, other than `except`. */
export const entityIdHolder = (db: DB, entityId: string, except: number | null) =>
  db
    .selectFrom('saml_sp')
    .select('application_id')
    .where('entity_id', '=', entityId)
    .$if(except !== null, (q) => q.where('application_id', '!=', except as number))

/** An entityID another application has: said on the field it came from. */
export const entityIdTaken = (input: SamlServiceProviderInput) =>
  new BusinessError('VALIDATION_FAILED', 400, 'This entityID is already another application’s', [
    { field: fieldOf(input, 'entityId'), message: 'validation.samlEntityIdUsed' },
  ])

/**
 * The statement writing a SAML application's service provider (`application`: an expression of its id) under `guard`;
 * its salt of persistent name identifiers is made once and kept.
 */
export function samlProviderWrite(db: DB, application: RawBuilder<number>, facts: SamlProviderFacts, guard: Guard) {
  const { input } = facts
  const values = {
    entity_id: facts.entityId,
    acs: JSON.stringify(facts.acs),
    slo_url: facts.slo?.url ?? null,
    slo_binding: facts.slo?.binding ?? null,
    certificats: JSON.stringify(facts.certificates),
    requetes_signees: facts.authnRequestsSigned ? 1 : 0,
    format_name_id: input.nameIdFormat,
    signer_reponse: input.signResponse ? 1 : 0,
    signer_assertion: input.signAssertion ? 1 : 0,
    attributs: JSON.stringify(input.attributes),
  }
  return db
    .insertInto('saml_sp')
    .columns(['application_id', ...(Object.keys(values) as (keyof typeof values)[])])
    .expression(
      db
        .selectNoFrom((eb) => [
          sql<number>`${application}`.as('application_id'),
          ...Object.entries(values).map(([name, value]) => eb.val(value).as(name)),
        ])
        .where(({ exists }) => exists(guard)),
    )
    .onConflict((oc) => oc.column('application_id').doUpdateSet(values))
}

/** The statement removing an application's service provider (it no longer uses SAML), under `guard`. */
export const removeSamlProvider = (db: DB, application: number, guard: Guard) =>
  db
    .deleteFrom('saml_sp')
    .where('application_id', '=', application)
    .where(({ exists }) => exists(guard))
