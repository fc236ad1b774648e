import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, useLoaderData } from '@remix-run/react'
import { KeyRound } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { saveIdentity } from '~/features/organisation/identity.server'
import { IdentityForm } from '~/features/organisation/identity-form'
import { PostesTable } from '~/features/organisation/postes-table'
import { NewPasswordFields } from '~/features/sign-in/password-rules'
import { ownSessionsAction } from '~/features/sign-in/sessions.server'
import { SessionsList } from '~/features/sign-in/sessions-list'
import { requireUser } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { useFormReply, usePendingIntent } from '~/lib/form'
import { formFailure, readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { profileSchema } from '../../worker-api/contract/organisation/user'
import { type ChangePasswordForm, changePasswordFormSchema } from '../../worker-api/contract/sign-in/password'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.profile' }
export const meta = titleMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  // The user and their sessions in one call.
  const [{ sessions, ...me }, t] = await Promise.all([
    auth.expect(auth.api.rest.bd.utilisateur[':id'].$get({ param: { id: auth.user.id }, query: { sessions: 'true' } })),
    i18nServer.getFixedT(request),
  ])
  return data(
    { me, sessions: sessions ?? [], constraints, title: pageTitle(t, t('profile.title')) },
    { headers: await auth.headers() },
  )
}

/** The forms' rules, checked on the server only: they reach the page as data, not in its JavaScript. */
const constraints = { profile: getZodConstraint(profileSchema), password: getZodConstraint(changePasswordFormSchema) }

/** The forms of the page (STYLE 4): the identity (spec §5 rules), the password change, the sessions' ends. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireUser(request, context)
  const formData = await readForm(request)
  const ended = await ownSessionsAction(auth, formData, '/pages/user/me')
  if (ended) return ended
  const done = (key: string, values?: Record<string, string>) =>
    auth.redirectWithToast('/pages/user/me', { type: 'success', key, values })

  if (formData.get('intent') === 'password') {
    const submission = parseWithZod(formData, { schema: changePasswordFormSchema })
    const hideFields = ['oldPassword', 'newPassword', 'confirmation']
    if (submission.status !== 'success') {
      return formFailure('password', submission, { hideFields, headers: await auth.headers() })
    }
    const { oldPassword, newPassword } = submission.value
    const result = await auth.settle(
      auth.api.rest.bd.utilisateur.updatePassword.$put({ json: { oldPassword, newPassword } }),
    )
    if (result.ok) return done('profile.passwordChanged')
    return formFailure('password', submission, {
      failure: result,
      fallback: 'errors.updateFailed',
      onField: { BAD_OLD_PASSWORD: 'oldPassword' },
      hideFields,
      headers: await auth.headers(),
    })
  }

  const identity = await saveIdentity(auth, auth.user.id, formData, {
    TOO_MANY_ATTEMPTS: 'profile.tooManyMailChanges',
  })
  if ('failed' in identity) return identity.failed
  const { nom, prenom } = identity.saved
  auth.session.session.set('user', { ...auth.user, nom, prenom })
  // One's own new address waits for the link sent to it.
  if (identity.mailPending) return done('profile.mailConfirmationSent', { mail: identity.mailPending })
  return done('profile.saved')
}

type Constraint = ReturnType<typeof getZodConstraint>

function PasswordForm({ login, constraint }: { login: string; constraint: Constraint }) {
  const { t } = useTranslation()
  const last = useFormReply('password')
  const pending = usePendingIntent('password')
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
          // Brought into view by its fragment, its top (the message of a failure) keeps a margin.
          className="flex max-w-md scroll-mt-4 flex-col gap-4"
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
            <SubmitButton icon={KeyRound} pending={pending} pendingLabel={t('profile.changingPassword')}>
              {t('profile.changePassword')}
            </SubmitButton>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}

export default function Profile() {
  const { me, sessions, constraints } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('profile.title')}</h1>
      <IdentityForm
        user={me}
        own
        editable
        title={t('profile.identity')}
        constraint={constraints.profile}
        // The fragment brings a page reloaded without JavaScript back to this form and its message.
        action="/pages/user/me#profile"
      />
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
      <SessionsList sessions={sessions} own />
    </div>
  )
}
