import { Building2, Unlink } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { type Confirmation, ConfirmDialog, ConfirmPanel } from '~/components/confirm-dialog'
import { FormError } from '~/components/form-error'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import type { Message } from '~/lib/api-errors'
import { displayDateTime } from '~/lib/dates'
import type { Lien } from '../../../worker-api/contract/federation/links'

/** The page parameter of a removal's confirmation without JavaScript: the provider's id. */
export const UNLINK_PARAM = 'retirerLien'
export const UNLINK_INTENT = 'lien-retrait'

/** A removal's confirmation: the same for the dialog and the no-JavaScript panel. */
export function useUnlinkConfirmation() {
  const { t } = useTranslation()
  return (link: Lien, own: boolean): Confirmation => ({
    title: t('fournisseurLiens.removeTitle', { nom: link.fournisseur.nom }),
    description: own ? t('fournisseurLiens.removeOwn') : t('fournisseurLiens.removeOther'),
    confirmLabel: t('fournisseurLiens.remove'),
    pendingLabel: t('fournisseurLiens.removing'),
    fields: { intent: UNLINK_INTENT, fournisseur: String(link.fournisseur.id) },
  })
}

/**
 * A user's links to partners' identity providers (issue 63): on their security page (`own`, each removable while they
 * keep another way in) and on an administrator's page of the user. With JavaScript a dialog confirms a removal; without
 * it, the page's panel (`?retirerLien=<id>`).
 */
export function LinkedProviders({
  links,
  own,
  error,
  pagePath,
}: {
  links: Lien[]
  own: boolean
  error: Message | null
  /** The page's path: the no-JavaScript confirmation's link. */
  pagePath: string
}) {
  const { t } = useTranslation()
  const confirmation = useUnlinkConfirmation()
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Building2 aria-hidden className="size-5" />
          {t('fournisseurLiens.title')}
        </CardTitle>
        <CardDescription>{own ? t('fournisseurLiens.introOwn') : t('fournisseurLiens.introOther')}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        <FormError message={error ? t(error.key, error.values) : null} />
        {links.length === 0 ? (
          <p className="text-muted-foreground text-sm">{t('fournisseurLiens.none')}</p>
        ) : (
          <ul className="flex flex-col divide-y">
            {links.map((link) => (
              <li key={link.fournisseur.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
                <div className="min-w-0">
                  <p className="font-medium break-words">{link.fournisseur.nom}</p>
                  <p className="text-muted-foreground text-sm break-all">{link.mail ?? ''}</p>
                  <p className="text-muted-foreground text-xs">
                    {t('fournisseurLiens.since', { date: displayDateTime(link.creeLe) })}
                    {link.derniereConnexion
                      ? ` · ${t('fournisseurLiens.lastUsed', { date: displayDateTime(link.derniereConnexion) })}`
                      : ''}
                  </p>
                </div>
                <ConfirmDialog
                  id={`lien-${link.fournisseur.id}`}
                  fallbackHref={`${pagePath}?${UNLINK_PARAM}=${link.fournisseur.id}`}
                  {...confirmation(link, own)}
                >
                  <Unlink aria-hidden />
                  {t('fournisseurLiens.remove')}
                  <span className="sr-only"> {link.fournisseur.nom}</span>
                </ConfirmDialog>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  )
}

/** The no-JavaScript confirmation of `?retirerLien=<id>`, if it names one of the links. */
export function UnlinkPanel({
  links,
  own,
  asked,
  pagePath,
}: {
  links: Lien[]
  own: boolean
  asked: string | null
  pagePath: string
}) {
  const confirmation = useUnlinkConfirmation()
  const link = links.find((l) => String(l.fournisseur.id) === asked)
  if (!link) return null
  return <ConfirmPanel cancelHref={pagePath} returnTo={`lien-${link.fournisseur.id}`} {...confirmation(link, own)} />
}
