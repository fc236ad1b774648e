import { Form, Link, useNavigation } from '@remix-run/react'
import { Plus, Save } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { type Message, translateError } from '~/lib/api-errors'
import type { StructureFonction } from '../../../worker-api/contract/organisation/structure'
import type { FonctionIntent } from './fonction-forms.server'

/** A failed function form as the card shows it: its function, the name sent, its field's errors, the page's message. */
export type FonctionReply = {
  intent: FonctionIntent
  id: number | null
  libelle: string
  errors: string[] | null
  error: Message | null
}

/** Whether this form (of this function, `id`) is being sent. */
function usePending(intent: FonctionIntent, id?: number) {
  const navigation = useNavigation()
  return (
    navigation.state === 'submitting' &&
    navigation.formData?.get('intent') === intent &&
    (id === undefined || navigation.formData?.get('id') === String(id))
  )
}

/** A new function of the structure, by its name. */
export function AddFonctionForm({ reply }: { reply: FonctionReply | undefined }) {
  const { t } = useTranslation()
  const pending = usePending('fonction-ajouter')
  return (
    <Form method="post" preventScrollReset className="flex flex-col gap-2 sm:flex-row sm:items-end">
      <input type="hidden" name="intent" value="fonction-ajouter" />
      <div className="min-w-0 flex-1">
        <Field
          // A new field once a function was added: its name is not typed again by mistake.
          key={reply ? 'again' : 'new'}
          label={t('fonctions.newLabel')}
          errors={
            reply?.errors?.map((error) => translateError(t, error)) ??
            (reply?.error ? [t(reply.error.key, reply.error.values)] : undefined)
          }
          inputProps={{
            id: 'fonction-nouvelle',
            name: 'libelle',
            defaultValue: reply?.libelle ?? '',
            autoComplete: 'off',
            required: true,
          }}
        />
      </div>
      <SubmitButton variant="outline" icon={Plus} pending={pending} pendingLabel={t('fonctions.adding')}>
        {t('fonctions.add')}
      </SubmitButton>
    </Form>
  )
}

/** A function's new name, in its row (`?renommer=`). */
export function RenameFonctionForm({
  fonction,
  reply,
  cancelHref,
}: {
  fonction: StructureFonction
  reply: FonctionReply | undefined
  cancelHref: string
}) {
  const { t } = useTranslation()
  const pending = usePending('fonction-renommer', fonction.id)
  return (
    <Form method="post" preventScrollReset className="flex flex-col gap-2 sm:flex-row sm:items-end">
      <input type="hidden" name="intent" value="fonction-renommer" />
      <input type="hidden" name="id" value={fonction.id} />
      <div className="min-w-0 flex-1">
        <Field
          label={t('fonctions.renameField', { libelle: fonction.libelle })}
          errors={reply?.errors?.map((error) => translateError(t, error))}
          inputProps={{
            id: `fonction-${fonction.id}-libelle`,
            name: 'libelle',
            defaultValue: reply?.libelle ?? fonction.libelle,
            autoComplete: 'off',
            required: true,
            autoFocus: true,
          }}
        />
      </div>
      <SaveOrCancel pending={pending} label={t('fonctions.save')} cancelHref={cancelHref} />
    </Form>
  )
}

/** What a function grants, ticked from the catalogue, in its row (`?acces=`; root administrators). */
export function FonctionGrantsForm({
  fonction,
  catalogue,
  cancelHref,
}: {
  fonction: StructureFonction
  catalogue: { id: number; libelle: string; actif: boolean }[]
  cancelHref: string
}) {
  const { t } = useTranslation()
  const pending = usePending('fonction-acces', fonction.id)
  const granted = new Set(fonction.applications.map((a) => a.id))
  return (
    <Form method="post" preventScrollReset className="flex flex-col gap-3 rounded-md bg-muted/50 p-3">
      <input type="hidden" name="intent" value="fonction-acces" />
      <input type="hidden" name="id" value={fonction.id} />
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-2 text-sm font-medium">
          {t('fonctions.grantsLegend', { libelle: fonction.libelle })}
        </legend>
        {catalogue.length === 0 ? <p className="text-sm text-muted-foreground">{t('fonctions.noCatalogue')}</p> : null}
        {catalogue.map((application) => (
          <div key={application.id} className="flex items-start gap-2">
            <input
              type="checkbox"
              id={`fonction-${fonction.id}-application-${application.id}`}
              name="applications"
              value={application.id}
              defaultChecked={granted.has(application.id)}
              className={CHECKBOX}
            />
            <Label htmlFor={`fonction-${fonction.id}-application-${application.id}`} className="font-normal">
              {application.actif
                ? application.libelle
                : t('fonctions.applicationOff', { libelle: application.libelle })}
            </Label>
          </div>
        ))}
      </fieldset>
      <SaveOrCancel pending={pending} label={t('fonctions.saveGrants')} cancelHref={cancelHref} />
    </Form>
  )
}

/** A row form's two ways out: save (saying so while it does) or go back to the row as it was. */
function SaveOrCancel({ pending, label, cancelHref }: { pending: boolean; label: string; cancelHref: string }) {
  const { t } = useTranslation()
  return (
    <div className="flex flex-wrap gap-2">
      <SubmitButton icon={Save} pending={pending} pendingLabel={t('fonctions.saving')}>
        {label}
      </SubmitButton>
      <Link to={cancelHref} preventScrollReset className={buttonVariants({ variant: 'outline' })}>
        {t('fonctions.cancel')}
      </Link>
    </div>
  )
}
