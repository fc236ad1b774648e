import { Link, useActionData, useLocation } from '@remix-run/react'
import { KeyRound, type LucideIcon, Pencil } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { RowDelete } from '~/components/row-delete'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { anchorId, FOCUS_FIELD } from '~/lib/focus'
import { type FormReply, posted } from '~/lib/form'
import { urlWith } from '~/lib/url'
import type { StructureFonction } from '../../../worker-api/contract/organisation/structure'
import { AddFonctionForm, FonctionGrantsForm, type FonctionReply, RenameFonctionForm } from './fonction-forms'
import type { FonctionIntent } from './fonction-forms.server'

/**
 * The functions of a structure, on its page: each with how many posts hold it and the applications it
 * grants; add one, rename one (`?renommer=`, an inline form), delete one after a confirmation (the
 * refusal says how many posts hold it), and for a root administrator tick what it grants
 * (`?acces=`). Links and forms only: the same without JavaScript.
 */
export function StructureFonctions({
  structure,
  fonctions,
  racine,
  catalogue,
}: {
  structure: { id: number; nom: string }
  fonctions: StructureFonction[]
  racine: boolean
  catalogue: { id: number; libelle: string; actif: boolean }[]
}) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const params = new URLSearchParams(search)
  const reply = useFonctionReply(fonctions)
  const renaming = Number(reply?.intent === 'fonction-renommer' ? reply.id : params.get('renommer'))
  const granting = Number(reply?.intent === 'fonction-acces' ? reply.id : params.get('acces'))
  const confirming =
    params.get('confirmer') === 'supprimer-fonction'
      ? fonctions.find((f) => String(f.id) === params.get('id'))
      : undefined
  const closed = urlWith(search, { renommer: null, acces: null, confirmer: null, id: null })
  // A function a post holds (past ones included) cannot be deleted: its dialog says so and offers
  // nothing to post, only to close.
  const deletion = (fonction: StructureFonction) =>
    fonction.nbPostes > 0
      ? null
      : {
          intent: 'fonction-supprimer',
          id: String(fonction.id),
          libelle: fonction.libelle,
          [FOCUS_FIELD]: 'fonctions',
        }
  const deleteTitle = (fonction: StructureFonction) =>
    t(fonction.nbPostes > 0 ? 'fonctions.deleteHeldTitle' : 'fonctions.deleteTitle', { libelle: fonction.libelle })
  const deleteDescription = (fonction: StructureFonction) =>
    fonction.nbPostes > 0
      ? t('fonctions.deleteHeld', { count: fonction.nbPostes })
      : t('fonctions.deleteConfirm', { nom: structure.nom })
  const pageError = reply?.error && reply.intent !== 'fonction-ajouter' ? reply : null

  return (
    <Card id="fonctions" tabIndex={-1} className="scroll-mt-4 outline-none">
      <CardHeader>
        <CardTitle>{t('fonctions.title')}</CardTitle>
        <CardDescription>{t('fonctions.intro')}</CardDescription>
        {/* Shown what each function opens, a delegated administrator is told why they cannot change it. */}
        {racine ? null : <CardDescription>{t('fonctions.grantsByRoot')}</CardDescription>}
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {pageError?.error ? (
          <Alert variant="destructive" role="alert">
            <p className="font-medium">{t('fonctions.actionImpossible', { libelle: pageError.libelle })}</p>
            <p>{t(pageError.error.key, pageError.error.values)}</p>
          </Alert>
        ) : null}
        {confirming ? (
          <ConfirmPanel
            cancelHref={`${closed}#fonction-${confirming.id}`}
            returnTo={anchorId('supprimer-fonction', confirming.id)}
            title={deleteTitle(confirming)}
            description={deleteDescription(confirming)}
            confirmLabel={t('fonctions.delete')}
            pendingLabel={t('fonctions.deleting')}
            fields={deletion(confirming)}
          />
        ) : null}
        {fonctions.length === 0 ? (
          <p className="text-sm text-muted-foreground">{t('fonctions.empty')}</p>
        ) : (
          <ul className="flex flex-col divide-y rounded-md border">
            {fonctions.map((fonction) => (
              <li
                key={fonction.id}
                id={`fonction-${fonction.id}`}
                tabIndex={-1}
                className="flex flex-col gap-3 p-3 outline-none"
              >
                {renaming === fonction.id ? (
                  <RenameFonctionForm
                    fonction={fonction}
                    reply={reply?.intent === 'fonction-renommer' ? reply : undefined}
                    cancelHref={`${closed}#fonction-${fonction.id}`}
                  />
                ) : (
                  <div className="flex flex-wrap items-start justify-between gap-2">
                    <div className="min-w-0">
                      <h3 className="font-medium">{fonction.libelle}</h3>
                      <p className="text-sm text-muted-foreground">
                        {t('fonctions.postes', { count: fonction.nbPostes })}
                      </p>
                      <p className="text-sm">
                        {fonction.applications.length === 0 ? (
                          <span className="text-muted-foreground">{t('fonctions.noApplication')}</span>
                        ) : (
                          <>
                            <span className="text-muted-foreground">{t('fonctions.grants')} </span>
                            {fonction.applications
                              .map((a) => (a.actif ? a.libelle : t('fonctions.applicationOff', { libelle: a.libelle })))
                              .join(', ')}
                          </>
                        )}
                      </p>
                    </div>
                    <div className="flex flex-wrap gap-1">
                      <PanelLink
                        panel="renommer"
                        fonction={fonction}
                        icon={Pencil}
                        label={t('fonctions.renameLabel', { libelle: fonction.libelle })}
                        text={t('fonctions.rename')}
                      />
                      {racine ? (
                        <PanelLink
                          panel="acces"
                          fonction={fonction}
                          icon={KeyRound}
                          label={t('fonctions.grantsLabel', { libelle: fonction.libelle })}
                          text={t('fonctions.grantsEdit')}
                        />
                      ) : null}
                      <RowDelete
                        anchor="supprimer-fonction"
                        id={fonction.id}
                        search={search}
                        reset={{ renommer: null, acces: null }}
                        title={deleteTitle(fonction)}
                        description={deleteDescription(fonction)}
                        confirmLabel={t('fonctions.delete')}
                        pendingLabel={t('fonctions.deleting')}
                        fields={deletion(fonction)}
                        word={t('fonctions.delete')}
                        name={t('fonctions.deleteLabel', { libelle: fonction.libelle })}
                        from="sm"
                      />
                    </div>
                  </div>
                )}
                {racine && granting === fonction.id ? (
                  <FonctionGrantsForm
                    fonction={fonction}
                    catalogue={catalogue}
                    cancelHref={`${closed}#fonction-${fonction.id}`}
                  />
                ) : null}
              </li>
            ))}
          </ul>
        )}
        <AddFonctionForm reply={reply?.intent === 'fonction-ajouter' ? reply : undefined} />
      </CardContent>
    </Card>
  )
}

/**
 * A function's link that opens one of its panels in its card (`?renommer=` or `?acces=`), closing
 * any other: the icon alone on a phone, its whole name for screen readers.
 */
function PanelLink({
  panel,
  fonction,
  icon: Icon,
  label,
  text,
}: {
  panel: 'renommer' | 'acces'
  fonction: StructureFonction
  icon: LucideIcon
  label: string
  text: string
}) {
  const { search } = useLocation()
  const closed = { renommer: null, acces: null, confirmer: null, id: null }
  return (
    <Link
      id={anchorId(panel, fonction.id)}
      to={`${urlWith(search, { ...closed, [panel]: String(fonction.id) })}#fonction-${fonction.id}`}
      preventScrollReset
      className={buttonVariants({ variant: 'ghost', size: 'sm' })}
      aria-label={label}
    >
      <Icon aria-hidden />
      <span aria-hidden className="hidden sm:inline">
        {text}
      </span>
    </Link>
  )
}

/** The failed reply of one of the function forms, if that is what the last submission was. */
function useFonctionReply(fonctions: StructureFonction[]): FonctionReply | undefined {
  const reply = useActionData() as FormReply | undefined
  if (!reply?.intent.startsWith('fonction-')) return undefined
  const id = Number(posted(reply, 'id')) || null
  const sent = reply.result.initialValue?.libelle
  return {
    intent: reply.intent as FonctionIntent,
    id,
    // The grants form sends no name: the function's, as the page lists it.
    libelle: typeof sent === 'string' ? sent : (fonctions.find((f) => f.id === id)?.libelle ?? ''),
    errors: reply.result.error?.libelle ?? null,
    error: reply.error,
  }
}
