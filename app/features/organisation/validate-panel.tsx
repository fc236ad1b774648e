import { Form, Link } from '@remix-run/react'
import { UserCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { DateRangeInput } from '~/components/date-range-input'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { SelectField } from '~/components/select-field'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { translateError } from '~/lib/api-errors'
import { FOCUS_FIELD } from '~/lib/focus'
import { usePendingIntent } from '~/lib/form'
import type { OfferedFonction } from '../../../worker-api/contract/organisation/registration'

/** A function offered, as the select posts it: `id:12` for one of the company, `nom:Chauffeur` for one of the template. */
export const offeredValue = (fonction: OfferedFonction) =>
  fonction.id === null ? `nom:${fonction.libelle}` : `id:${fonction.id}`

/** What the panel shows again after a refused validation: what was chosen, and the errors by field. */
export type ValidateValues = {
  fonction: string
  dateDebut: string
  dateFin: string
  errors: Partial<Record<'fonction' | 'dateDebut' | 'dateFin', string[]>>
}

/**
 * The queue's "Valider" for a registration not yet validated: the post the carrier starts with — a
 * function of their company (the template's first preselected, or none) and a period (from today,
 * one year by default) — then the link is sent. A region of the page (`?valider=`), the same with
 * and without JavaScript.
 */
export function ValidatePanel({
  id,
  mail,
  company,
  fonctions,
  values,
  cancelHref,
  focusAfter,
}: {
  id: number
  mail: string
  company: string | null
  fonctions: OfferedFonction[]
  values: ValidateValues
  cancelHref: string
  focusAfter: string
}) {
  const { t } = useTranslation()
  const pending = usePendingIntent('authorize')
  const errors = (field: keyof ValidateValues['errors']) => values.errors[field]?.map((e) => translateError(t, e))
  return (
    <FormPanel
      id="validation"
      title={t('autorisation.validateLabel', { mail })}
      intro={t(company ? 'autorisation.validateIntro' : 'autorisation.validateIntroNoCompany', { company })}
    >
      <Form method="post" preventScrollReset className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="authorize" />
        <input type="hidden" name="id" value={id} />
        <input type="hidden" name="mail" value={mail} />
        <input type="hidden" name="renvoi" value="false" />
        <input type="hidden" name="avecPoste" value="true" />
        <input type="hidden" name={FOCUS_FIELD} value={focusAfter} />
        <SelectField
          label={t('autorisation.fonction')}
          hint={fonctions.length === 0 ? t('autorisation.noFonctionOffered') : undefined}
          errors={errors('fonction')}
          options={[
            ...fonctions.map((fonction) => ({ value: offeredValue(fonction), label: fonction.libelle })),
            { value: '', label: t('autorisation.noPost') },
          ]}
          selectProps={{ id: 'validation-fonction', name: 'fonction', defaultValue: values.fonction }}
        />
        <DateRangeInput
          legend={t('autorisation.period')}
          start={{
            name: 'dateDebut',
            id: 'validation-debut',
            label: t('autorisation.dateDebut'),
            defaultValue: values.dateDebut,
            errors: errors('dateDebut'),
          }}
          end={{
            name: 'dateFin',
            id: 'validation-fin',
            label: t('autorisation.dateFin'),
            defaultValue: values.dateFin,
            errors: errors('dateFin'),
          }}
        />
        <FormPanelButtons
          icon={UserCheck}
          label={t('autorisation.validateSend')}
          pendingLabel={t('autorisation.sending')}
          pending={pending}
          cancelHref={cancelHref}
        />
      </Form>
    </FormPanel>
  )
}

/**
 * After a validation: the carrier still needs a post to reach any application, given from their
 * company's users page (once they have chosen their password: until then they are no user to post).
 */
export function NeedsPost({ structureId, closeHref }: { structureId: string | null; closeHref: string }) {
  const { t } = useTranslation()
  if (!structureId || !/^[1-9][0-9]{0,15}$/.test(structureId)) return null
  return (
    <Alert role="status" className="flex flex-col gap-2">
      <p>{t('autorisation.needsPost')}</p>
      <div className="flex flex-wrap gap-2">
        <Link
          to={`/pages/admin/user/structure/${structureId}?ajouter=1`}
          className={buttonVariants({ variant: 'outline', size: 'sm' })}
        >
          {t('autorisation.givePost')}
        </Link>
        <Link to={closeHref} className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
          {t('autorisation.dismiss')}
        </Link>
      </div>
    </Alert>
  )
}
