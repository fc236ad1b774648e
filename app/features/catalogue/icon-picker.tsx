import { useTranslation } from 'react-i18next'
import { AppIcon } from '~/components/app-icon'
import { FieldMessages, fieldMessages } from '~/components/field'
import { APPLICATION_ICONS } from '../../../worker-api/contract/catalogue/catalogue'

/** The icon as radio buttons that show it, in a group the arrow keys move through. */
export function IconPicker({
  id,
  name,
  defaultValue,
  errors,
}: {
  id: string
  name: string
  defaultValue: string
  errors: string[] | undefined
}) {
  const { t } = useTranslation()
  const messages = fieldMessages(id, undefined, errors)
  return (
    <fieldset id={id} aria-invalid={messages.invalid || undefined} aria-describedby={messages.describedBy}>
      <legend className="mb-2 text-sm font-medium">{t('applications.icone')}</legend>
      <div className="grid grid-cols-[repeat(auto-fill,minmax(8.5rem,1fr))] gap-2">
        {APPLICATION_ICONS.map((icon) => (
          <label
            key={icon}
            className="flex cursor-pointer items-center gap-2 rounded-md border p-2 text-sm has-[:checked]:border-primary has-[:checked]:bg-accent has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring"
          >
            <input
              type="radio"
              name={name}
              value={icon}
              defaultChecked={defaultValue === icon}
              className="size-4 shrink-0 accent-primary focus-visible:outline-none"
            />
            <AppIcon name={icon} className="size-5 shrink-0" />
            <span className="min-w-0">{t(`applications.icons.${icon}`)}</span>
          </label>
        ))}
      </div>
      <FieldMessages id={id} errors={errors} />
    </fieldset>
  )
}
