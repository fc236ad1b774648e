/** A step of a month's archive on the jobs queue (services/history/archive.ts): the month, 'YYYY-MM'. */
export type ArchiveMessage = { mois: string }
