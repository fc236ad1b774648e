import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { Alert } from '~/components/ui/alert'
import { type PasskeyReply, PasskeysCard } from '~/features/sign-in/passkeys-card'
import {
  RecoveryCodesCard,
  RecoveryCodesShown,
  TotpCard,
  type TotpEnrolmentShown,
} from '~/features/sign-in/second-factor'
import { proofError, proofOf, qrCodeSvg, webauthnAnswer } from '~/features/sign-in/second-factor.server'
import { apiMessage, type Message } from '~/lib/api-errors'
import { type Auth, requireUser } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import type { PasskeyRegistration } from '../../worker-api/contract/passkeys'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.security' }
export const meta = titleMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  const [status, t] = await Promise.all([auth.expect(auth.api.rest.bd.mfa.$get()), i18nServer.getFixedT(request)])
  return data({ status, title: pageTitle(t, t('mfa.title')) }, { headers: await auth.headers() })
}

export type SecurityReply =
  | ({ intent: 'totp-start' } & TotpEnrolmentShown)
  | { intent: 'codes'; codes: string[]; login: string }
  | { intent: 'totp-proof' | 'totp-remove' | 'codes-renew'; error: Message }
  | PasskeyReply

/**
 * The second factor of one's own account: an authenticator app enrolled (its QR code and secret, then
 * a first code), removed (a current code or the password), and the recovery codes renewed. Each form
 * posts here; the answers that show something once (the secret, the codes) are this action's data.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireUser(request, context)
  const form = await readForm(request)
  const intent = String(form.get('intent') ?? '')
  const headers = await auth.headers()
  const reply = (value: SecurityReply, status = 200) => data(value, { status, headers })
  const enrolment = (secret: string, otpauthUri: string, error: Message | null = null) =>
    reply({ intent: 'totp-start', secret, otpauthUri, qr: qrCodeSvg(otpauthUri), error }, error ? 400 : 200)

  if (intent === 'totp-start') {
    const motDePasse = String(form.get('motDePasse') ?? '').slice(0, 200)
    if (!motDePasse) return reply({ intent: 'totp-proof', error: { key: 'mfa.proof.passwordNeeded' } }, 400)
    const result = await auth.settle(auth.api.rest.bd.mfa.totp.$post({ json: { motDePasse } }))
    if (result.ok) return enrolment(result.data.secret, result.data.otpauthUri)
    return reply({ intent: 'totp-proof', error: proofError(result) }, 400)
  }
  if (intent === 'totp-confirm') {
    // The secret shown travels back with the code, to show it again after a wrong code.
    const secret = String(form.get('secret') ?? '').slice(0, 64)
    const otpauthUri = String(form.get('otpauthUri') ?? '').slice(0, 400)
    const code = String(form.get('code') ?? '').slice(0, 40)
    if (code.trim() === '') return enrolment(secret, otpauthUri, { key: 'validation.required' })
    const result = await auth.settle(auth.api.rest.bd.mfa.totp.confirm.$post({ json: { code } }))
    if (result.ok) return reply({ intent: 'codes', codes: result.data.codesSecours, login: auth.user.login })
    if (result.status === 404 || result.status === 409) {
      return auth.redirectWithToast('/pages/user/securite', { type: 'error', key: 'mfa.totp.expired' })
    }
    return enrolment(secret, otpauthUri, apiMessage(result, 'errors.saveFailed'))
  }
  if (intent === 'totp-remove' || intent === 'codes-renew') {
    const json = proofOf(form)
    if (!json) return reply({ intent, error: { key: 'mfa.proof.needed' } }, 400)
    const result =
      intent === 'totp-remove'
        ? await auth.settle(auth.api.rest.bd.mfa.totp.$delete({ json }))
        : await auth.settle(auth.api.rest.bd.mfa['codes-secours'].$post({ json }))
    if (result.ok) {
      if (result.data && typeof result.data === 'object' && 'codesSecours' in result.data) {
        return reply({ intent: 'codes', codes: result.data.codesSecours, login: auth.user.login })
      }
      return auth.redirectWithToast('/pages/user/securite', { type: 'success', key: 'mfa.totp.removed' })
    }
    return reply({ intent, error: proofError(result) }, 400)
  }
  if (intent === 'passkey-add' || intent === 'passkey-rename' || intent === 'passkey-remove') {
    return passkeyAction(auth, intent, form, reply)
  }
  return auth.redirectWithToast('/pages/user/securite', { type: 'error', key: 'errors.technical' })
}

/**
 * A passkey added (the browser's answer the page's script sends, with its name), renamed, or removed
 * (with a proof). A refusal is said at the passkey's form.
 */
async function passkeyAction(
  auth: Auth,
  intent: PasskeyReply['intent'],
  form: FormData,
  reply: (value: SecurityReply, status?: number) => ReturnType<typeof data>,
) {
  const id = String(form.get('id') ?? '').slice(0, 1400)
  const nom = String(form.get('nom') ?? '').slice(0, 200)
  const refuse = (error: Message) => reply({ intent, id, error }, 400)
  // A credential id (base64url): anything else names no passkey.
  if (intent !== 'passkey-add' && !/^[A-Za-z0-9_-]{1,1400}$/.test(id)) return refuse({ key: 'errors.PASSKEY_INVALID' })
  if (intent === 'passkey-add') {
    const reponse = webauthnAnswer<PasskeyRegistration['reponse']>(form)
    if (!reponse) return refuse({ key: 'errors.PASSKEY_INVALID' })
    const result = await auth.settle(auth.api.rest.bd.mfa.passkeys.$post({ json: { nom, reponse } }))
    if (!result.ok) return refuse(apiMessage(result, 'errors.saveFailed'))
    if (result.data.codesSecours) {
      return reply({ intent: 'codes', codes: result.data.codesSecours, login: auth.user.login })
    }
    return auth.redirectWithToast('/pages/user/securite', {
      type: 'success',
      key: 'mfa.passkeys.addedToast',
      values: { nom: result.data.nom },
    })
  }
  if (intent === 'passkey-rename') {
    if (nom.trim() === '') return refuse({ key: 'mfa.passkeys.nameNeeded' })
    const result = await auth.settle(auth.api.rest.bd.mfa.passkeys[':id'].$patch({ param: { id }, json: { nom } }))
    if (!result.ok) return refuse(apiMessage(result, 'errors.updateFailed'))
    return auth.redirectWithToast('/pages/user/securite', {
      type: 'success',
      key: 'mfa.passkeys.renamed',
      values: { nom: result.data.nom },
    })
  }
  const proof = proofOf(form)
  if (!proof) return refuse({ key: 'mfa.proof.needed' })
  const result = await auth.settle(auth.api.rest.bd.mfa.passkeys[':id'].$delete({ param: { id }, json: proof }))
  if (!result.ok) return refuse(proofError(result))
  return auth.redirectWithToast('/pages/user/securite', { type: 'success', key: 'mfa.passkeys.removed' })
}

export default function Security() {
  const { status } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>() as SecurityReply | undefined
  const [search] = useSearchParams()
  const { t } = useTranslation()
  const hasFactor = status.totp || status.passkeys.length > 0
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{t('mfa.title')}</h1>
        <p className="text-muted-foreground">{t('mfa.intro')}</p>
      </div>
      {!hasFactor && search.get('enrolement') !== null ? (
        <Alert role="status">{t('errors.MFA_ENROLMENT_REQUIRED')}</Alert>
      ) : null}
      {reply?.intent === 'codes' ? <RecoveryCodesShown codes={reply.codes} login={reply.login} /> : null}
      <TotpCard
        on={status.totp}
        enrolment={reply?.intent === 'totp-start' ? reply : null}
        startError={reply?.intent === 'totp-proof' ? reply.error : null}
        removeError={reply?.intent === 'totp-remove' ? reply.error : null}
      />
      <PasskeysCard
        passkeys={status.passkeys}
        totp={status.totp}
        reply={reply?.intent.startsWith('passkey-') ? (reply as PasskeyReply) : null}
      />
      <RecoveryCodesCard
        left={status.codesSecoursRestants}
        hasFactor={hasFactor}
        totp={status.totp}
        error={reply?.intent === 'codes-renew' ? reply.error : null}
      />
    </div>
  )
}
