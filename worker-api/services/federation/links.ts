import { type SqlBool, sql } from 'kysely'
import type { Lien } from '../../contract/federation/links'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden, notFound } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { actorWith, adminWith, type Caller, liveAdmin } from '../core/actor'
import { adminLogWhen, logEntry } from '../core/audit'
import { stillManaged } from '../organisation/user-admin'
import { managedUserQuery } from '../sign-in/sessions'
import { linksOf, toLien } from './link-reads'

/**
 * A user's links to partners' identity providers (issue 63): the user sees theirs on their security page and may
 * remove one while they keep another way in; an administrator who manages the user sees and removes them. Each removal
 * has its entry in the history, in its batch.
 */

/** GET rest/bd/fournisseur/liens: the caller's own links. */
export async function ownLinks(ctx: Ctx, caller: Caller): Promise<Lien[]> {
  const { links } = await actorWith(ctx, caller, { links: linksOf(ctx.db, caller.id) })
  return links.map(toLien)
}

/** A row while the user keeps a way in besides the link to `provider`: a password, a passkey, another link. */
const anotherWayIn = (db: DB, userId: number, provider: number) =>
  db
    .selectFrom('utilisateur as u')
    .select('u.id')
    .where('u.id', '=', userId)
    .where(
      sql<SqlBool>`(u.password_hash is not null
        or exists (select 1 from passkey p where p.utilisateur_id = u.id)
        or exists (select 1 from lien_fournisseur o join fournisseur f on f.id = o.fournisseur_id
                   where o.utilisateur_id = u.id and o.fournisseur_id != ${provider} and f.actif = 1))`,
    )

const linkAt = (db: DB, userId: number, provider: number) =>
  db
    .selectFrom('lien_fournisseur as l')
    .innerJoin('fournisseur as f', 'f.id', 'l.fournisseur_id')
    .select(['f.nom', 'l.mail', 'l.sub'])
    .where('l.utilisateur_id', '=', userId)
    .where('l.fournisseur_id', '=', provider)

/**
 * DELETE rest/bd/fournisseur/liens/{id}: the caller removes their link to a provider, only while they keep another
 * way in (checked in the statement that deletes: a password set or a passkey removed meanwhile counts); 409
 * IDP_LAST_WAY_IN otherwise.
 */
export async function removeOwnLink(ctx: Ctx, caller: Caller, provider: number): Promise<void> {
  const db = ctx.db
  const { actor, link } = await actorWith(ctx, caller, { link: linkAt(db, caller.id, provider) })
  const [current] = link
  if (!current) throw notFound('No link to this provider')
  const allowed = anotherWayIn(db, actor.id, provider).where(({ exists }) =>
    exists(
      db
        .selectFrom('lien_fournisseur')
        .select('sub')
        .where('utilisateur_id', '=', actor.id)
        .where('fournisseur_id', '=', provider),
    ),
  )
  const { removed } = await namedBatch(ctx.d1, {
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'FOURNISSEUR_LIEN_RETRAIT', ctx.request.userAgent, {
        commentaire: `${current.nom} : ${current.mail ?? current.sub}`,
      }),
      allowed,
    ),
    removed: db
      .deleteFrom('lien_fournisseur')
      .where('utilisateur_id', '=', actor.id)
      .where('fournisseur_id', '=', provider)
      .where(({ exists }) => exists(anotherWayIn(db, actor.id, provider)))
      .returning('sub'),
  })
  if ((removed?.results.length ?? 0) > 0) return
  const left = await linkAt(db, actor.id, provider).executeTakeFirst()
  if (!left) throw notFound('No link to this provider')
  throw new BusinessError('IDP_LAST_WAY_IN', 409, 'This link is the only way in: set a password or a passkey first')
}

/** The user an administrator manages, else 404 / 403 (their own links are at rest/bd/fournisseur/liens). */
function managed<Row extends { modification: number }>(actorId: number, id: number, row: Row | undefined) {
  if (id === actorId) throw forbidden('Your own links are at rest/bd/fournisseur/liens')
  if (!row) throw notFound('Unknown user')
  if (!row.modification) throw forbidden('You may not manage this user')
  return row
}

/** GET rest/bd/utilisateur/{id}/fournisseurs: a managed user's links. */
export async function userLinks(ctx: Ctx, caller: Caller, id: number): Promise<Lien[]> {
  const db = ctx.db
  const { actor, row, links } = await adminWith(ctx, caller, {
    row: managedUserQuery(db, caller, id),
    links: linksOf(db, id),
  })
  managed(actor.id, id, row[0])
  return links.map(toLien)
}

/**
 * DELETE rest/bd/utilisateur/{id}/fournisseurs/{fournisseurId}: an administrator removes a managed user's link (the
 * user then signs in another way, or is linked again by the provider's first sign-in rule); only while the caller
 * still manages the user as the batch runs.
 */
export async function removeUserLink(ctx: Ctx, caller: Caller, id: number, provider: number): Promise<void> {
  const db = ctx.db
  const { actor, row, link } = await adminWith(ctx, caller, {
    row: managedUserQuery(db, caller, id),
    link: linkAt(db, id, provider),
  })
  const user = managed(actor.id, id, row[0])
  const [current] = link
  if (!current) throw notFound('No link to this provider')
  const held = stillManaged(db, actor, id).where(liveAdmin(ctx, caller))
  const { removed } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'FOURNISSEUR_LIEN_RETRAIT',
      `#${id} ${user.login} : ${current.nom} (${current.mail ?? current.sub})`,
      ctx.request.userAgent,
      held.where(({ exists }) =>
        exists(
          db
            .selectFrom('lien_fournisseur')
            .select('sub')
            .where('utilisateur_id', '=', id)
            .where('fournisseur_id', '=', provider),
        ),
      ),
    ),
    removed: db
      .deleteFrom('lien_fournisseur')
      .where('utilisateur_id', '=', id)
      .where('fournisseur_id', '=', provider)
      .where(({ exists }) => exists(held))
      .returning('sub'),
  })
  if ((removed?.results.length ?? 0) === 0) {
    const left = await linkAt(db, id, provider).executeTakeFirst()
    throw left ? forbidden('You may no longer manage this user') : notFound('No link to this provider')
  }
}
