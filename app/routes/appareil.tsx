import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { Check, MonitorSmartphone, X } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { z } from 'zod'
import { CenteredCard } from '~/components/centered-card'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { LanguageSwitch } from '~/components/language-switch'
import { SubmitButton } from '~/components/submit-button'
import { apiMessage, type Message } from '~/lib/api-errors'
import { requireUser } from '~/lib/auth.server'
import { displayDateTime } from '~/lib/dates'
import { useFormReply, usePendingIntent } from '~/lib/form'
import { formFailure, formReply, readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import {
  DEVICE_DECISIONS,
  DEVICE_NAME_MAX,
  type DeviceRequest,
  formatUserCode,
  normaliseUserCode,
  USER_CODE_TYPED_MAX,
} from '../../worker-api/contract/oidc/device'

export const meta = titleMeta

/**
 * The page a user approves a device on (issue 66, RFC 8628 §3.3): signed in (second factor included; the sign-in
 * brings them back here with the code), they type the code the device shows, or follow its QR code
 * (`/appareil?code=WDJB-MJHT`), see which application asks, from which kind of device and when, and approve it (naming
 * the device for their sessions page) or refuse it. Plain forms: it works without JavaScript.
 */

/** The code as typed, as the device shows it (`WDJB-MJHT`) once read. */
const codeForm = z.object({
  intent: z.literal('code'),
  code: z
    .string('validation.required')
    .trim()
    .min(1, 'validation.required')
    .max(USER_CODE_TYPED_MAX, 'device.badCode')
    .transform((code, ctx) => {
      const letters = normaliseUserCode(code)
      if (letters !== null) return formatUserCode(letters)
      ctx.addIssue({ code: 'custom', message: 'device.badCode' })
      return z.NEVER
    }),
})

const decisionForm = z.object({
  intent: z.literal('decision'),
  code: z.string().max(USER_CODE_TYPED_MAX).default(''),
  decision: z.enum(DEVICE_DECISIONS),
  nom: z.string().trim().max(DEVICE_NAME_MAX, 'validation.tooLong').default(''),
})

const forms = z.discriminatedUnion('intent', [codeForm, decisionForm])

type Intent = 'code' | 'decision'

/** What the page shows: the code to type (with why a code was refused), or the request to decide on. */
type Loaded =
  | { step: 'code'; code: string; refusal: Message | null; title: string }
  | { step: 'decide'; request: DeviceRequest; title: string }

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  const t = await i18nServer.getFixedT(request)
  const title = pageTitle(t, t('device.title'))
  const typed = new URL(request.url).searchParams.get('code')?.slice(0, USER_CODE_TYPED_MAX) ?? ''
  const headers = { 'Cache-Control': 'no-store' }
  if (typed === '') return data<Loaded>({ step: 'code', code: '', refusal: null, title }, { headers })
  const result = await auth.settle(auth.api.rest.bd.oidc.appareil.$get({ query: { code: typed } }))
  const merged = { ...headers, ...((await auth.headers()) as Record<string, string> | undefined) }
  if (result.ok) return data<Loaded>({ step: 'decide', request: result.data, title }, { headers: merged })
  return data<Loaded>(
    { step: 'code', code: typed, refusal: apiMessage(result, 'errors.technical'), title },
    { status: result.status, headers: merged },
  )
}

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireUser(request, context)
  const form = await readForm(request)
  const submission = parseWithZod(form, { schema: forms })
  const intent: Intent = form.get('intent') === 'decision' ? 'decision' : 'code'
  if (submission.status !== 'success') return formReply(intent, submission.reply(), null, await auth.headers())
  const value = submission.value
  if (value.intent === 'code') {
    return redirect(`/appareil?${new URLSearchParams({ code: value.code })}`, { headers: await auth.headers() })
  }
  const result = await auth.settle(
    auth.api.rest.bd.oidc.appareil.$post({
      json: { code: value.code, decision: value.decision, nom: value.nom || undefined },
    }),
  )
  if (!result.ok) {
    return formFailure('decision', submission, {
      failure: result,
      fallback: 'errors.technical',
      headers: await auth.headers(),
    })
  }
  const decided = result.data
  return auth.redirectWithToast('/appareil', {
    type: 'success',
    key: decided.decision === 'APPROUVER' ? 'device.approved' : 'device.refused',
    values: { application: decided.application.libelle, name: decided.nom ?? decided.application.libelle },
  })
}

export default function DevicePage() {
  const loaded = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <CenteredCard
      eyebrow={t('app.tagline')}
      title={t('device.title')}
      after={
        <div className="flex flex-col items-center gap-4">
          <Link className="text-sm text-primary underline-offset-4 hover:underline" to="/">
            {t('device.backHome')}
          </Link>
          <LanguageSwitch />
        </div>
      }
    >
      {loaded.step === 'decide' ? (
        <Decision request={loaded.request} />
      ) : (
        <CodeForm code={loaded.code} refusal={loaded.refusal} />
      )}
    </CenteredCard>
  )
}

/** The code the device shows, typed (or carried by its QR code and refused: said why, kept to correct). */
function CodeForm({ code, refusal }: { code: string; refusal: Message | null }) {
  const { t } = useTranslation()
  const reply = useFormReply<'code'>('code')
  const pending = usePendingIntent('code')
  const [form, fields] = useForm({
    id: 'device-code',
    lastResult: reply?.result,
    defaultValue: { code },
    shouldValidate: 'onSubmit',
  })
  const errors = fields.code.errors?.map((key) => t(key))
  const message = refusal && !reply ? t(refusal.key, refusal.values) : null
  return (
    <Form method="post" action="/appareil" {...getFormProps(form)} className="flex flex-col gap-4">
      <p className="text-sm text-muted-foreground">{t('device.intro')}</p>
      <FormError message={message} />
      <input type="hidden" name="intent" value="code" />
      <Field
        label={t('device.codeLabel')}
        hint={t('device.codeHint')}
        errors={errors}
        inputProps={{
          ...getInputProps(fields.code, { type: 'text' }),
          id: 'device-code-input',
          autoComplete: 'off',
          autoCapitalize: 'characters',
          spellCheck: false,
          autoFocus: true,
          className: 'font-mono text-lg tracking-widest uppercase',
          maxLength: USER_CODE_TYPED_MAX,
        }}
      />
      <SubmitButton icon={MonitorSmartphone} pending={pending} pendingLabel={t('device.looking')}>
        {t('device.submit')}
      </SubmitButton>
    </Form>
  )
}

/** The request the code names: which application, on which kind of device, asked when; approved (named) or refused. */
function Decision({ request }: { request: DeviceRequest }) {
  const { t } = useTranslation()
  const reply = useFormReply<'decision'>('decision')
  const approving = usePendingIntent('decision')
  const [form, fields] = useForm({
    id: 'device-decision',
    lastResult: reply?.result,
    defaultValue: { nom: '' },
    shouldValidate: 'onSubmit',
  })
  const device = request.appareil ?? t('device.unknownDevice')
  const error = reply?.error ? t(reply.error.key, reply.error.values) : null
  return (
    <Form method="post" action="/appareil" {...getFormProps(form)} className="flex flex-col gap-4">
      <p className="text-base">{t('device.asks', { application: request.application.libelle })}</p>
      <FormError message={error} />
      <dl className="grid gap-2 rounded-md border p-3 text-sm">
        <div className="flex flex-wrap gap-x-2">
          <dt className="text-muted-foreground">{t('device.application')}</dt>
          <dd className="font-medium break-words">{request.application.libelle}</dd>
        </div>
        <div className="flex flex-wrap gap-x-2">
          <dt className="text-muted-foreground">{t('device.kind')}</dt>
          <dd className="break-words">
            {device}
            {request.navigateur ? ` (${request.navigateur})` : ''}
          </dd>
        </div>
        <div className="flex flex-wrap gap-x-2">
          <dt className="text-muted-foreground">{t('device.askedAt')}</dt>
          <dd className="tabular-nums">{displayDateTime(request.demandeLe)}</dd>
        </div>
        <div className="flex flex-wrap gap-x-2">
          <dt className="text-muted-foreground">{t('device.code')}</dt>
          <dd className="font-mono tracking-widest">{request.code}</dd>
        </div>
      </dl>
      <p className="text-sm text-muted-foreground">{t('device.checkCode')}</p>
      <input type="hidden" name="intent" value="decision" />
      <input type="hidden" name="code" value={request.code} />
      <Field
        label={t('device.nameLabel')}
        hint={t('device.nameHint')}
        errors={fields.nom.errors?.map((key) => t(key))}
        inputProps={{
          ...getInputProps(fields.nom, { type: 'text' }),
          id: 'device-name',
          autoComplete: 'off',
          maxLength: DEVICE_NAME_MAX,
        }}
      />
      <div className="flex flex-col gap-2 sm:flex-row">
        <SubmitButton
          icon={Check}
          name="decision"
          value="APPROUVER"
          pending={approving}
          pendingLabel={t('device.sending')}
          className="sm:flex-1"
        >
          {t('device.approve')}
        </SubmitButton>
        <SubmitButton
          icon={X}
          name="decision"
          value="REFUSER"
          variant="outline"
          pending={approving}
          pendingLabel={t('device.sending')}
          className="sm:flex-1"
        >
          {t('device.refuse')}
        </SubmitButton>
      </div>
    </Form>
  )
}
