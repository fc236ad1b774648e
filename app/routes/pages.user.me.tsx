import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, useLoaderData } from '@remix-run/react'
import { KeyRound, MailCheck, Save } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { NewPasswordFields } from '~/components/password-rules'
import { PostesTable } from '~/components/postes-table'
import { ProfileFields } from '~/components/profile-fields'
import { Button } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { apiMessage, fieldErrors, type Message } from '~/lib/api-errors'
import { requireUser } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { type FormReply, useErrorsFollowInput, useFormReply, usePendingIntent } from '~/lib/form'
import { readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { type ChangePasswordForm, changePasswordFormSchema } from '../../worker-api/contract/password'
import type { User } from '../../worker-api/contract/user'
import { type ProfileInput, profileSchema } from '../../worker-api/contract/user'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.profile' }
export const meta = titleMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  const [me, t] = await Promise.all([
    auth.expect(auth.api.rest.bd.utilisateur[':id'].$get({ param: { id: auth.user.id } })),
    i18nServer.getFixedT(request),
  ])
  // The forms are checked on the server only: their rules stay out of the page's JavaScript.
  const constraints = { profile: getZodConstraint(profileSchema), password: getZodConstraint(changePasswordFormSchema) }
  return data({ me, constraints, title: pageTitle(t, t('profile.title')) }, { headers: await auth.headers() })
}

type Intent = 'profile' | 'password'
/** The portal's form reply (app/lib/form.ts): which form, conform's result, the form's message. */
type ActionData = FormReply<Intent>

/** Two forms on one page (STYLE 4): the profile (spec §5 rules) and the password change. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireUser(request, context)
  const formData = await readForm(request)
  const reply = async (intent: Intent, result: SubmissionResult<string[]>, error: Message | null = null) =>
    data<ActionData>({ intent, result, error }, { status: 400, headers: await auth.headers() })
  const done = (key: string, values?: Record<string, string>) =>
    auth.redirectWithToast('/pages/user/me', { type: 'success', key, values })

  if (formData.get('intent') === 'password') {
    const submission = parseWithZod(formData, { schema: changePasswordFormSchema })
    const hide = { hideFields: ['oldPassword', 'newPassword', 'confirmation'] }
    if (submission.status !== 'success') return reply('password', submission.reply(hide))
    const { oldPassword, newPassword } = submission.value
    const result = await auth.settle(
      auth.api.rest.bd.utilisateur.updatePassword.$put({ json: { oldPassword, newPassword } }),
    )
    if (result.ok) return done('profile.passwordChanged')
    if (result.error.businessCode === 'BAD_OLD_PASSWORD') {
      return reply('password', submission.reply({ ...hide, fieldErrors: { oldPassword: ['errors.BAD_OLD_PASSWORD'] } }))
    }
    const fields = fieldErrors(result)
    if (fields) return reply('password', submission.reply({ ...hide, fieldErrors: fields }))
    return reply('password', submission.reply(hide), apiMessage(result, 'errors.updateFailed'))
  }

  const submission = parseWithZod(formData, { schema: profileSchema })
  if (submission.status !== 'success') return reply('profile', submission.reply())
  const result = await auth.settle(
    auth.api.rest.bd.utilisateur[':id'].$put({ param: { id: auth.user.id }, json: submission.value }),
  )
  if (result.ok) {
    const { nom, prenom, mail, mailEnAttente } = result.data
    auth.session.session.set('user', { ...auth.user, nom, prenom })
    // One's own new address waits for the link sent to it (the API says so with mailEnAttente).
    const asked = submission.value.mail.toLowerCase()
    if (mailEnAttente?.toLowerCase() === asked && mail.toLowerCase() !== asked) {
      return done('profile.mailConfirmationSent', { mail: mailEnAttente })
    }
    return done('profile.saved')
  }
  if (result.error.businessCode === 'MAIL_ALREADY_USED') {
    return reply('profile', submission.reply({ fieldErrors: { mail: ['errors.MAIL_ALREADY_USED'] } }))
  }
  if (result.error.businessCode === 'TOO_MANY_ATTEMPTS') {
    return reply('profile', submission.reply(), { key: 'profile.tooManyMailChanges' })
  }
  const fields = fieldErrors(result)
  if (fields) return reply('profile', submission.reply({ fieldErrors: fields }))
  return reply('profile', submission.reply(), apiMessage(result, 'errors.updateFailed'))
}

const useIntentResult = (intent: Intent) => useFormReply(intent)
const usePending = (intent: Intent) => usePendingIntent(intent)

type Constraint = ReturnType<typeof getZodConstraint>

function ProfileForm({ me, constraint }: { me: User; constraint: Constraint }) {
  const { t } = useTranslation()
  const last = useIntentResult('profile')
  const pending = usePending('profile')
  const [form, fields] = useForm<ProfileInput>({
    id: 'profile',
    lastResult: last?.result,
    defaultValue: { nom: me.nom, prenom: me.prenom, mail: me.mail },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useErrorsFollowInput(last)
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('profile.identity')}</CardTitle>
      </CardHeader>
      <CardContent>
        {/* The fragment brings a page reloaded without JavaScript back to this form and its message. */}
        <Form
          method="post"
          action={`/pages/user/me#${form.id}`}
          {...getFormProps(form)}
          className="grid gap-4 sm:grid-cols-2"
          onInput={shown.onInput}
        >
          <input type="hidden" name="intent" value="profile" />
          <FormError
            message={formProblem(t, last, {
              nom: t('profile.nom'),
              prenom: t('profile.prenom'),
              mail: t('profile.mail'),
            })}
            className="sm:col-span-2"
          />
          <ProfileFields
            fields={fields}
            login={me.login}
            own
            current={shown.current}
            mailHint={
              me.mailEnAttente ? (
                <span className="mt-1 flex items-start gap-2 rounded-md border border-primary/30 bg-primary/5 p-2 text-sm text-foreground">
                  <MailCheck aria-hidden className="mt-0.5 size-4 shrink-0 text-primary" />
                  {t('profile.mailPending', { mail: me.mailEnAttente, current: me.mail })}
                </span>
              ) : undefined
            }
          />
          <div className="sm:col-span-2">
            <Button type="submit" disabled={pending} aria-disabled={pending}>
              <Save aria-hidden />
              {pending ? t('profile.saving') : t('profile.save')}
            </Button>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}

function PasswordForm({ login, constraint }: { login: string; constraint: Constraint }) {
  const { t } = useTranslation()
  const last = useIntentResult('password')
  const pending = usePending('password')
  const [form, fields] = useForm<ChangePasswordForm>({
    id: 'password',
    lastResult: last?.result,
    constraint,
    shouldValidate: 'onSubmit',
  })
  const translate = (errors: string[] | undefined) => errors?.map((key) => t(key))
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('profile.passwordTitle')}</CardTitle>
        <CardDescription>{t('profile.otherSessions')}</CardDescription>
      </CardHeader>
      <CardContent>
        <Form
          method="post"
          action={`/pages/user/me#${form.id}`}
          {...getFormProps(form)}
          className="flex max-w-md flex-col gap-4"
        >
          <input type="hidden" name="intent" value="password" />
          {/* Lets password managers file the new password under the right account. */}
          <input type="text" name="username" value={login} autoComplete="username" readOnly hidden />
          <FormError
            message={formProblem(t, last, {
              oldPassword: t('profile.oldPassword'),
              newPassword: t('profile.newPassword'),
              confirmation: t('profile.confirmation'),
            })}
          />
          <Field
            label={t('profile.oldPassword')}
            errors={translate(fields.oldPassword.errors)}
            inputProps={{
              ...getInputProps(fields.oldPassword, { type: 'password' }),
              id: fields.oldPassword.id,
              autoComplete: 'current-password',
            }}
          />
          <NewPasswordFields
            password={fields.newPassword}
            confirmation={fields.confirmation}
            labels={{ password: t('profile.newPassword'), confirmation: t('profile.confirmation') }}
          />
          <div>
            <Button type="submit" disabled={pending} aria-disabled={pending}>
              <KeyRound aria-hidden />
              {pending ? t('profile.changingPassword') : t('profile.changePassword')}
            </Button>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}

export default function Profile() {
  const { me, constraints } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('profile.title')}</h1>
      <ProfileForm me={me} constraint={constraints.profile} />
      <Card>
        <CardHeader>
          <CardTitle>{t('profile.postes')}</CardTitle>
          <CardDescription>{t(me.admin ? 'profile.postesReadOnlyAdmin' : 'profile.postesReadOnly')}</CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-6">
          <PostesTable caption={t('profile.postesEnCours')} postes={me.postesEnCours} />
          <PostesTable caption={t('profile.postesFutur')} postes={me.postesFutur} />
        </CardContent>
      </Card>
      <PasswordForm login={me.login} constraint={constraints.password} />
    </div>
  )
}
