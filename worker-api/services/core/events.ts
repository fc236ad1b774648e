import { type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { nowIso, todayIso } from '../../contract/dates'
import type { PortalEvent } from '../../contract/machines/events'
import type { WebhookEventType } from '../../contract/machines/webhooks'
import type { DB } from '../../db/client'
import { wireDateSql } from '../../lib/query'
import { scopeRootPaths, serviceAccountId, userPathsJson, type Viewer } from '../../lib/scope'

/**
 * The portal's events (issue 65, migration 0046): each written by the change it tells of, in that change's batch and
 * under its condition, so that an event is never told of a change that did not happen nor a change left untold. The
 * subject's state is read at that point of the batch; the trigger `evenement_webhooks` queues its deliveries.
 */

/** Who acted: a user (a service account by the negative of its id, lib/scope.ts), or the portal itself. */
export type EventActor = number | 'systeme'

/** The actor as an event stores it, named as they are now. */
function actorJson(actor: EventActor) {
  if (actor === 'systeme') return sql<string>`json_object('type', 'systeme')`
  const account = serviceAccountId(actor)
  if (account !== null) {
    return sql<string>`json_object('type', 'compte_service', 'id', ${account},
      'nom', (select event_account.nom from compte_service event_account where event_account.id = ${account}))`
  }
  return sql<string>`json_object('type', 'utilisateur', 'id', ${actor},
    'login', (select event_actor.login from utilisateur event_actor where event_actor.id = ${actor}))`
}

const bool = (column: string) => sql`json(iif(${sql.ref(column)}, 'true', 'false'))`

const COLUMNS = ['type', 'date', 'acteur', 'sujet', 'sujet_cle', 'data', 'chemins', 'domain'] as const

/** The events whose rows `rows` selects (each `told`), written. */
const insertEvents = (db: DB, rows: Parameters<ReturnType<DB['insertInto']>['expression']>[0]) =>
  db.insertInto('evenement').columns(COLUMNS).expression(rows)

/** What every event's row holds, read from its subject's row at that point of the batch. */
type Told = {
  type: WebhookEventType
  actor: EventActor
  now: Date
  /** The subject's kind and its id's column. */
  subject: [kind: string, id: string]
  /** Whose events it is delivered in order with: the user it is about ('utilisateur:42'). */
  key: RawBuilder<string>
  data: RawBuilder<string>
  chemins: RawBuilder<string>
  /** The column of the subject's domain. */
  domain: string
}

/** The order key of the user in `column`. */
const person = (column: string) => sql<string>`'utilisateur:' || ${sql.ref(column)}`

const told = (t: Told) => [
  sql.val(t.type).as('type'),
  sql.val(nowIso(t.now)).as('date'),
  actorJson(t.actor).as('acteur'),
  sql<string>`json_object('type', ${sql.lit(t.subject[0])}, 'id', ${sql.ref(t.subject[1])})`.as('sujet'),
  t.key.as('sujet_cle'),
  t.data.as('data'),
  t.chemins.as('chemins'),
  sql<string>`${sql.ref(t.domain)}`.as('domain'),
]

type UserEventType = Extract<WebhookEventType, `utilisateur.${string}` | `connexion.${string}`>
/** What an event's data holds beyond its user: a value, or what SQL reads at that point of the batch. */
type Extra = Record<string, string | number | RawBuilder<unknown>>
type PosteEventType = Extract<WebhookEventType, `poste.${string}`>

/**
 * The event of a change to the user `user`, as the user stands at that point of the batch (after the change: place
 * it after), written only when `when` holds there.
 */
export const userEvent = (
  db: DB,
  type: UserEventType,
  actor: EventActor,
  user: number | Expression<number>,
  when: Expression<SqlBool> = sql<SqlBool>`1`,
  now = new Date(),
  extra: Extra = {},
) => userEvents(db, type, actor, (id) => sql<SqlBool>`${id} = ${user}`, when, now, extra)

/** `userEvent` for each of the users `users` picks (a lot of an import), in the order of their ids. */
export function userEvents(
  db: DB,
  type: UserEventType,
  actor: EventActor,
  users: (user: Expression<number>) => Expression<SqlBool>,
  when: Expression<SqlBool> = sql<SqlBool>`1`,
  now = new Date(),
  extra: Extra = {},
) {
  const more = Object.entries(extra).flatMap(([name, value]) => [sql`, ${sql.lit(name)}, ${value}`])
  return insertEvents(
    db,
    db
      .selectFrom('utilisateur as event_user')
      .select(
        told({
          type,
          actor,
          now,
          subject: ['utilisateur', 'event_user.id'],
          key: person('event_user.id'),
          data: sql<string>`json_object('id', event_user.id, 'login', event_user.login, 'nom', event_user.nom,
              'prenom', event_user.prenom, 'mail', event_user.mail, 'actif', ${bool('event_user.actif')},
              'supprime', ${bool('event_user.supprime')}, 'admin', ${bool('event_user.admin')}${sql.join(more, sql``)})`,
          chemins: userPathsJson(sql.ref('event_user.id'), todayIso(now)),
          domain: 'event_user.domain',
        }),
      )
      .where(users(sql.ref<number>('event_user.id')))
      .where(when)
      .orderBy('event_user.id'),
  )
}

/**
 * The events of a change to the posts `posts` picks (under the alias `event_poste`), as they stand at that point of the
 * batch: a deleted post's before its deletion. Each concerns the post's structure, in order with its holder's events.
 */
export function posteEvents(
  db: DB,
  type: PosteEventType,
  actor: EventActor,
  posts: (post: Expression<number>) => Expression<SqlBool>,
  when: Expression<SqlBool> = sql<SqlBool>`1`,
  now = new Date(),
) {
  return insertEvents(
    db,
    db
      .selectFrom('poste as event_poste')
      .innerJoin('structure as event_structure', 'event_structure.id', 'event_poste.structure_id')
      .innerJoin('fonction as event_fonction', 'event_fonction.id', 'event_poste.fonction_id')
      .innerJoin('utilisateur as event_holder', 'event_holder.id', 'event_poste.utilisateur_id')
      .select(
        told({
          type,
          actor,
          now,
          subject: ['poste', 'event_poste.id'],
          key: person('event_poste.utilisateur_id'),
          data: sql<string>`json_object('id', event_poste.id,
              'structure', json_object('id', event_structure.id, 'nom', event_structure.nom),
              'fonction', json_object('id', event_fonction.id, 'libelle', event_fonction.libelle),
              'utilisateur', json_object('id', event_holder.id, 'login', event_holder.login),
              'dateDebut', ${wireDateSql('event_poste.date_debut')}, 'dateFin', ${wireDateSql('event_poste.date_fin')})`,
          chemins: sql<string>`json_array(event_structure.path)`,
          domain: 'event_holder.domain',
        }),
      )
      .where(posts(sql.ref<number>('event_poste.id')))
      // A registration not complete is the authorisation queue's, nobody's user yet (DESIGN §4).
      .where('event_holder.registration_state', '<>', 'PENDING')
      .where(when)
      .orderBy('event_poste.id'),
  )
}

/**
 * The end of an import (`import.termine`: done, or stopped with `etat: 'ECHEC'` and why), as the import's row stands at
 * that point of the batch (place it after the write that ends it). It concerns the sub-trees its importer (`importer`,
 * the viewer the import ran as) administers.
 */
export function importEvent(
  db: DB,
  importer: Viewer,
  importId: number | Expression<number>,
  when: Expression<SqlBool> = sql<SqlBool>`1`,
  now = new Date(),
) {
  const roots = scopeRootPaths(db, importer).clearSelect().select('scope_root.path')
  return insertEvents(
    db,
    db
      .selectFrom('import as event_import')
      .select(
        told({
          type: 'import.termine',
          actor: importer.id,
          now,
          subject: ['import', 'event_import.id'],
          // An import concerns no one person: its own order.
          key: sql<string>`'import:' || event_import.id`,
          data: sql<string>`json_object('id', event_import.id, 'type', event_import.type,
              'fichier', event_import.fichier, 'etat', event_import.etat, 'lignes', event_import.lignes,
              'creees', event_import.creees, 'modifiees', event_import.modifiees, 'inchangees', event_import.inchangees,
              'erreurs', event_import.lignes_erreur, 'motifEchec', event_import.motif_echec)`,
          chemins: sql<string>`(select coalesce(json_group_array(import_root.path), '[]') from (${roots}) import_root)`,
          domain: 'event_import.domaine',
        }),
      )
      .where(sql<SqlBool>`event_import.id = ${importId}`)
      .where(when),
  )
}

type RequestEventType = Extract<WebhookEventType, `demande.${string}`>

/**
 * An access request's event (`demande.creee`, `.accordee`, `.refusee`, `.retiree`, `.expiree`), as the request stands
 * at that point of the batch (after the write that changes it), in order with its requester's other events.
 */
export function requestEvent(
  db: DB,
  type: RequestEventType,
  actor: EventActor,
  request: (id: Expression<number>) => Expression<SqlBool>,
  when: Expression<SqlBool> = sql<SqlBool>`1`,
  now = new Date(),
) {
  return insertEvents(
    db,
    db
      .selectFrom('demande_acces as event_demande')
      .innerJoin('utilisateur as event_requester', 'event_requester.id', 'event_demande.utilisateur_id')
      .innerJoin('application as event_application', 'event_application.id', 'event_demande.application_id')
      .select(
        told({
          type,
          actor,
          now,
          subject: ['demande', 'event_demande.id'],
          key: person('event_requester.id'),
          data: sql<string>`json_object('id', event_demande.id,
              'utilisateur', json_object('id', event_requester.id, 'login', event_requester.login),
              'application', json_object('id', event_application.id, 'libelle', event_application.libelle),
              'motif', event_demande.motif, 'dateDebut', ${wireDateSql('event_demande.date_debut')},
              'dateFin', ${wireDateSql('event_demande.date_fin')}, 'etat', event_demande.etat,
              'commentaire', event_demande.commentaire, 'poste', event_demande.poste_id)`,
          chemins: userPathsJson(sql.ref('event_requester.id'), todayIso(now)),
          domain: 'event_requester.domain',
        }),
      )
      .where(request(sql.ref<number>('event_demande.id')))
      .where(when),
  )
}

/** `when` for a statement placed right after a write of one row: that it wrote it. */
export const afterOneRow = sql<SqlBool>`changes() = 1`

/** An event's row as it is delivered and pulled. */
export type EventRow = { id: number; type: string; date: string; acteur: string; sujet: string; data: string }

export const eventOf = (row: EventRow): PortalEvent => ({
  id: row.id,
  type: row.type,
  date: row.date,
  acteur: JSON.parse(row.acteur),
  sujet: JSON.parse(row.sujet),
  data: JSON.parse(row.data),
})

type RegistrationEventType = Extract<WebhookEventType, `inscription.${string}`>

/**
 * A registration's event (`inscription.creee`, `.validee`, `.refusee`: DESIGN §4, a registration is the authorisation
 * queue's, nobody's user yet), as the registration stands at that point of the batch: a refused one's before its
 * deletion. It concerns the structure it waits in, as the queue's scope does, in order with the person's later events.
 */
export function registrationEvent(
  db: DB,
  type: RegistrationEventType,
  actor: EventActor,
  registration: number | Expression<number>,
  when: Expression<SqlBool> = sql<SqlBool>`1`,
  now = new Date(),
) {
  return insertEvents(
    db,
    db
      .selectFrom('utilisateur as event_registration')
      .leftJoin('structure as event_waits', 'event_waits.id', 'event_registration.rattachement_id')
      .leftJoin('structure as event_company', 'event_company.id', 'event_registration.registration_structure_id')
      .select(
        told({
          type,
          actor,
          now,
          subject: ['inscription', 'event_registration.id'],
          key: person('event_registration.id'),
          data: sql<string>`json_object('id', event_registration.id, 'mail', event_registration.mail,
              'nom', event_registration.nom, 'prenom', event_registration.prenom,
              'entreprise', coalesce(event_company.nom, event_registration.registration_structure_nom),
              'structure', iif(event_waits.id is null, null,
                json_object('id', event_waits.id, 'nom', event_waits.nom)))`,
          chemins: sql<string>`iif(event_waits.path is null, '[]', json_array(event_waits.path))`,
          domain: 'event_registration.domain',
        }),
      )
      .where(sql<SqlBool>`event_registration.id = ${registration}`)
      .where('event_registration.registration_state', '=', 'PENDING')
      .where(when),
  )
}

type ReviewEventType = Extract<WebhookEventType, `revue.${string}`>

/**
 * An access review campaign's event (`revue.ouverte`, `.echue` once its due date is applied, `.cloturee`), as the
 * campaign stands at that point of the batch, with its counts so far. It concerns the sub-tree it reviews, in an order
 * of its own.
 */
export function reviewEvent(
  db: DB,
  type: ReviewEventType,
  actor: EventActor,
  review: number | Expression<number>,
  when: Expression<SqlBool> = sql<SqlBool>`1`,
  now = new Date(),
) {
  const count = (column: string) =>
    sql`(select coalesce(sum(${sql.ref(`event_progress.${column}`)}), 0) from revue_progression event_progress
      where event_progress.revue_id = event_revue.id)`
  return insertEvents(
    db,
    db
      .selectFrom('revue as event_revue')
      .select(
        told({
          type,
          actor,
          now,
          subject: ['revue', 'event_revue.id'],
          key: sql<string>`'revue:' || event_revue.id`,
          data: sql<string>`json_object('id', event_revue.id, 'nom', event_revue.nom,
              'structure', json_object('id', event_revue.structure_id, 'nom', event_revue.structure_nom),
              'echeance', ${wireDateSql('event_revue.echeance')}, 'siNonRevu', event_revue.si_non_revu,
              'etat', event_revue.etat, 'postes', ${count('total')}, 'confirmes', ${count('confirmes')},
              'termines', ${count('termines')})`,
          chemins: sql<string>`json_array(event_revue.chemin)`,
          domain: 'event_revue.domaine',
        }),
      )
      .where(sql<SqlBool>`event_revue.id = ${review}`)
      .where(when),
  )
}

type AccessEventType = Extract<WebhookEventType, `acces.${string}`>

/** A user, an application and the paths of the structures that granted it, as a statement selects them. */
export type AccessPair = { utilisateur_id: number; application_id: number; chemins: string }

/** The union of two JSON arrays of paths, each once. */
export const pathsUnion = (a: Expression<string>, b: Expression<string>) =>
  sql<string>`(select json_group_array(paths_union.value) from
    (select value from json_each(${a}) union select value from json_each(${b})) paths_union)`

/**
 * Access gained or lost (`acces.accorde`, `acces.retire`): one event for each pair `pairs` selects, about its user and
 * in order with their other events, naming the application as it stands at that point of the batch. It concerns the
 * sub-trees of the posts that granted it (`chemins`: a loss is told where it was held, even once those posts are gone)
 * and those the user belongs to now.
 */
export function accessEvents<Tables, From extends keyof Tables>(
  db: DB,
  type: AccessEventType,
  actor: EventActor,
  pairs: SelectQueryBuilder<Tables, From, AccessPair>,
  now = new Date(),
) {
  return insertEvents(
    db,
    db
      .selectFrom(pairs.as('event_access'))
      .innerJoin('utilisateur as event_user', 'event_user.id', 'event_access.utilisateur_id')
      .innerJoin('application as event_application', 'event_application.id', 'event_access.application_id')
      .select(
        told({
          type,
          actor,
          now,
          subject: ['utilisateur', 'event_user.id'],
          key: person('event_user.id'),
          data: sql<string>`json_object('utilisateur', json_object('id', event_user.id, 'login', event_user.login),
              'application', json_object('id', event_application.id, 'libelle', event_application.libelle))`,
          chemins: pathsUnion(sql.ref('event_access.chemins'), userPathsJson(sql.ref('event_user.id'), todayIso(now))),
          domain: 'event_user.domain',
        }),
      )
      .orderBy('event_user.id')
      .orderBy('event_application.id'),
  )
}
