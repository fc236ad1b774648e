import type { LogType } from '../db/schema'

const APPLICATION_LOG_TYPES: Record<string, LogType> = {
  'Yard dangereux': 'APPLI_YARD',
  'Module Rendez vous': 'APPLI_MODRDV',
  Pesage: 'APPLI_PESAGE',
}

/** Spec §9: application names map to log types, others to APPLICATION. */
export function logTypeForApplication(libelle: string): LogType {
  return APPLICATION_LOG_TYPES[libelle] ?? 'APPLICATION'
}

/** The type of a log posted by a client: sign-in/out by name, else the application's type. */
export function logTypeForName(nomLog: string): LogType {
  if (nomLog === 'CONNEXION' || nomLog === 'DECONNEXION') return nomLog
  return logTypeForApplication(nomLog)
}
