import { Form } from '@remix-run/react'
import { Download, KeyRound, RefreshCw, ShieldCheck, ShieldOff, Smartphone } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { CopyField } from '~/components/copy-field'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Alert } from '~/components/ui/alert'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { usePendingIntent } from '~/lib/form'

type Message = { key: string; values?: Record<string, string | number> }

/** A pending enrolment as the page shows it: the secret, its address, its QR code (SVG). */
export type TotpEnrolmentShown = { secret: string; otpauthUri: string; qr: string }

/** The secret in groups of four, as authenticator apps show and people type it. */
const grouped = (secret: string) => secret.replace(/(.{4})(?!$)/g, '$1 ')

/** The authenticator app (TOTP): set up, confirmed by a first code, or turned off. */
export function TotpCard({
  on,
  enrolment,
  enrolmentError,
  startError,
  removeError,
}: {
  on: boolean
  enrolment: TotpEnrolmentShown | null
  /** The first code, refused. */
  enrolmentError: Message | null
  /** The password that was to open the set-up, refused. */
  startError: Message | null
  removeError: Message | null
}) {
  const { t } = useTranslation()
  return (
    <Card id="totp">
      <CardHeader>
        <CardTitle>{t('mfa.totp.title')}</CardTitle>
        <CardDescription>{on ? t('mfa.totp.on') : t('mfa.totp.off')}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {enrolment ? <TotpEnrolment enrolment={enrolment} refused={enrolmentError} /> : null}
        {!on && !enrolment ? (
          // The password first: a session alone sets up no app (a stolen one would lock the user out).
          <ProofForm
            intent="totp-start"
            anchor="totp"
            withCode={false}
            error={startError}
            summary={t('mfa.totp.start')}
            submit={t('mfa.totp.startConfirm')}
            pending={t('mfa.totp.starting')}
            icon={<Smartphone aria-hidden />}
          />
        ) : null}
        {on ? (
          <ProofForm
            intent="totp-remove"
            anchor="totp"
            error={removeError}
            summary={t('mfa.totp.remove')}
            submit={t('mfa.totp.removeConfirm')}
            pending={t('mfa.totp.removing')}
            destructive
          />
        ) : null}
      </CardContent>
    </Card>
  )
}

function TotpEnrolment({ enrolment, refused }: { enrolment: TotpEnrolmentShown; refused: Message | null }) {
  const { t } = useTranslation()
  const pending = usePendingIntent('totp-confirm')
  const error = refused ? t(refused.key, refused.values) : null
  return (
    <div className="flex flex-col gap-4">
      <ol className="flex list-decimal flex-col gap-4 pl-5">
        <li className="flex flex-col gap-2">
          <span>{t('mfa.totp.scan')}</span>
          <div
            role="img"
            aria-label={t('mfa.totp.qrLabel')}
            className="w-48 max-w-full rounded-md border bg-white p-1 [&>svg]:h-auto [&>svg]:w-full"
            // SVG made on the server from the address the API gave (second-factor.server.ts).
            dangerouslySetInnerHTML={{ __html: enrolment.qr }}
          />
        </li>
        <li className="flex flex-col gap-2">
          <span>{t('mfa.totp.typeInstead')}</span>
          <CopyField
            id="totp-secret"
            label={t('mfa.totp.secret')}
            value={grouped(enrolment.secret)}
            copyLabel={t('mfa.totp.copySecret')}
          />
        </li>
        <li className="flex flex-col gap-2">
          <Form method="post" action="/pages/user/securite#totp" noValidate className="flex max-w-sm flex-col gap-4">
            <input type="hidden" name="intent" value="totp-confirm" />
            <input type="hidden" name="secret" value={enrolment.secret} />
            <input type="hidden" name="otpauthUri" value={enrolment.otpauthUri} />
            {/* The refusal is said on the field; the top of the form says where to look. */}
            <FormError message={error ? t('form.checkFields', { fields: t('mfa.totp.firstCode') }) : null} />
            <Field
              label={t('mfa.totp.firstCode')}
              hint={t('mfa.totp.firstCodeHint')}
              errors={error ? [error] : undefined}
              inputProps={{
                id: 'totp-code',
                name: 'code',
                type: 'text',
                inputMode: 'numeric',
                autoComplete: 'one-time-code',
                required: true,
                maxLength: 6,
                pattern: '[0-9]{6}',
                autoFocus: Boolean(refused),
              }}
            />
            <div>
              <SubmitButton icon={ShieldCheck} pending={pending} pendingLabel={t('mfa.totp.confirming')}>
                {t('mfa.totp.confirm')}
              </SubmitButton>
            </div>
          </Form>
        </li>
      </ol>
    </div>
  )
}

/**
 * An action that needs the person at the keyboard proven (TOTP turned off, new recovery codes): a
 * current code of the app, or the password. The form sits in a disclosure; sending it is the
 * confirmation.
 */
export function ProofForm({
  intent,
  anchor,
  error,
  summary,
  submit,
  pending: pendingLabel,
  destructive = false,
  icon,
  note,
  withCode = true,
  fields = {},
  id = intent,
}: {
  intent: string
  anchor: string
  error: Message | null
  summary: string
  submit: string
  pending: string
  destructive?: boolean
  /** The submit button's icon (a shield for a removal, arrows for a renewal otherwise). */
  icon?: React.ReactNode
  note?: string
  /** Whether a code of the app may prove it (the app is on); else the password alone. */
  withCode?: boolean
  /** What else the form sends (the passkey it removes). */
  fields?: Record<string, string>
  /** What its fields' ids start with, unique on the page. */
  id?: string
}) {
  const { t } = useTranslation()
  const pending = usePendingIntent(intent, fields.id)
  const message = error ? t(error.key, error.values) : null
  return (
    <details className="rounded-md border p-4" open={Boolean(error)}>
      <summary className="cursor-pointer font-medium">{summary}</summary>
      <Form
        method="post"
        action={`/pages/user/securite#${anchor}`}
        noValidate
        className="mt-4 flex max-w-sm flex-col gap-4"
      >
        <input type="hidden" name="intent" value={intent} />
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        {note ? <p className="text-sm">{note}</p> : null}
        <ProofFields withCode={withCode} id={id} error={message} />
        <div>
          <SubmitButton variant={destructive ? 'destructive' : 'default'} pending={pending} pendingLabel={pendingLabel}>
            {icon ?? (destructive ? <ShieldOff aria-hidden /> : <RefreshCw aria-hidden />)}
            {submit}
          </SubmitButton>
        </div>
      </Form>
    </details>
  )
}

/** How many recovery codes are left, and new ones (the former die) with a proof, like a removal. */
export function RecoveryCodesCard({
  left,
  hasFactor,
  totp,
  error,
}: {
  left: number
  hasFactor: boolean
  /** Whether the app is on (a current code may prove it is the user). */
  totp: boolean
  error: Message | null
}) {
  const { t } = useTranslation()
  return (
    <Card id="codes">
      <CardHeader>
        <CardTitle>{t('mfa.codes.title')}</CardTitle>
        <CardDescription>{hasFactor ? t('mfa.codes.left', { count: left }) : t('mfa.codes.noFactor')}</CardDescription>
      </CardHeader>
      {hasFactor ? (
        <CardContent>
          <ProofForm
            intent="codes-renew"
            anchor="codes"
            withCode={totp}
            error={error}
            summary={t('mfa.codes.renew')}
            note={t('mfa.codes.renewConfirm')}
            submit={t('mfa.codes.renew')}
            pending={t('mfa.codes.renewing')}
          />
        </CardContent>
      ) : null}
    </Card>
  )
}

/** Recovery codes just made: shown this once, to write down or download as a text file. */
export function RecoveryCodesShown({ codes, login }: { codes: string[]; login: string }) {
  const { t } = useTranslation()
  const text = `${t('mfa.codes.fileHeader', { login })}\n\n${codes.join('\n')}\n`
  return (
    <Alert role="status" className="flex flex-col gap-3">
      <p className="flex items-center gap-2 font-medium">
        <KeyRound aria-hidden className="size-4" />
        {t('mfa.codes.shownOnce')}
      </p>
      <ol className="grid grid-cols-1 gap-1 font-mono text-sm sm:grid-cols-2" aria-label={t('mfa.codes.title')}>
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <div>
        <a
          className="inline-flex items-center gap-2 text-primary underline-offset-4 hover:underline"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
          download={`codes-secours-${login}.txt`}
        >
          <Download aria-hidden className="size-4" />
          {t('mfa.codes.download')}
        </a>
      </div>
    </Alert>
  )
}

/** The proof's fields: a current code of the app (when it is on), or the password. */
export function ProofFields({ withCode, id, error }: { withCode: boolean; id: string; error: string | null }) {
  const { t } = useTranslation()
  return (
    <>
      <p className="text-sm text-muted-foreground">{withCode ? t('mfa.proof.intro') : t('mfa.proof.introPassword')}</p>
      <FormError message={error} />
      {withCode ? (
        <Field
          label={t('mfa.proof.code')}
          inputProps={{
            id: `${id}-code`,
            name: 'code',
            type: 'text',
            inputMode: 'numeric',
            autoComplete: 'one-time-code',
            maxLength: 6,
          }}
        />
      ) : null}
      <Field
        label={withCode ? t('mfa.proof.password') : t('mfa.proof.passwordAlone')}
        inputProps={{
          id: `${id}-password`,
          name: 'motDePasse',
          type: 'password',
          autoComplete: 'current-password',
        }}
      />
    </>
  )
}
