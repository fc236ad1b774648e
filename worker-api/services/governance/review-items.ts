import { sql } from 'kysely'
import { toWireDate } from '../../contract/dates'
import type {
  ItemState,
  ReviewDetailQuery,
  ReviewItem,
  ReviewItemsQuery,
  ReviewPage,
} from '../../contract/governance/access-reviews'
import type { DB } from '../../db/client'
import { notFound } from '../../lib/errors'
import { LAUNCH_LOG_TYPES } from '../../lib/log-types'
import { containsEveryWord, pageWindow, wholeList } from '../../lib/query'
import { pathInScopeRoots, pathInScopeSpan, type Viewer, withScopeRoots } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { type ActorAnd, adminWith, type Caller, viewerOf } from '../core/actor'
import { detailOf, detailReads, reviewRead } from './reviews'

/** The items of campaign `id` the viewer reviews: those of the structures of their scope. */
function itemsQuery(db: DB, viewer: Viewer, id: number) {
  return db
    .selectFrom('revue_element as e')
    .where('e.revue_id', '=', id)
    .where(pathInScopeSpan(db, viewer, sql.ref<string>('e.chemin')))
}

const launchTypes = sql.join(LAUNCH_LOG_TYPES.map((type) => sql.lit(type)))

/**
 * The reads of a page of the items of the viewer's scope, grouped by structure (in the tree's order), those to review
 * first, searched and filtered in SQL, each with what the post opens and the user's last sign-in and launch (the history
 * knows them); and of their total, counted when a search asks, else summed from the structures' counts.
 */
function itemReads(db: DB, viewer: Viewer, id: number, query: ReviewItemsQuery) {
  const search = containsEveryWord(['e.recherche', 'e.login', 'e.fonction_libelle', 'e.structure_nom'], query.q)
  const filtered = itemsQuery(db, viewer, id)
    .$if(query.structure !== undefined, (q) => q.where('e.structure_id', '=', query.structure as number))
    .$if(query.etat !== undefined, (q) => q.where('e.etat', '=', query.etat as ItemState))
    .$if(search !== null, (q) => q.where(search as NonNullable<typeof search>))
  const rows = filtered
    .select([
      'e.id',
      'e.etat',
      'e.poste_id',
      'e.structure_id',
      'e.structure_nom',
      'e.fonction_libelle',
      'e.date_debut',
      'e.date_fin',
      'e.utilisateur_id',
      'e.login',
      'e.nom',
      'e.prenom',
      'e.decided_at',
      'e.decideur_nom',
      'e.commentaire',
      'e.date_fin_decidee',
      'e.automatique',
    ])
    .select([
      // A user's last sign-in and last launch, a seek each in their partial indexes (migration 0044): the type-and-instant
      // index would walk every sign-in of the organisation for one who never signed in, the user's own index every
      // entry of an administrator who never launched.
      sql<
        string | null
      >`(select l.date from log l indexed by log_utilisateur_connexion where l.utilisateur_id = e.utilisateur_id
        and l.type_log = 'CONNEXION' order by l.instant desc limit 1)`.as('connexion'),
      sql<
        string | null
      >`(select l.date from log l indexed by log_utilisateur_lancement where l.utilisateur_id = e.utilisateur_id
        and l.type_log in (${launchTypes}) order by l.instant desc limit 1)`.as('lancement'),
      sql<string>`(select coalesce(json_group_array(a.libelle), '[]') from poste p
        join fonction_application fa on fa.fonction_id = p.fonction_id
        join application a on a.id = fa.application_id and a.actif = 1
        where p.id = e.poste_id)`.as('applications'),
    ])
    .orderBy('e.chemin')
    .orderBy('e.etat')
    .orderBy('e.id')
  const counted = query.q !== undefined && query.q !== ''
  // Without a page, a whole list's rows at most: a campaign over the organisation has 100 000 items.
  const window = pageWindow(query)
  return {
    items: rows.limit(window.size).offset(window.offset),
    total: query.page !== undefined && counted ? filtered.select((eb) => eb.fn.countAll<number>().as('total')) : null,
    counts:
      query.page !== undefined && !counted
        ? withScopeRoots(db, viewer)
            .selectFrom('revue_progression as rp')
            .select((eb) => [
              eb.fn.sum<number>('rp.total').as('total'),
              eb.fn.sum<number>('rp.confirmes').as('confirmes'),
              eb.fn.sum<number>('rp.termines').as('termines'),
            ])
            .where('rp.revue_id', '=', id)
            .$if(query.structure !== undefined, (q) => q.where('rp.structure_id', '=', query.structure as number))
            .where(pathInScopeRoots(sql.ref<string>('rp.chemin')))
        : null,
  }
}

/** What D1 answers to `itemReads`. */
type ItemRows = Omit<ActorAnd<ReturnType<typeof itemReads>>, 'actor'>

/** The items of `itemReads`' rows and their total (null without a page). */
function itemsOf(query: ReviewItemsQuery, { items, total, counts }: ItemRows) {
  const sums = counts?.[0]
  const fromCounts = () => {
    const all = Number(sums?.total ?? 0)
    const confirmes = Number(sums?.confirmes ?? 0)
    const termines = Number(sums?.termines ?? 0)
    if (query.etat === 'CONFIRME') return confirmes
    if (query.etat === 'TERMINE') return termines
    if (query.etat === 'A_REVOIR') return all - confirmes - termines
    return all
  }
  return {
    items: (query.page === undefined ? wholeList(items) : items).map(
      (row): ReviewItem => ({
        id: row.id,
        etat: row.etat,
        poste: {
          id: row.poste_id,
          structure: { id: row.structure_id, nom: row.structure_nom },
          fonction: { libelle: row.fonction_libelle },
          dateDebut: toWireDate(row.date_debut),
          dateFin: toWireDate(row.date_fin),
        },
        utilisateur: {
          id: row.utilisateur_id,
          login: row.login,
          nom: row.nom,
          prenom: row.prenom,
          derniereConnexion: row.connexion,
          dernierLancement: row.lancement,
        },
        applications: JSON.parse(row.applications) as string[],
        decision: row.decided_at
          ? {
              date: row.decided_at,
              par: row.decideur_nom,
              commentaire: row.commentaire,
              dateFin: row.date_fin_decidee ? toWireDate(row.date_fin_decidee) : null,
              automatique: row.automatique === 1,
            }
          : null,
      }),
    ),
    total: query.page === undefined ? null : total ? (total[0]?.total ?? 0) : fromCounts(),
  }
}

/** GET rest/bd/revue/{id}/elements: a page of the items of the caller's scope (`itemReads`) and their total. */
export async function reviewItems(
  ctx: Ctx,
  caller: Caller,
  id: number,
  query: ReviewItemsQuery,
): Promise<{ items: ReviewItem[]; total: number | null }> {
  const viewer = viewerOf(caller)
  const {
    review: [review],
    ...rows
  } = await adminWith(ctx, caller, { review: reviewRead(ctx.db, viewer, id), ...itemReads(ctx.db, viewer, id, query) })
  if (!review?.visible) throw notFound('Unknown review campaign')
  return itemsOf(query, rows)
}

/**
 * GET rest/bd/revue/{id}?elements=N: the campaign (`reviewDetail`) and a page of N of its items with their total
 * (`reviewItems`), in one round trip — the reviewer's page.
 */
export async function reviewPage(
  ctx: Ctx,
  caller: Caller,
  id: number,
  { elements, ...filters }: ReviewDetailQuery & { elements: number },
): Promise<ReviewPage> {
  const viewer = viewerOf(caller)
  const items: ReviewItemsQuery = { ...filters, page: filters.page ?? 1, taille: elements }
  // Neither searched nor of one structure, the items' total is the campaign's progress, read already.
  const whole = items.structure === undefined && !items.q
  const { review, structures, ...rows } = await adminWith(ctx, caller, {
    ...detailReads(ctx.db, viewer, id),
    ...itemReads(ctx.db, viewer, id, items),
    ...(whole ? { counts: null } : {}),
  })
  const detail = detailOf({ review, structures })
  const page = itemsOf(items, whole ? { ...rows, counts: [detail.progression] } : rows)
  return { ...detail, elements: page.items, totalElements: page.total ?? 0 }
}
