import { type Selectable, type SqlBool, sql } from 'kysely'
import { nowIso } from '../../contract/dates'
import type {
  FOURNISSEUR_SORTS,
  Fournisseur,
  FournisseurInput,
  FournisseurUpdate,
} from '../../contract/federation/providers'
import { isClientUri } from '../../contract/oidc/oidc'
import { type DB, type Guard, insertWhen, namedBatch } from '../../db/client'
import type { FournisseurTable } from '../../db/schema'
import { isLocalEnvironment } from '../../env'
import { BusinessError, forbidden, invalidField, notFound } from '../../lib/errors'
import { containsPattern, pageWindow, sortOf, uniqueViolation, wholeList } from '../../lib/query'
import { likePattern } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { type Caller, rootAdminWith, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { rootHolds } from '../core/root-admin'
import { discover, type ProviderMetadata, tokenAuthMethods } from './discovery'
import { openSecret, sealSecret } from './secret'

/**
 * Partners' identity providers, administered by root administrators (`rest/bd/fournisseur`, issue 63): each write
 * reads the provider's discovery document first (a network call, outside the batch), then writes the provider, its
 * domains and its audit entry in one batch, only while the caller is still a root administrator.
 */

type ProviderRow = Omit<Selectable<FournisseurTable>, 'id'> & {
  id: number
  structure_nom: string | null
  domaines: string
  liens: number
}

/** Providers with their structure's name, their domains (a JSON array, sorted) and how many users they link. */
export function providerQuery(db: DB) {
  return db
    .selectFrom('fournisseur as f')
    .leftJoin('structure as s', 's.id', 'f.structure_id')
    .selectAll('f')
    .select([
      's.nom as structure_nom',
      sql<string>`(select coalesce(json_group_array(domaine), '[]') from (select d.domaine from fournisseur_domaine d
        where d.fournisseur_id = f.id order by d.domaine))`.as('domaines'),
      sql<number>`(select count(*) from lien_fournisseur l where l.fournisseur_id = f.id)`.as('liens'),
    ])
}

export function toFournisseur(row: ProviderRow): Fournisseur {
  const metadata = JSON.parse(row.metadata) as ProviderMetadata
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : [])
  return {
    id: row.id,
    nom: row.nom,
    issuer: row.issuer,
    clientId: row.client_id,
    authentification: row.authentification,
    secretDefini: row.secret_scelle !== null,
    scopes: row.scopes,
    domaines: JSON.parse(row.domaines) as string[],
    premiereConnexion: row.premiere_connexion,
    structure:
      row.structure_id !== null && row.structure_nom !== null ? { id: row.structure_id, nom: row.structure_nom } : null,
    confianceMfa: row.confiance_mfa === 1,
    affiche: row.affiche === 1,
    actif: row.actif === 1,
    decouverte: {
      authorizationEndpoint: String(metadata.authorization_endpoint ?? ''),
      tokenEndpoint: String(metadata.token_endpoint ?? ''),
      jwksUri: String(metadata.jwks_uri ?? ''),
      endSessionEndpoint: typeof metadata.end_session_endpoint === 'string' ? metadata.end_session_endpoint : null,
      authentifications: tokenAuthMethods(metadata),
      algorithmes: list(metadata.id_token_signing_alg_values_supported),
      lueLe: row.metadata_lu_le,
    },
    liens: Number(row.liens),
  }
}

/** GET rest/bd/fournisseur: the providers, searched by name, issuer or domain, sorted and paged in SQL. */
export async function listFournisseurs(
  ctx: Ctx,
  caller: Caller,
  query: {
    page?: number | undefined
    taille?: number | undefined
    q?: string | undefined
    tri?: (typeof FOURNISSEUR_SORTS)[number] | undefined
  },
): Promise<{ items: Fournisseur[]; total: number }> {
  const db = ctx.db
  const searched = query.q
    ? containsPattern(
        [
          'f.nom',
          'f.issuer',
          sql<string>`coalesce((select group_concat(d.domaine, ' ') from fournisseur_domaine d where d.fournisseur_id = f.id), '')`,
        ],
        likePattern(query.q),
      )
    : sql<SqlBool>`1`
  const { key, direction } = sortOf(query.tri, 'nom')
  const { size, offset } = pageWindow(query)
  const { rows, count } = await rootAdminWith(ctx, caller, {
    rows: providerQuery(db)
      .where(searched)
      .orderBy(sql.ref(`f.${key}`), direction)
      .orderBy('f.id')
      .limit(size)
      .offset(offset),
    count: db.selectFrom('fournisseur as f').select(sql<number>`count(*)`.as('total')).where(searched),
  })
  const items = (rows as ProviderRow[]).map(toFournisseur)
  return { items: query.page === undefined ? wholeList(items) : items, total: Number(count[0]?.total ?? 0) }
}

/** GET rest/bd/fournisseur/{id}. */
export async function getFournisseur(ctx: Ctx, caller: Caller, id: number): Promise<Fournisseur> {
  const { rows } = await rootAdminWith(ctx, caller, { rows: providerQuery(ctx.db).where('f.id', '=', id) })
  const [row] = rows as ProviderRow[]
  if (!row) throw notFound('Unknown identity provider')
  return toFournisseur(row)
}

const issuerTaken = (issuer: string) =>
  new BusinessError('IDP_ISSUER_ALREADY_USED', 409, 'Another identity provider has this issuer', [issuer])
const domainTaken = (domaine: string) =>
  new BusinessError('IDP_DOMAIN_ALREADY_USED', 409, 'Another identity provider answers for this domain', [domaine])

/** A write refused by a unique index: another administrator took the issuer or a domain meanwhile. */
function uniqueRace(error: unknown, issuer: string, domaines: string[]) {
  if (!uniqueViolation(error)) return error
  return String(error).includes('fournisseur_domaine') ? domainTaken(domaines.join(', ')) : issuerTaken(issuer)
}

/** The issuer, outside development and tests: a public https address (400 on the field otherwise). */
function requireIssuerAddress(ctx: Ctx, issuer: string) {
  if (!isLocalEnvironment(ctx.env) && !isClientUri(issuer, { loopback: false })) {
    throw invalidField('issuer', 'A loopback address is accepted in development only', 'validation.clientUriLocal')
  }
}

/** The method the provider accepts, and what it needs here: a secret, or the portal's signing key. */
function requireAuthentication(ctx: Ctx, input: FournisseurInput, metadata: ProviderMetadata, secretKept: boolean) {
  if (!tokenAuthMethods(metadata).includes(input.authentification)) {
    throw invalidField('authentification', 'The provider does not accept this method', 'validation.authMethod')
  }
  if (input.authentification === 'private_key_jwt') {
    if (!ctx.env.OIDC_SIGNING_KEY) {
      throw invalidField('authentification', 'OIDC_SIGNING_KEY is not set', 'validation.signingKeyMissing')
    }
  } else if (!input.secret && !secretKept) {
    throw invalidField('secret', 'A client secret is required with this method', 'validation.required')
  }
}

/** The domains of a write, as one bound value (a JSON array) whatever their number. */
const domainValues = (domaines: string[]) => sql`json_each(${JSON.stringify(domaines)})`

/** Domains of the list held by another provider than `except`. */
const domainHolders = (db: DB, domaines: string[], except: number | null) =>
  domaines.length === 0
    ? null
    : db
        .selectFrom('fournisseur_domaine')
        .select('domaine')
        .where(sql<SqlBool>`domaine in (select value from ${domainValues(domaines)})`)
        .where('fournisseur_id', '!=', except ?? 0)

const issuerHolder = (db: DB, issuer: string, except: number | null) =>
  db
    .selectFrom('fournisseur')
    .select(['id', 'issuer'])
    .where(sql<SqlBool>`issuer = ${issuer} collate nocase`)
    .where('id', '!=', except ?? 0)

const structureRead = (db: DB, input: FournisseurInput) =>
  input.structure ? db.selectFrom('structure').select(['id', 'nom']).where('id', '=', input.structure.id) : null

/** Adds the domains of the list `provider` (an expression of its id) lacks. */
function addDomains(db: DB, provider: ReturnType<typeof sql<number>>, domaines: string[], guard: Guard) {
  return db
    .insertInto('fournisseur_domaine')
    .columns(['domaine', 'fournisseur_id'])
    .expression(
      db
        .selectFrom(domainValues(domaines).as('j'))
        .select([sql<string>`j.value`.as('domaine'), provider.as('fournisseur_id')])
        .where(sql<SqlBool>`${provider} is not null`)
        .where(({ exists }) => exists(guard))
        .where(
          sql<SqlBool>`not exists (select 1 from fournisseur_domaine held where held.domaine = j.value and held.fournisseur_id = ${provider})`,
        ),
    )
}

const flag = (value: boolean) => (value ? 1 : 0)

/** The columns of a provider a write sets. */
function providerColumns(input: FournisseurInput, metadata: ProviderMetadata, secret: string | null, now: string) {
  return {
    nom: input.nom,
    issuer: metadata.issuer,
    client_id: input.clientId,
    authentification: input.authentification,
    secret_scelle: input.authentification === 'private_key_jwt' ? null : secret,
    scopes: input.scopes,
    premiere_connexion: input.premiereConnexion,
    structure_id: input.premiereConnexion === 'INSCRIRE' ? (input.structure?.id ?? null) : null,
    confiance_mfa: flag(input.confianceMfa),
    affiche: flag(input.affiche),
    actif: flag(input.actif),
    metadata: JSON.stringify(metadata),
    metadata_lu_le: now,
    updated_at: now,
  }
}

/** What the reads of a write found: the issuer and the domains free, the structure known. */
function requireFree(
  issuer: string,
  holders: { issuer: { issuer: string }[]; domains: { domaine: string }[] | undefined },
  input: FournisseurInput,
  structure: { id: number }[] | undefined,
) {
  if (holders.issuer.length > 0) throw issuerTaken(issuer)
  const taken = holders.domains ?? []
  if (taken.length > 0) throw domainTaken(taken.map((d) => d.domaine).join(', '))
  if (input.structure && (structure?.length ?? 0) === 0) {
    throw invalidField('structure', 'Unknown structure', 'validation.unknown')
  }
}

const summary = (input: FournisseurInput, issuer: string) =>
  `${input.nom} (${issuer}) : ${input.premiereConnexion}${input.domaines.length > 0 ? `, ${input.domaines.join(', ')}` : ''}`

/** POST rest/bd/fournisseur: a new provider, its discovery document read and checked first. */
export async function createFournisseur(ctx: Ctx, caller: Caller, input: FournisseurInput): Promise<Fournisseur> {
  requireIssuerAddress(ctx, input.issuer)
  const db = ctx.db
  const viewer = viewerOf(caller)
  // The caller first: nobody but a root administrator makes the portal call an address.
  const read = await rootAdminWith(ctx, caller, {
    issuer: issuerHolder(db, input.issuer, null),
    domains: domainHolders(db, input.domaines, null),
    structure: structureRead(db, input),
  })
  requireFree(input.issuer, read, input, read.structure)
  const metadata = await discover(ctx.env, input.issuer)
  requireAuthentication(ctx, input, metadata, false)
  // The issuer as the provider states it (another spelling of it taken meanwhile: the unique index).
  const issuer = metadata.issuer
  const secret = input.secret ? await sealSecret(ctx.env, issuer, input.clientId, input.secret) : null
  const now = nowIso()
  const guard = rootHolds(db, viewer)
  const created = sql<number>`(select id from fournisseur where issuer = ${issuer})`
  const results = await namedBatch(ctx.d1, {
    created: insertWhen(
      db,
      'fournisseur',
      { ...providerColumns(input, metadata, secret, now), created_at: now },
      guard,
    ).returning('id'),
    domains: input.domaines.length > 0 ? addDomains(db, created, input.domaines, guard) : null,
    log: adminLogWhen(
      db,
      read.actor,
      'FOURNISSEUR_CREATION',
      summary(input, issuer),
      ctx.request.userAgent,
      db.selectNoFrom(sql<number>`1`.as('one')).where(sql<SqlBool>`${created} is not null`),
    ),
    provider: providerQuery(db).where('f.issuer', '=', issuer),
  }).catch((error) => {
    throw uniqueRace(error, issuer, input.domaines)
  })
  const [row] = (results.provider?.results ?? []) as ProviderRow[]
  if ((results.created?.results.length ?? 0) === 0 || !row) throw forbidden('Root administrators only')
  return toFournisseur(row)
}

/** A row while the provider `id` exists and the caller is still a root administrator. */
const providerHolds = (db: DB, id: number, guard: Guard) =>
  db
    .selectFrom('fournisseur as target')
    .select('target.id')
    .where('target.id', '=', id)
    .where(({ exists }) => exists(guard))

async function lostRace(db: DB, id: number): Promise<never> {
  const left = await db.selectFrom('fournisseur').select('id').where('id', '=', id).executeTakeFirst()
  throw left ? forbidden('Root administrators only') : notFound('Unknown identity provider')
}

/**
 * PUT rest/bd/fournisseur: changes a provider (its discovery document read again). Without `secret` the one set stays
 * (sealed again when the issuer or the client changes). Switched off, its sign-ins under way end with it.
 */
export async function updateFournisseur(ctx: Ctx, caller: Caller, input: FournisseurUpdate): Promise<Fournisseur> {
  requireIssuerAddress(ctx, input.issuer)
  const db = ctx.db
  const viewer = viewerOf(caller)
  const read = await rootAdminWith(ctx, caller, {
    current: providerQuery(db).where('f.id', '=', input.id),
    issuer: issuerHolder(db, input.issuer, input.id),
    domains: domainHolders(db, input.domaines, input.id),
    structure: structureRead(db, input),
  })
  const [current] = read.current as ProviderRow[]
  if (!current) throw notFound('Unknown identity provider')
  requireFree(input.issuer, read, input, read.structure)
  const metadata = await discover(ctx.env, input.issuer)
  const issuer = metadata.issuer
  const kept = current.secret_scelle
    ? await openSecret(ctx.env, current.issuer, current.client_id, current.secret_scelle)
    : null
  requireAuthentication(ctx, input, metadata, kept !== null)
  const plain = input.secret ?? kept
  const secret =
    plain && input.authentification !== 'private_key_jwt'
      ? await sealSecret(ctx.env, issuer, input.clientId, plain)
      : null
  const before = toFournisseur(current)
  const now = nowIso()
  const guard = rootHolds(db, viewer)
  const target = providerHolds(db, input.id, guard)
  const id = sql<number>`${input.id}`
  const change = [
    before.nom !== input.nom && `${before.nom} → ${input.nom}`,
    before.issuer !== issuer && `${before.issuer} → ${issuer}`,
    before.clientId !== input.clientId && `client ${before.clientId} → ${input.clientId}`,
    before.authentification !== input.authentification && `${before.authentification} → ${input.authentification}`,
    input.secret && 'nouveau secret',
    before.scopes !== input.scopes && `${before.scopes} → ${input.scopes}`,
    before.premiereConnexion !== input.premiereConnexion && `${before.premiereConnexion} → ${input.premiereConnexion}`,
    before.actif !== input.actif && (input.actif ? 'actif' : 'inactif'),
    before.confianceMfa !== input.confianceMfa &&
      (input.confianceMfa ? 'second facteur du fournisseur' : 'second facteur du portail'),
    ...input.domaines.filter((d) => !before.domaines.includes(d)).map((d) => `+${d}`),
    ...before.domaines.filter((d) => !input.domaines.includes(d)).map((d) => `-${d}`),
  ].filter(Boolean)
  const { updated, provider } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      read.actor,
      'FOURNISSEUR_MODIFICATION',
      `${input.nom} (#${input.id})${change.length > 0 ? ` : ${change.join(', ')}` : ''}`,
      ctx.request.userAgent,
      target,
    ),
    removed: db
      .deleteFrom('fournisseur_domaine')
      .where('fournisseur_id', '=', input.id)
      .where(sql<SqlBool>`domaine not in (select value from ${domainValues(input.domaines)})`)
      .where(({ exists }) => exists(target)),
    updated: db
      .updateTable('fournisseur')
      .set(providerColumns(input, metadata, secret, now))
      .where('id', '=', input.id)
      .where(({ exists }) => exists(guard))
      .returning('id'),
    domains: input.domaines.length > 0 ? addDomains(db, id, input.domaines, target) : null,
    // Switched off: the sign-ins under way at it end now.
    pending: input.actif
      ? null
      : db
          .deleteFrom('fournisseur_etat')
          .where('fournisseur_id', '=', input.id)
          .where(({ exists }) => exists(guard)),
    provider: providerQuery(db).where('f.id', '=', input.id),
  }).catch((error) => {
    throw uniqueRace(error, issuer, input.domaines)
  })
  const [row] = (provider?.results ?? []) as ProviderRow[]
  if ((updated?.results.length ?? 0) === 0 || !row) return lostRace(db, input.id)
  return toFournisseur(row)
}

/**
 * DELETE rest/bd/fournisseur/{id}: the provider, its domains, its links and its sign-ins under way; its users keep
 * their accounts (and their password or passkeys, if they have any) and their history.
 */
export async function deleteFournisseur(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const read = await rootAdminWith(ctx, caller, {
    current: db
      .selectFrom('fournisseur as f')
      .select(['f.id', 'f.nom', 'f.issuer'])
      .select(sql<number>`(select count(*) from lien_fournisseur l where l.fournisseur_id = f.id)`.as('liens'))
      .where('f.id', '=', id),
  })
  const [current] = read.current
  if (!current) throw notFound('Unknown identity provider')
  const guard = rootHolds(db, viewer)
  const { deleted } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      read.actor,
      'FOURNISSEUR_SUPPRESSION',
      `${current.nom} (${current.issuer}), ${current.liens} lien(s)`,
      ctx.request.userAgent,
      providerHolds(db, id, guard),
    ),
    deleted: db
      .deleteFrom('fournisseur')
      .where('id', '=', id)
      .where(({ exists }) => exists(guard))
      .returning('id'),
  })
  if ((deleted?.results.length ?? 0) === 0) await lostRace(db, id)
}
