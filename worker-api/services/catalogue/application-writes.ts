import { type RawBuilder, type SqlBool, sql } from 'kysely'
import type { ApplicationInput, ApplicationUpdate, CatalogueApplication } from '../../contract/catalogue/catalogue'
import { clientAddresses, isClientUri } from '../../contract/oidc/oidc'
import { namesServiceProvider } from '../../contract/saml/saml'
import { type DB, type Guard, insertWhen, namedBatch } from '../../db/client'
import { isLocalEnvironment } from '../../env'
import { BusinessError, forbidden, invalidField, notFound } from '../../lib/errors'
import { uniqueViolation } from '../../lib/query'
import type { Ctx } from '../../lib/types'
import { type Caller, rootAdminWith, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { rootHolds } from '../core/root-admin'
import { ofApplication, tellAccess } from './access-told'
import { type CatalogueRow, catalogueQuery, toApplication } from './applications'
import { type ClientWrite, clientWrite, removeClient } from './oidc-clients'
import {
  entityIdHolder,
  entityIdTaken,
  registeredProviderFacts,
  removeSamlProvider,
  type SamlProviderFacts,
  samlProviderFacts,
  samlProviderWrite,
} from './saml-providers'

/**
 * The catalogue's writes (the root administrators'): an application created, changed (its grants
 * with it) or deleted, each with its audit entry in its batch, written only while the caller is still
 * a root administrator.
 */

/** The application holding a name, whatever its case (names are unique that way). */
const libelleHolder = (db: DB, libelle: string) =>
  db.selectFrom('application').select(['id', 'libelle']).where(sql<SqlBool>`libelle = ${libelle} collate nocase`)

const libelleTaken = (libelle: string) =>
  new BusinessError('APPLICATION_LIBELLE_ALREADY_USED', 409, 'This application name is already used', [libelle])
/**
 * A write refused by a unique index: another request took the name, or the service provider's entityID, meanwhile;
 * the same answer as if it had been taken before.
 */
function uniqueRace(error: unknown, libelle: string, saml: SamlProviderFacts | null) {
  if (!uniqueViolation(error)) return error
  return saml && String(error).includes('saml_sp.entity_id') ? entityIdTaken(saml.input) : libelleTaken(libelle)
}

/** The service provider a SAML application's write leaves, read from its metadata or as typed; null for another protocol. */
const samlFactsOf = (ctx: Ctx, protocole: string | undefined, saml: ApplicationInput['saml']) =>
  protocole === 'SAML' && saml ? samlProviderFacts(ctx, saml) : null

/** The application holding the service provider's entityID, when the write has one (no statement otherwise). */
const entityRead = (db: DB, saml: SamlProviderFacts | null, except: number | null) =>
  saml ? entityIdHolder(db, saml.entityId, except) : null

/** The functions a grant names, with their structure (the audit entry says which), one per id. */
function grantedFonctions(db: DB, ids: number[]) {
  return db
    .selectFrom('fonction as f')
    .innerJoin('structure as s', 's.id', 'f.structure_id')
    .select(['f.id', 'f.libelle', 's.nom as structure_nom'])
    .where(ids.length > 0 ? sql<SqlBool>`f.id in (${sql.join(ids)})` : sql<SqlBool>`0`)
}

const uniqueIds = (refs: { id: number }[]) => [...new Set(refs.map((ref) => ref.id))]

function requireKnownFonctions(ids: number[], found: { id: number }[]) {
  if (found.length < ids.length) throw invalidField('fonctions', 'Unknown function', 'validation.unknown')
}

/** The statement adding the grants of `ids` that `application` (an expression of its id) lacks. */
function addGrants(db: DB, application: RawBuilder<number>, ids: number[], guard: Guard) {
  return db
    .insertInto('fonction_application')
    .columns(['fonction_id', 'application_id'])
    .expression(
      db
        .selectFrom('fonction as f')
        .select(['f.id as fonction_id', application.as('application_id')])
        .where(sql<SqlBool>`f.id in (${sql.join(ids)})`)
        .where(({ exists, not }) =>
          not(
            exists(
              db
                .selectFrom('fonction_application as held')
                .select('held.fonction_id')
                .where(sql<SqlBool>`held.fonction_id = f.id and held.application_id = ${application}`),
            ),
          ),
        )
        .where(({ exists }) => exists(guard)),
    )
}

/** A row while the application `id` exists and the caller is still a root administrator (`guard`). */
const applicationHolds = (db: DB, id: number, guard: Guard) =>
  db
    .selectFrom('application as target')
    .select('target.id')
    .where('target.id', '=', id)
    .where(({ exists }) => exists(guard))

/** Why a write on the application `id` took no effect: deleted meanwhile (404), else the caller is no root administrator any more. */
async function lostRace(db: DB, id: number): Promise<never> {
  const left = await db.selectFrom('application').select('id').where('id', '=', id).executeTakeFirst()
  throw left ? forbidden('Root administrators only') : notFound('Unknown application')
}

/**
 * The client's addresses this portal accepts: every address of the contract's rule, and this machine's
 * loopback only in development and tests (400 VALIDATION_FAILED on the address's field).
 */
function requireClientAddresses(ctx: Ctx, oidc: ApplicationInput['oidc']) {
  if (!oidc || isLocalEnvironment(ctx.env)) return
  const refused = clientAddresses(oidc).filter(([, uri]) => !isClientUri(uri, { loopback: false }))
  if (refused.length > 0) {
    throw new BusinessError(
      'VALIDATION_FAILED',
      400,
      'A loopback address is accepted in development only',
      refused.map(([field]) => ({ field, message: 'validation.clientUriLocal' })),
    )
  }
}

/**
 * POST rest/bd/application: a new application of the catalogue under a free name, granted to the
 * functions given. The application, its grants and its audit entry are one batch, each written only
 * while the caller is still a root administrator.
 */
export async function createApplication(
  ctx: Ctx,
  caller: Caller,
  input: ApplicationInput,
): Promise<CatalogueApplication> {
  requireClientAddresses(ctx, input.protocole === 'OIDC' ? input.oidc : undefined)
  const saml = samlFactsOf(ctx, input.protocole, input.saml)
  const db = ctx.db
  const viewer = viewerOf(caller)
  const ids = uniqueIds(input.fonctions)
  const {
    actor,
    holder: [holder],
    fonctions,
    entity,
  } = await rootAdminWith(ctx, caller, {
    holder: libelleHolder(db, input.libelle),
    fonctions: grantedFonctions(db, ids),
    entity: entityRead(db, saml, null),
  })
  if (holder) throw libelleTaken(holder.libelle)
  if (saml && (entity?.length ?? 0) > 0) throw entityIdTaken(saml.input)
  requireKnownFonctions(ids, fonctions)
  const guard = rootHolds(db, viewer)
  const created = sql<number>`(select id from application where libelle = ${input.libelle})`
  const grants = fonctions.map((f) => `${f.libelle} (${f.structure_nom})`).join(', ')
  const client =
    input.protocole === 'OIDC' && input.oidc ? await clientWrite(db, created, input.oidc, null, guard) : null
  const results = await namedBatch(ctx.d1, {
    created: insertWhen(
      db,
      'application',
      {
        libelle: input.libelle,
        icone: input.icone,
        url: input.url,
        actif: input.actif ? 1 : 0,
        demandable: input.demandable ? 1 : 0,
        protocole: input.protocole,
      },
      guard,
    ).returning('id'),
    client: client?.statement ?? null,
    saml: saml ? samlProviderWrite(db, created, saml, guard) : null,
    grants: ids.length > 0 ? addGrants(db, created, ids, guard) : null,
    // Switched on and granted: the holders of those functions' current posts gain it.
    access:
      ids.length > 0 && input.actif
        ? tellAccess(db, actor.id, ofApplication(created), undefined, sql<SqlBool>`exists ${guard}`)
        : null,
    log: adminLogWhen(
      db,
      actor,
      'APPLICATION_CREATION',
      [`${input.libelle}${client ? ' (OpenID Connect)' : saml ? ` (SAML ${saml.entityId})` : ''}`, grants]
        .filter(Boolean)
        .join(' : '),
      ctx.request.userAgent,
      guard,
    ),
    application: catalogueQuery(db, viewer).where('a.libelle', '=', input.libelle),
  }).catch((error) => {
    throw uniqueRace(error, input.libelle, saml)
  })
  const [row] = (results.application?.results ?? []) as CatalogueRow[]
  if ((results.created?.results.length ?? 0) === 0 || !row) throw forbidden('Root administrators only')
  return withSecret(toApplication(row), client)
}

/** The answer of the write that generated a client's secret: the one time it is shown. */
function withSecret(application: CatalogueApplication, client: ClientWrite | null): CatalogueApplication {
  if (!client?.secret || !application.oidc) return application
  return { ...application, oidc: { ...application.oidc, clientSecret: client.secret } }
}

const yesNo = (flag: number | boolean) => (flag ? 'actif' : 'inactif')

/**
 * PUT rest/bd/application: changes an application's name, icon, URL, state, protocol and grants (the
 * whole list, as given; without one, its grants stay as they are). Switched off, it leaves every launcher at once and its open launch codes
 * and application sessions are revoked in the same batch; its grants are kept.
 */
export async function updateApplication(
  ctx: Ctx,
  caller: Caller,
  input: ApplicationUpdate,
): Promise<CatalogueApplication> {
  requireClientAddresses(ctx, input.protocole === 'OIDC' ? input.oidc : undefined)
  // A service provider input that names none keeps the one registered (only what the portal sends changes).
  const keepsProvider =
    input.protocole === 'SAML' && input.saml && !namesServiceProvider(input.saml) ? input.saml : null
  const named = keepsProvider ? null : samlFactsOf(ctx, input.protocole, input.saml)
  const db = ctx.db
  const viewer = viewerOf(caller)
  // Without a list, the grants stay: nothing of them is read, compared or written.
  const ids = input.fonctions ? uniqueIds(input.fonctions) : null
  const {
    actor,
    current: [current],
    holder: [holder],
    fonctions,
    entity,
  } = await rootAdminWith(ctx, caller, {
    current: catalogueQuery(db, viewer, 'counted', ids ? undefined : 0).where('a.id', '=', input.id),
    holder: libelleHolder(db, input.libelle).where('id', '!=', input.id),
    fonctions: grantedFonctions(db, ids ?? []),
    entity: entityRead(db, named, input.id),
  })
  if (!current) throw notFound('Unknown application')
  if (holder) throw libelleTaken(holder.libelle)
  if (named && (entity?.length ?? 0) > 0) throw entityIdTaken(named.input)
  const saml = keepsProvider ? registeredProviderFacts(current as CatalogueRow, keepsProvider) : named
  requireKnownFonctions(ids ?? [], fonctions)
  const before = toApplication(current as CatalogueRow)
  const byId = new Map(fonctions.map((f) => [f.id, `${f.libelle} (${f.structure_nom})`]))
  // Without a protocol, the protocol and its client stay as they are.
  const protocole = input.protocole ?? before.protocole
  const demandable = input.demandable ?? before.demandable
  const change = [
    before.libelle !== input.libelle && `${before.libelle} → ${input.libelle}`,
    before.icone !== input.icone && `${before.icone} → ${input.icone}`,
    before.url !== input.url && `${before.url} → ${input.url}`,
    before.actif !== input.actif && `${yesNo(before.actif)} → ${yesNo(input.actif)}`,
    before.demandable !== demandable && (demandable ? 'demandable' : 'non demandable'),
    before.protocole !== protocole && `${before.protocole} → ${protocole}`,
    input.protocole === 'OIDC' &&
      before.protocole === 'OIDC' &&
      clientChanged(before.oidc, input.oidc) &&
      'client OpenID Connect',
    saml && before.protocole === 'SAML' && `fournisseur SAML ${saml.entityId}`,
    ...(ids ?? []).filter((id) => !before.fonctions.some((f) => f.id === id)).map((id) => `+${byId.get(id)}`),
    ...(ids ? before.fonctions.filter((f) => !ids.includes(f.id)) : []).map(
      (f) => `-${f.libelle} (${f.structure.nom})`,
    ),
  ].filter(Boolean)
  const guard = rootHolds(db, viewer)
  const target = applicationHolds(db, input.id, guard)
  const client =
    input.protocole === 'OIDC' && input.oidc
      ? await clientWrite(db, sql<number>`${input.id}`, input.oidc, before.oidc, target)
      : null
  const results = await namedBatch(ctx.d1, {
    // Before the update, under its very condition.
    log: adminLogWhen(
      db,
      actor,
      'APPLICATION_MODIFICATION',
      `${before.libelle} (#${input.id}) ${change.join(', ')}`,
      ctx.request.userAgent,
      target,
    ),
    updated: db
      .updateTable('application')
      .set({
        libelle: input.libelle,
        icone: input.icone,
        url: input.url,
        actif: input.actif ? 1 : 0,
        demandable: demandable ? 1 : 0,
        protocole,
      })
      .where('id', '=', input.id)
      .where(({ exists }) => exists(guard))
      .returning('id'),
    grants: ids ? replaceGrants(db, input.id, ids, guard, target) : null,
    // Switched on or off, granted to other functions: whoever that gives it or takes it from.
    access:
      before.actif !== input.actif || ids
        ? tellAccess(db, actor.id, ofApplication(input.id), undefined, sql<SqlBool>`exists ${target}`)
        : null,
    client: client ? client.statement : protocole !== 'OIDC' && before.oidc ? removeClient(db, input.id, guard) : null,
    saml: saml
      ? samlProviderWrite(db, sql<number>`${input.id}`, saml, target)
      : protocole !== 'SAML' && before.saml
        ? removeSamlProvider(db, input.id, guard)
        : null,
    // Switched off: no launch code it issued can still be exchanged, no session it opened refreshed.
    revoked: db
      .updateTable('refresh_token')
      .set({ revoked_at: new Date().toISOString() })
      .where('application_id', '=', input.id)
      .where('revoked_at', 'is', null)
      .where(({ exists }) =>
        exists(
          db
            .selectFrom('application as off')
            .select('off.id')
            .where('off.id', '=', input.id)
            .where('off.actif', '=', 0),
        ),
      ),
    application: catalogueQuery(db, viewer).where('a.id', '=', input.id),
  }).catch((error) => {
    throw uniqueRace(error, input.libelle, saml)
  })
  const [row] = (results.application?.results ?? []) as CatalogueRow[]
  if ((results.updated?.results.length ?? 0) === 0 || !row) return lostRace(db, input.id)
  return withSecret(toApplication(row), client)
}

/** Whether a write changes what a client registered (its addresses, or public or confidential). */
function clientChanged(before: CatalogueApplication['oidc'], input: ApplicationUpdate['oidc']) {
  if (!before || !input) return before !== null || input !== undefined
  const { clientId: _id, clientSecret: _secret, ...registered } = before
  return JSON.stringify(registered) !== JSON.stringify({ ...registered, ...input })
}

/** The statements making `ids` the whole list of the application's grants (`guard`, `target`: as updateApplication's). */
function replaceGrants(db: DB, application: number, ids: number[], guard: Guard, target: Guard) {
  return [
    db
      .deleteFrom('fonction_application')
      .where('application_id', '=', application)
      .$if(ids.length > 0, (q) => q.where(sql<SqlBool>`fonction_id not in (${sql.join(ids)})`))
      .where(({ exists }) => exists(guard)),
    ...(ids.length > 0 ? [addGrants(db, sql<number>`${application}`, ids, target)] : []),
  ]
}

/**
 * DELETE rest/bd/application/{id}: the application leaves the catalogue with its grants, its open
 * launch codes and the sessions it opened (the schema's cascades); its log entries stay, with the
 * name it had.
 */
export async function deleteApplication(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    actor,
    current: [current],
  } = await rootAdminWith(ctx, caller, {
    current: db.selectFrom('application').select(['id', 'libelle']).where('id', '=', id),
  })
  if (!current) throw notFound('Unknown application')
  const guard = rootHolds(db, viewer)
  const target = applicationHolds(db, id, guard)
  const { deleted } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'APPLICATION_SUPPRESSION',
      `${current.libelle} (#${id})`,
      ctx.request.userAgent,
      target,
    ),
    // Switched off first, so that its holders are told they lose it while it is there to name.
    off: db
      .updateTable('application')
      .set({ actif: 0 })
      .where('id', '=', id)
      .where(({ exists }) => exists(guard)),
    access: tellAccess(db, actor.id, ofApplication(id), undefined, sql<SqlBool>`exists ${target}`),
    deleted: db
      .deleteFrom('application')
      .where('id', '=', id)
      .where(({ exists }) => exists(guard))
      .returning('id'),
  })
  if ((deleted?.results.length ?? 0) === 0) await lostRace(db, id)
}
