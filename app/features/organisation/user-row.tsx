import type * as React from 'react'
import { useTranslation } from 'react-i18next'
import { cn } from '~/lib/utils'
import type { Poste, User } from '../../../worker-api/contract/organisation/user'

export const fullName = (user: Pick<User, 'prenom' | 'nom'>) => `${user.prenom} ${user.nom}`
export const hasPosition = (user: User) => user.postesEnCours.length + user.postesFutur.length > 0

/** What a user of the list is (spec §2): deleted, inactive, administrator, invited, without a post. */
export function UserBadges({ user }: { user: User }) {
  const { t } = useTranslation()
  return (
    <span className="flex flex-wrap gap-1">
      {user.supprime ? <Badge tone="danger">{t('users.badges.deleted')}</Badge> : null}
      {!user.actif ? <Badge tone="muted">{t('users.badges.inactive')}</Badge> : null}
      {user.admin ? <Badge tone="info">{t('users.badges.admin')}</Badge> : null}
      {user.tokenRegister !== null ? <Badge tone="muted">{t('users.badges.invited')}</Badge> : null}
      {!hasPosition(user) ? <Badge tone="warning">{t('users.badges.noPosition')}</Badge> : null}
    </span>
  )
}

/** The posts of an expanded row (spec §2: structure, function, start to end), or its warning. */
export function UserDetails({ user }: { user: User }) {
  const { t } = useTranslation()
  const line = (poste: Poste) => (
    <li key={poste.id}>
      {t('users.posteLine', {
        structure: poste.structure.nom,
        fonction: poste.fonction.libelle,
        debut: poste.dateDebut,
        fin: poste.dateFin,
      })}
    </li>
  )
  return (
    <div className="flex flex-col gap-3 py-2 text-sm">
      {user.supprime ? <p className="font-medium text-destructive">{t('users.deletedWarning')}</p> : null}
      {hasPosition(user) ? (
        <div className="grid gap-3 sm:grid-cols-2">
          <section>
            <h3 className="font-medium">{t('users.postesEnCours')}</h3>
            {user.postesEnCours.length ? (
              <ul className="list-disc pl-5">{user.postesEnCours.map(line)}</ul>
            ) : (
              <p className="text-muted-foreground">{t('users.none')}</p>
            )}
          </section>
          <section>
            <h3 className="font-medium">{t('users.postesFutur')}</h3>
            {user.postesFutur.length ? (
              <ul className="list-disc pl-5">{user.postesFutur.map(line)}</ul>
            ) : (
              <p className="text-muted-foreground">{t('users.none')}</p>
            )}
          </section>
        </div>
      ) : (
        <p className="font-medium">{t('users.noPositionWarning')}</p>
      )}
    </div>
  )
}

const TONES = {
  // Solid: the light tint on a deleted row's own tint gave its text 3.94:1, under WCAG AA's 4.5:1.
  danger: 'border-destructive bg-destructive text-destructive-foreground',
  warning: 'border-warning/60 bg-warning/20 text-foreground',
  info: 'border-primary/40 bg-primary/10 text-primary',
  muted: 'border-border bg-muted text-muted-foreground',
} as const

function Badge({ tone, children }: { tone: keyof typeof TONES; children: React.ReactNode }) {
  return (
    <span className={cn('inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium', TONES[tone])}>
      {children}
    </span>
  )
}
