import { useTranslation } from 'react-i18next'
import type { PendingRequest } from '../../../worker-api/contract/governance/access-requests'

/** The requester as the lists name them: first name, last name. */
export const requesterName = (request: Pick<PendingRequest, 'utilisateur'>) =>
  `${request.utilisateur.prenom} ${request.utilisateur.nom}`

/** What the requester already holds: each current or future post, its function, structure and end. */
export function HeldPosts({ postes }: { postes: PendingRequest['postes'] }) {
  const { t } = useTranslation()
  if (postes.length === 0) return <span className="text-muted-foreground">{t('requests.noPost')}</span>
  return (
    <ul className="flex flex-col gap-1">
      {postes.map((poste) => (
        <li key={`${poste.structure.id}-${poste.fonction.id}-${poste.dateDebut}`} className="break-words">
          {poste.fonction.libelle}, {poste.structure.nom}
          <span className="block text-xs text-muted-foreground tabular-nums">
            {poste.dateDebut} → {poste.dateFin}
          </span>
        </li>
      ))}
    </ul>
  )
}
