import { env } from 'cloudflare:test'
import { isoDate, ORIGIN } from './helpers'

let made = 0

/**
 * `count` users, each with a current post of `fonction` in `structure`, written in two statements whatever their
 * number (their numbers as one JSON value): a crowd to take a list to its maximum. Each is `foule<n>@example.test`,
 * with the external id `ext-<n>`.
 */
export async function manyUsers(count: number, structure: number, fonction: number): Promise<number[]> {
  const numbers = JSON.stringify(Array.from({ length: count }, () => ++made))
  const { results } = await env.DB.prepare(
    `insert into utilisateur (login, nom, prenom, mail, external_id, domain)
     select 'foule' || value || '@example.test', 'Foule' || value, 'Membre' || value,
       'foule' || value || '@example.test', 'ext-' || value, ? from json_each(?)
     returning id`,
  )
    .bind(ORIGIN, numbers)
    .all<{ id: number }>()
  const ids = results.map((row) => row.id)
  await env.DB.prepare(
    `insert into poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
     select value, ?, ?, ?, ? from json_each(?)`,
  )
    .bind(structure, fonction, isoDate(-30), isoDate(30), JSON.stringify(ids))
    .run()
  return ids
}
