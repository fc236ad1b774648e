import { type FieldMetadata, getInputProps } from '@conform-to/react'
import type * as React from 'react'
import { useTranslation } from 'react-i18next'
import { translateError } from '~/lib/api-errors'
import type { ProfileInput } from '../../worker-api/contract/user'
import { Field } from './field'
import { Input } from './ui/input'
import { Label } from './ui/label'

type Fields = { [K in keyof ProfileInput]: FieldMetadata<string> }

/**
 * The profile form's fields (spec §2, §5): the read-only login, nom, prenom and mail, in a two-column
 * grid. One's own profile lets the browser fill them (`own`); an administrator's view of someone else
 * does not. `mailHint` shows under the mail (a change waiting for confirmation). `current` gives the
 * errors a field shows now (app/lib/form.ts `useErrorsFollowInput`).
 */
export function ProfileFields({
  fields,
  login,
  own,
  mailHint,
  current,
}: {
  fields: Fields
  login: string
  own: boolean
  mailHint?: React.ReactNode
  current: (field: FieldMetadata<string>) => string[] | undefined
}) {
  const { t } = useTranslation()
  const translate = (field: FieldMetadata<string>) => current(field)?.map((error) => translateError(t, error))
  const input = (name: keyof Fields, type: 'text' | 'email', autoComplete: string) => ({
    ...getInputProps(fields[name], { type }),
    id: fields[name].id,
    autoComplete: own ? autoComplete : 'off',
  })
  return (
    <>
      <div className="flex flex-col gap-1.5 sm:col-span-2">
        <Label htmlFor="profile-login">{t('profile.login')}</Label>
        <Input id="profile-login" value={login} readOnly aria-describedby="profile-login-hint" className="bg-muted" />
        <p id="profile-login-hint" className="text-xs text-muted-foreground">
          {t('profile.loginReadOnly')}
        </p>
      </div>
      <Field label={t('profile.nom')} errors={translate(fields.nom)} inputProps={input('nom', 'text', 'family-name')} />
      <Field
        label={t('profile.prenom')}
        errors={translate(fields.prenom)}
        inputProps={input('prenom', 'text', 'given-name')}
      />
      <div className="sm:col-span-2">
        <Field
          label={t('profile.mail')}
          errors={translate(fields.mail)}
          hint={mailHint}
          inputProps={input('mail', 'email', 'email')}
        />
      </div>
    </>
  )
}
