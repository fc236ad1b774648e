import { type SqlBool, sql } from 'kysely'
import { organisationDateTime, toWireDate } from '../../contract/dates'
import type { Language } from '../../contract/language'
import { csvLine, csvStream } from '../../lib/csv'
import { notFound } from '../../lib/errors'
import { pathInScope } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { reviewRead } from './reviews'

/** The items the report reads per statement. */
const REPORT_CHUNK = 500

const HEADERS: Record<Language, string[]> = {
  fr: [
    'Structure',
    'Identifiant',
    'Nom',
    'Prénom',
    'Fonction',
    'Début du poste',
    'Fin du poste',
    'Décision',
    'Fin décidée',
    'Décidé le',
    'Par',
    'Commentaire',
  ],
  en: [
    'Structure',
    'Login',
    'Last name',
    'First name',
    'Function',
    'Post start',
    'Post end',
    'Decision',
    'End decided',
    'Decided on',
    'By',
    'Comment',
  ],
}

const STATES: Record<Language, Record<string, string>> = {
  fr: { A_REVOIR: 'À revoir', CONFIRME: 'Confirmé', TERMINE: 'Terminé' },
  en: { A_REVOIR: 'To review', CONFIRME: 'Confirmed', TERMINE: 'Ended' },
}
const AUTOMATIC: Record<Language, string> = { fr: 'Échéance (non revu)', en: 'Due date (not reviewed)' }
/** A post the due date was to end, kept: the campaign's author could not end it (services/governance/review-runs.ts). */
const AUTOMATIC_KEPT: Record<Language, string> = {
  fr: 'Échéance (non revu) : conservé, l’auteur de la campagne ne pouvait pas le terminer',
  en: 'Due date (not reviewed): kept, the campaign’s author could not end it',
}

/**
 * GET rest/bd/revue/{id}/rapport.csv: who confirmed or ended which post of the caller's scope, when and why — what an
 * auditor asks for — in the tree's order, streamed a few hundred items at a time, each read resuming after the last.
 */
export async function reviewReport(ctx: Ctx, caller: Caller, id: number): Promise<ReadableStream<Uint8Array>> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const chunk = (after: { chemin: string; id: number } | null) =>
    db
      .selectFrom('revue_element as e')
      .select([
        'e.id',
        'e.chemin',
        'e.structure_nom',
        'e.login',
        'e.nom',
        'e.prenom',
        'e.fonction_libelle',
        'e.date_debut',
        'e.date_fin',
        'e.etat',
        'e.date_fin_decidee',
        'e.decided_at',
        'e.decideur_nom',
        'e.automatique',
        'e.commentaire',
      ])
      .where('e.revue_id', '=', id)
      .where(pathInScope(db, viewer, sql.ref<string>('e.chemin')))
      .$if(after !== null, (q) =>
        q.where(sql<SqlBool>`(e.chemin > ${after?.chemin} or (e.chemin = ${after?.chemin} and e.id > ${after?.id}))`),
      )
      .orderBy('e.chemin')
      .orderBy('e.id')
      .limit(REPORT_CHUNK)
  const {
    review: [review],
    first,
  } = await adminWith(ctx, caller, { review: reviewRead(db, viewer, id), first: chunk(null) })
  if (!review?.visible) throw notFound('Unknown review campaign')
  const language = ctx.request.language
  return csvStream({
    language,
    header: HEADERS[language],
    first,
    lines: (row) => {
      const decided = row.decided_at ? organisationDateTime(row.decided_at) : null
      return csvLine(language, [
        row.structure_nom,
        row.login,
        row.nom,
        row.prenom,
        row.fonction_libelle,
        toWireDate(row.date_debut),
        toWireDate(row.date_fin),
        STATES[language][row.etat],
        row.date_fin_decidee ? toWireDate(row.date_fin_decidee) : '',
        decided ? `${decided.date} ${decided.time}` : '',
        row.automatique
          ? review.si_non_revu === 'TERMINER' && row.etat === 'CONFIRME'
            ? AUTOMATIC_KEPT[language]
            : AUTOMATIC[language]
          : row.decideur_nom,
        row.commentaire,
      ])
    },
    next: {
      chunk: REPORT_CHUNK,
      read: (after: { chemin: string; id: number }) => chunk(after).execute(),
      cursor: (last) => ({ chemin: last.chemin, id: last.id }),
    },
  })
}
