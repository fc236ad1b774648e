import { type Expression, sql } from 'kysely'
import { LOG_TYPES, type LogType } from '../contract/log-labels'

/** Spec §9. A Map, not an object: a name such as "__proto__" or "constructor" must find nothing. */
const APPLICATION_LOG_TYPES = new Map<string, LogType>([
  ['Yard dangereux', 'APPLI_YARD'],
  ['Module Rendez vous', 'APPLI_MODRDV'],
  ['Pesage', 'APPLI_PESAGE'],
])

/** The types of a launch's entry: one of spec §9's, or APPLICATION for any other application. */
export const LAUNCH_LOG_TYPES: readonly LogType[] = [...new Set(APPLICATION_LOG_TYPES.values()), 'APPLICATION']

/** Spec §9: application names map to log types, others to APPLICATION. */
export function logTypeForApplication(libelle: string): LogType {
  return APPLICATION_LOG_TYPES.get(libelle) ?? 'APPLICATION'
}

/** `logTypeForApplication` in SQL, of an application's name a statement reads: for a launch's entry written with it. */
export const logTypeForApplicationSql = (libelle: Expression<string>) =>
  sql<LogType>`case ${libelle} ${sql.join(
    [...APPLICATION_LOG_TYPES].map(([name, type]) => sql`when ${name} then ${type}`),
    sql` `,
  )} else 'APPLICATION' end`

/** The type of a log posted by a client: a log type by its name, else the application's type. */
export function logTypeForName(nomLog: string): LogType {
  const type = LOG_TYPES.find((candidate) => candidate === nomLog)
  return type ?? logTypeForApplication(nomLog)
}
