import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { MailCheck, Save } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardHeader, CardTitle } from '~/components/ui/card'
import { Input } from '~/components/ui/input'
import { Label } from '~/components/ui/label'
import { FOCUS_FIELD } from '~/lib/focus'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import type { ProfileInput, User } from '../../../worker-api/contract/organisation/user'

/**
 * A profile's identity form (spec §2, §5), one's own and an administrator's view alike (`intent=profile`). Only one's
 * own (`own`) lets the browser fill it and says a new address waits for its confirmation; an administrator's fields are
 * disabled unless they may manage the user (spec §6, `editable`).
 */
export function IdentityForm({
  user,
  own,
  editable,
  title,
  constraint,
  action,
  focusAfter,
}: {
  user: User
  own: boolean
  editable: boolean
  title: string
  constraint: ReturnType<typeof getZodConstraint>
  /** Where the form posts: the current page when omitted. */
  action?: string
  /** The Save button's id, where focus comes back without JavaScript (`FOCUS_FIELD`). */
  focusAfter?: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply('profile')
  const pending = usePendingIntent('profile')
  const [form, fields] = useForm<ProfileInput>({
    id: 'profile',
    lastResult: reply?.result,
    defaultValue: { nom: user.nom, prenom: user.prenom, mail: user.mail },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const input = (name: keyof ProfileInput, type: 'text' | 'email', autoComplete: string) => ({
    ...getInputProps(fields[name], { type }),
    id: fields[name].id,
    autoComplete: own ? autoComplete : 'off',
  })
  const mailHint =
    own && user.mailEnAttente ? (
      <span className="mt-1 flex items-start gap-2 rounded-md border border-primary/30 bg-primary/5 p-2 text-sm text-foreground">
        <MailCheck aria-hidden className="mt-0.5 size-4 shrink-0 text-primary" />
        {t('profile.mailPending', { mail: user.mailEnAttente, current: user.mail })}
      </span>
    ) : undefined
  const content = (
    <>
      <div className="flex flex-col gap-1.5 sm:col-span-2">
        <Label htmlFor="profile-login">{t('profile.login')}</Label>
        <Input
          id="profile-login"
          value={user.login}
          readOnly
          aria-describedby="profile-login-hint"
          className="bg-muted"
        />
        <p id="profile-login-hint" className="text-xs text-muted-foreground">
          {t('profile.loginReadOnly')}
        </p>
      </div>
      <Field
        label={t('profile.nom')}
        errors={shown.errors(fields.nom)}
        inputProps={input('nom', 'text', 'family-name')}
      />
      <Field
        label={t('profile.prenom')}
        errors={shown.errors(fields.prenom)}
        inputProps={input('prenom', 'text', 'given-name')}
      />
      <div className="sm:col-span-2">
        <Field
          label={t('profile.mail')}
          errors={shown.errors(fields.mail)}
          hint={mailHint}
          inputProps={input('mail', 'email', 'email')}
        />
      </div>
      {editable ? (
        <div className="sm:col-span-2">
          <SubmitButton id={focusAfter} icon={Save} pending={pending} pendingLabel={t('profile.saving')}>
            {t('profile.save')}
          </SubmitButton>
        </div>
      ) : null}
    </>
  )
  return (
    <Card>
      <CardHeader>
        <CardTitle>{title}</CardTitle>
      </CardHeader>
      <CardContent>
        <Form
          method="post"
          action={action}
          {...getFormProps(form)}
          className="grid gap-4 sm:grid-cols-2"
          onInput={shown.onInput}
        >
          <input type="hidden" name="intent" value="profile" />
          {focusAfter ? <input type="hidden" name={FOCUS_FIELD} value={focusAfter} /> : null}
          <FormError
            message={formProblem(t, reply, {
              nom: t('profile.nom'),
              prenom: t('profile.prenom'),
              mail: t('profile.mail'),
            })}
            className="sm:col-span-2"
          />
          {/* Spec §6: someone else's fields are disabled unless modification is true. */}
          {own ? (
            content
          ) : (
            <fieldset disabled={!editable} className="contents">
              {content}
            </fieldset>
          )}
        </Form>
      </CardContent>
    </Card>
  )
}
