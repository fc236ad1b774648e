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

/** The type of a log posted by a client: a log type by its name, else the application's type. */
export function logTypeForName(nomLog: string): LogType {
  const type = LOG_TYPES.find((candidate) => candidate === nomLog)
  return type ?? logTypeForApplication(nomLog)
}
