import type { DB } from '../db/client'

/** How long a password-reset link works. Several may be live at once; using one ends the others. */
export const PASSWORD_RESET_TTL_HOURS = 3

/** Voids a user's unused reset links (after a reset, a password change or a new mail address). */
export function voidResetLinks(db: DB, userId: number, now: string) {
  return db
    .updateTable('mail_token')
    .set({ used_at: now })
    .where('utilisateur_id', '=', userId)
    .where('purpose', '=', 'PASSWORD_RESET')
    .where('used_at', 'is', null)
}
