import { LOG_TYPES, type LogType } from '../db/schema'

/** Spec §9. A Map, not an object: a name such as "__proto__" or "constructor" must find nothing. */
const APPLICATION_LOG_TYPES = new Map<string, LogType>([
  ['Yard dangereux', 'APPLI_YARD'],
  ['Module Rendez vous', 'APPLI_MODRDV'],
  ['Pesage', 'APPLI_PESAGE'],
])

/** Spec §9: application names map to log types, others to APPLICATION. */
export function logTypeForApplication(libelle: string): LogType {
  return APPLICATION_LOG_TYPES.get(libelle) ?? 'APPLICATION'
}

/** The type of a log posted by a client: a log type by its name, else the application's type. */
export function logTypeForName(nomLog: string): LogType {
  const type = LOG_TYPES.find((candidate) => candidate === nomLog)
  return type ?? logTypeForApplication(nomLog)
}
