import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { z } from 'zod'
import { Alert } from '~/components/ui/alert'
import { LinkedProviders, UNLINK_INTENT, UNLINK_PARAM, UnlinkPanel } from '~/features/federation/linked-providers'
import { PasskeysCard } from '~/features/sign-in/passkeys-card'
import {
  RecoveryCodesCard,
  RecoveryCodesShown,
  TotpCard,
  type TotpEnrolmentShown,
} from '~/features/sign-in/second-factor'
import { proofError, proofOf, webauthnAnswer } from '~/features/sign-in/second-factor.server'
import { apiMessage, type Message } from '~/lib/api-errors'
import { requireUser } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { intentOf, readForm, replyTo, textField } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { qrCodeSvg } from '~/lib/qr.server'
import { pageTitle, titleMeta } from '~/lib/title'
import type { PasskeyRegistration } from '../../worker-api/contract/sign-in/passkeys'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.security' }
export const meta = titleMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  const [status, t] = await Promise.all([auth.expect(auth.api.rest.bd.mfa.$get()), i18nServer.getFixedT(request)])
  return data({ status, title: pageTitle(t, t('mfa.title')) }, { headers: await auth.headers() })
}

/** The page's forms: the app enrolled (password, then a first code) or removed, the recovery codes renewed, a passkey added, renamed or removed. */
const securityIntents = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('totp-start'), motDePasse: textField(200) }),
  z.object({
    intent: z.literal('totp-confirm'),
    secret: textField(64),
    otpauthUri: textField(400),
    code: textField(40),
  }),
  z.object({ intent: z.literal('totp-remove') }),
  z.object({ intent: z.literal('codes-renew') }),
  z.object({ intent: z.literal('passkey-add'), nom: textField(200) }),
  z.object({ intent: z.literal('passkey-rename'), id: textField(1400), nom: textField(200) }),
  z.object({ intent: z.literal('passkey-remove'), id: textField(1400) }),
  z.object({ intent: z.literal(UNLINK_INTENT), fournisseur: textField(12) }),
])
type SecurityIntent = z.infer<typeof securityIntents>['intent']

/** What an answer of the page shows once: an enrolment's secret and QR code, or new recovery codes. */
export type SecurityShown = { enrolment: TotpEnrolmentShown } | { codes: string[]; login: string }

/** The secret fields a reply never gives back. */
const SECRET_FIELDS = ['motDePasse', 'code', 'reponse']

/**
 * The second factor of one's own account: an authenticator app enrolled (its QR code and secret, then
 * a first code), removed (a current code or the password), and the recovery codes renewed. Each form
 * posts here; the answers that show something once (the secret, the codes) are this action's data.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireUser(request, context)
  const form = await readForm(request)
  const sent = intentOf(form, securityIntents)
  if (!sent) return auth.redirectWithToast('/pages/user/securite', { type: 'error', key: 'errors.technical' })
  const headers = await auth.headers()
  const reply = (intent: SecurityIntent, options: { error?: Message; shown?: SecurityShown } = {}) =>
    replyTo(intent, form, { ...options, hideFields: SECRET_FIELDS, headers })
  const codes = (codesSecours: string[]) =>
    reply(sent.intent, { shown: { codes: codesSecours, login: auth.user.login } })

  if (sent.intent === 'totp-start') {
    if (!sent.motDePasse) return reply(sent.intent, { error: { key: 'mfa.proof.passwordNeeded' } })
    const result = await auth.settle(auth.api.rest.bd.mfa.totp.$post({ json: { motDePasse: sent.motDePasse } }))
    if (!result.ok) return reply(sent.intent, { error: proofError(result) })
    const { secret, otpauthUri } = result.data
    return reply(sent.intent, { shown: { enrolment: { secret, otpauthUri, qr: qrCodeSvg(otpauthUri) } } })
  }
  if (sent.intent === 'totp-confirm') {
    // The secret shown travels back with the code, to show it again after a wrong code.
    const { secret, otpauthUri, code } = sent
    const again = (error: Message) =>
      reply(sent.intent, { error, shown: { enrolment: { secret, otpauthUri, qr: qrCodeSvg(otpauthUri) } } })
    if (code.trim() === '') return again({ key: 'validation.required' })
    const result = await auth.settle(auth.api.rest.bd.mfa.totp.confirm.$post({ json: { code } }))
    if (result.ok) return codes(result.data.codesSecours)
    if (result.status === 404 || result.status === 409) {
      return auth.redirectWithToast('/pages/user/securite', { type: 'error', key: 'mfa.totp.expired' })
    }
    return again(apiMessage(result, 'errors.saveFailed'))
  }
  if (sent.intent === 'totp-remove' || sent.intent === 'codes-renew') {
    const json = proofOf(form)
    if (!json) return reply(sent.intent, { error: { key: 'mfa.proof.needed' } })
    if (sent.intent === 'codes-renew') {
      const result = await auth.settle(auth.api.rest.bd.mfa['codes-secours'].$post({ json }))
      return result.ok ? codes(result.data.codesSecours) : reply(sent.intent, { error: proofError(result) })
    }
    const result = await auth.settle(auth.api.rest.bd.mfa.totp.$delete({ json }))
    if (!result.ok) return reply(sent.intent, { error: proofError(result) })
    return auth.redirectWithToast('/pages/user/securite', { type: 'success', key: 'mfa.totp.removed' })
  }
  const refuse = (error: Message) => reply(sent.intent, { error })
  if (sent.intent === UNLINK_INTENT) {
    const id = Number(sent.fournisseur)
    if (!Number.isSafeInteger(id) || id <= 0) return refuse({ key: 'errors.technical' })
    const result = await auth.settle(auth.api.rest.bd.fournisseur.liens[':id'].$delete({ param: { id } }))
    if (!result.ok) return refuse(apiMessage(result, 'errors.updateFailed'))
    return auth.redirectWithToast('/pages/user/securite', { type: 'success', key: 'fournisseurLiens.removed' })
  }
  // A credential id (base64url): anything else names no passkey.
  if (sent.intent !== 'passkey-add' && !/^[A-Za-z0-9_-]{1,1400}$/.test(sent.id)) {
    return refuse({ key: 'errors.PASSKEY_INVALID' })
  }
  if (sent.intent === 'passkey-add') {
    const reponse = webauthnAnswer<PasskeyRegistration['reponse']>(form)
    if (!reponse) return refuse({ key: 'errors.PASSKEY_INVALID' })
    const result = await auth.settle(auth.api.rest.bd.mfa.passkeys.$post({ json: { nom: sent.nom, reponse } }))
    if (!result.ok) return refuse(apiMessage(result, 'errors.saveFailed'))
    if (result.data.codesSecours) return codes(result.data.codesSecours)
    return auth.redirectWithToast('/pages/user/securite', {
      type: 'success',
      key: 'mfa.passkeys.addedToast',
      values: { nom: result.data.nom },
    })
  }
  const param = { id: sent.id }
  if (sent.intent === 'passkey-rename') {
    if (sent.nom.trim() === '') return refuse({ key: 'mfa.passkeys.nameNeeded' })
    const result = await auth.settle(auth.api.rest.bd.mfa.passkeys[':id'].$patch({ param, json: { nom: sent.nom } }))
    if (!result.ok) return refuse(apiMessage(result, 'errors.updateFailed'))
    return auth.redirectWithToast('/pages/user/securite', {
      type: 'success',
      key: 'mfa.passkeys.renamed',
      values: { nom: result.data.nom },
    })
  }
  const proof = proofOf(form)
  if (!proof) return refuse({ key: 'mfa.proof.needed' })
  const result = await auth.settle(auth.api.rest.bd.mfa.passkeys[':id'].$delete({ param, json: proof }))
  if (!result.ok) return refuse(proofError(result))
  return auth.redirectWithToast('/pages/user/securite', { type: 'success', key: 'mfa.passkeys.removed' })
}

export default function Security() {
  const { status } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  const [search] = useSearchParams()
  const { t } = useTranslation()
  const hasFactor = status.totp || status.passkeys.length > 0
  const shown = reply?.shown
  const errorOf = (intent: SecurityIntent) => (reply?.intent === intent && !shown ? reply.error : null)
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{t('mfa.title')}</h1>
        <p className="text-muted-foreground">{t('mfa.intro')}</p>
      </div>
      {!hasFactor && search.get('enrolement') !== null ? (
        <Alert role="status">{t('errors.MFA_ENROLMENT_REQUIRED')}</Alert>
      ) : null}
      <UnlinkPanel links={status.fournisseurs} own asked={search.get(UNLINK_PARAM)} pagePath="/pages/user/securite" />
      {shown && 'codes' in shown ? <RecoveryCodesShown codes={shown.codes} login={shown.login} /> : null}
      <TotpCard
        on={status.totp}
        enrolment={shown && 'enrolment' in shown ? shown.enrolment : null}
        enrolmentError={shown && 'enrolment' in shown ? (reply?.error ?? null) : null}
        startError={errorOf('totp-start')}
        removeError={errorOf('totp-remove')}
      />
      <PasskeysCard
        passkeys={status.passkeys}
        totp={status.totp}
        reply={reply?.intent.startsWith('passkey-') ? reply : null}
      />
      <RecoveryCodesCard
        left={status.codesSecoursRestants}
        hasFactor={hasFactor}
        totp={status.totp}
        error={errorOf('codes-renew')}
      />
      {status.fournisseurs.length > 0 ? (
        <LinkedProviders
          links={status.fournisseurs}
          own
          error={errorOf(UNLINK_INTENT)}
          pagePath="/pages/user/securite"
        />
      ) : null}
    </div>
  )
}
