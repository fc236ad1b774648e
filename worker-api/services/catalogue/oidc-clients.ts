import { type RawBuilder, sql } from 'kysely'
import type { OidcClient, OidcClientInput } from '../../contract/oidc/oidc'
import { type DB, type Guard, namedBatch } from '../../db/client'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { BusinessError, forbidden, notFound } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { type Caller, rootAdminWith, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { rootHolds } from '../core/root-admin'

/**
 * An OIDC application's client (DESIGN §4b): its id and secret are the portal's to make, the secret
 * shown once and kept as its SHA-256 (256 random bits: a fast hash is enough), its addresses as
 * registered.
 */

/** The client columns a catalogue read selects (`c`, left-joined on the application `a`). */
export const CLIENT_COLUMNS = [
  'c.client_id',
  'c.secret_hash',
  'c.redirect_uris',
  'c.post_logout_redirect_uris',
  'c.initiate_login_uri',
  'c.backchannel_logout_uri',
  'c.device_grant',
] as const

export type ClientColumns = {
  client_id: string | null
  secret_hash: string | null
  redirect_uris: string | null
  post_logout_redirect_uris: string | null
  initiate_login_uri: string | null
  backchannel_logout_uri: string | null
  device_grant: number | null
}

/** The client of a catalogue row, null without one. */
export function toClient(row: ClientColumns): OidcClient | null {
  if (row.client_id === null) return null
  return {
    clientId: row.client_id,
    public: row.secret_hash === null,
    redirectUris: JSON.parse(row.redirect_uris ?? '[]') as string[],
    postLogoutRedirectUris: JSON.parse(row.post_logout_redirect_uris ?? '[]') as string[],
    initiateLoginUri: row.initiate_login_uri,
    backchannelLogoutUri: row.backchannel_logout_uri,
    deviceGrant: row.device_grant === 1,
  }
}

/** A new client's id: random, never derived from the application's name or number. */
export const newClientId = () => randomToken(18)

/** What a write does to an application's client, and the secret it made (shown once). */
export type ClientWrite = {
  statement: ReturnType<typeof upsertClient> | null
  secret: string | null
  clientId: string | null
}

/**
 * The client an OIDC application's write leaves (`application`: an expression of its id), written
 * under `guard`: the same id as before, a new secret when it becomes confidential (kept while it
 * stays so), none for a public client. A CODE application's write leaves none (`removeClient`).
 */
export async function clientWrite(
  db: DB,
  application: RawBuilder<number>,
  input: OidcClientInput,
  before: OidcClient | null,
  guard: Guard,
): Promise<ClientWrite> {
  const clientId = before?.clientId ?? newClientId()
  const keep = before !== null && !before.public && !input.public
  const secret = input.public || keep ? null : randomToken()
  const secretHash = secret === null ? null : await sha256Hex(secret)
  return { statement: upsertClient(db, application, clientId, input, secretHash, keep, guard), secret, clientId }
}

function upsertClient(
  db: DB,
  application: RawBuilder<number>,
  clientId: string,
  input: OidcClientInput,
  secretHash: string | null,
  keepSecret: boolean,
  guard: Guard,
) {
  const values = {
    redirect_uris: JSON.stringify(input.redirectUris),
    post_logout_redirect_uris: JSON.stringify(input.postLogoutRedirectUris),
    initiate_login_uri: input.initiateLoginUri,
    backchannel_logout_uri: input.backchannelLogoutUri,
    device_grant: input.deviceGrant ? 1 : 0,
  }
  return db
    .insertInto('oidc_client')
    .columns(['application_id', 'client_id', 'secret_hash', ...(Object.keys(values) as (keyof typeof values)[])])
    .expression(
      db
        .selectNoFrom((eb) => [
          sql<number>`${application}`.as('application_id'),
          eb.val(clientId).as('client_id'),
          eb.val(secretHash).as('secret_hash'),
          eb.val(values.redirect_uris).as('redirect_uris'),
          eb.val(values.post_logout_redirect_uris).as('post_logout_redirect_uris'),
          eb.val(values.initiate_login_uri).as('initiate_login_uri'),
          eb.val(values.backchannel_logout_uri).as('backchannel_logout_uri'),
          eb.val(values.device_grant).as('device_grant'),
        ])
        .where(({ exists }) => exists(guard)),
    )
    .onConflict((oc) =>
      oc.column('application_id').doUpdateSet(keepSecret ? values : { ...values, secret_hash: secretHash }),
    )
}

/** The statement removing an application's client (it no longer uses OpenID Connect), under `guard`. */
export const removeClient = (db: DB, application: number, guard: Guard) =>
  db
    .deleteFrom('oidc_client')
    .where('application_id', '=', application)
    .where(({ exists }) => exists(guard))

/**
 * POST rest/bd/application/{id}/secret: a confidential client's new secret, shown once; the old one
 * stops authenticating at once. Written with its audit entry while the caller is a root administrator.
 */
export async function rotateSecret(
  ctx: Ctx,
  caller: Caller,
  id: number,
): Promise<{ clientId: string; clientSecret: string }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    actor,
    current: [current],
  } = await rootAdminWith(ctx, caller, {
    current: db
      .selectFrom('application as a')
      .leftJoin('oidc_client as c', 'c.application_id', 'a.id')
      .select(['a.id', 'a.libelle', 'c.client_id', 'c.secret_hash'])
      .where('a.id', '=', id),
  })
  if (!current) throw notFound('Unknown application')
  if (!current.client_id || current.secret_hash === null) {
    throw new BusinessError(
      'OIDC_CLIENT_NOT_CONFIDENTIAL',
      409,
      'Only a confidential OpenID Connect client has a secret',
    )
  }
  const clientSecret = randomToken()
  const guard = rootHolds(db, viewer)
  const client = db
    .selectFrom('oidc_client as held')
    .select('held.application_id')
    .where('held.application_id', '=', id)
    .where('held.secret_hash', 'is not', null)
    .where(({ exists }) => exists(guard))
  const { rotated } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'APPLICATION_MODIFICATION',
      `${current.libelle} (#${id}) secret OpenID Connect renouvelé`,
      ctx.request.userAgent,
      client,
    ),
    rotated: db
      .updateTable('oidc_client')
      .set({ secret_hash: await sha256Hex(clientSecret) })
      .where('application_id', '=', id)
      .where('secret_hash', 'is not', null)
      .where(({ exists }) => exists(guard))
      .returning('client_id'),
  })
  if ((rotated?.results.length ?? 0) === 0) throw forbidden('Root administrators only')
  return { clientId: current.client_id, clientSecret }
}
