import { parseWithZod } from '@conform-to/zod/v4'
import { type AppLoadContext, redirect } from '@remix-run/cloudflare'
import { z } from 'zod'
import { publicApi, read } from '~/lib/api.server'
import { type Failure, loginMessage, type Message } from '~/lib/api-errors'
import { formReply, replyTo, textField } from '~/lib/form.server'
import { afterLogin } from '~/lib/safe-redirect'
import { getSession } from '~/lib/session.server'
import { toastHeaders } from '~/lib/toast.server'
import { loginFormSchema } from '../../../worker-api/contract/sign-in/auth'
import { MFA_METHODS, type MfaChallenge, type MfaMethod } from '../../../worker-api/contract/sign-in/mfa'
import type { PasskeyLogin } from '../../../worker-api/contract/sign-in/passkeys'
import type { MfaStep } from './login-second-step'
import { webauthnAnswer } from './second-factor.server'

// The steps of a sign-in after the password (/login's action): the second factor's code, a passkey's answer, and the
// session a sign-in the API accepted opens.

/** A step of a sign-in as its forms carry it back: its challenge, the identifier, the methods offered. */
const stepFields = {
  challenge: textField(100),
  identifiant: textField(100),
  methodes: textField(100).transform((value) =>
    value.split(',').filter((method): method is MfaMethod => (MFA_METHODS as readonly string[]).includes(method)),
  ),
}

/** The second step's forms, on the sign-in page and after a partner's provider: a code, or a passkey's answer. */
export const mfaStepIntent = z.object({ intent: z.literal('mfa'), ...stepFields, code: textField(40) })
export const passkeyStepIntent = z.object({ intent: z.literal('passkey'), ...stepFields })

/** What 403 MFA_REQUIRED asks for: the second step's form. */
export function secondStepOf(result: Failure, identifiant: string): MfaStep | null {
  if (result.error.businessCode !== 'MFA_REQUIRED') return null
  const attribute = result.error.attributs[0] as Partial<MfaChallenge> | undefined
  if (!attribute?.challenge) return null
  return { challenge: attribute.challenge, methodes: attribute.methodes ?? [], identifiant }
}

/** The second step again, saying why (its challenge still alive). */
const stepAgain = (formData: FormData, { challenge, methodes, identifiant }: MfaStep, error: Message) =>
  replyTo('mfa', formData, { shown: { challenge, methodes, identifiant }, error, hideFields: ['code', 'reponse'] })

/**
 * The second step sent: a right code signs in; a wrong one shows the step again, its challenge still
 * alive; a dead challenge (expired, used, or ended by the lockout) goes back to the password.
 */
export async function secondStep(
  request: Request,
  context: AppLoadContext,
  formData: FormData,
  step: MfaStep & { code: string },
  options: { federated?: boolean } = {},
) {
  const { challenge, code } = step
  if (code.trim() === '') return stepAgain(formData, step, { key: 'validation.required' })
  const result = await read(publicApi(request, context).rest.public.bd.login.mfa.$post({ json: { challenge, code } }))
  if (result.ok) return signedIn(request, context, result.data, formData, options)
  if (result.error.businessCode === 'MFA_CODE_INVALID' || result.error.businessCode === 'VALIDATION_FAILED') {
    return stepAgain(formData, step, { key: 'errors.MFA_CODE_INVALID' })
  }
  return backToPassword(step.identifiant, loginMessage(result))
}

/** The sign-in form again, the identifier kept, saying why. */
export function backToPassword(identifiant: string, message: Message) {
  const form = new FormData()
  form.set('identifiant', identifiant)
  form.set('motDePasse', '-')
  const submission = parseWithZod(form, { schema: loginFormSchema })
  return formReply('login', submission.reply({ hideFields: ['motDePasse'] }), message)
}

/**
 * A passkey's answer (the page's script: app/features/sign-in/passkeys.ts), passwordless or as the
 * second step (`challenge`): a verified one signs in; a refused one says so where it was asked — the
 * second step again while its challenge lives, else the sign-in form.
 */
export async function passkeyStep(
  request: Request,
  context: AppLoadContext,
  formData: FormData,
  step: MfaStep,
  options: { federated?: boolean } = {},
) {
  const reponse = webauthnAnswer<PasskeyLogin['reponse']>(formData)
  const invalid: Message = { key: 'errors.PASSKEY_INVALID' }
  if (!reponse) return step.challenge ? stepAgain(formData, step, invalid) : backToPassword(step.identifiant, invalid)
  const json = step.challenge ? { reponse, challenge: step.challenge } : { reponse }
  const result = await read(publicApi(request, context).rest.public.bd.login.passkey.$post({ json }))
  if (result.ok) return signedIn(request, context, result.data, formData, options)
  const refused = result.error.businessCode === 'PASSKEY_INVALID' || result.error.businessCode === 'VALIDATION_FAILED'
  if (step.challenge && refused) return stepAgain(formData, step, invalid)
  return backToPassword(step.identifiant, refused ? invalid : loginMessage(result))
}

/** A sign-in the API accepted: the session's cookie, and on to the page wanted. */
export async function signedIn(
  request: Request,
  context: AppLoadContext,
  signed: {
    user: { id: number; login: string; nom: string; prenom: string; admin: boolean }
    jwt: { accessToken: string; refreshToken: string }
  },
  formData: FormData,
  { federated = false }: { federated?: boolean } = {},
) {
  const { session, commit } = await getSession(request, context)
  const { user, jwt } = signed
  // Whose session this sign-in replaces: one still open (another tab's), or the one the page ended.
  const before = session.get('user')
  const previous = before ? `${before.prenom} ${before.nom}` : String(formData.get('ended') ?? '').slice(0, 101)
  const name = `${user.prenom} ${user.nom}`
  session.set('accessToken', jwt.accessToken)
  session.set('refreshToken', jwt.refreshToken)
  session.set('user', { id: user.id, login: user.login, nom: user.nom, prenom: user.prenom, admin: user.admin })
  if (federated) session.set('fournisseur', true)
  else session.unset('fournisseur')
  const headers = new Headers({ 'Set-Cookie': await commit() })
  // Another account than the one before: the next page says who is signed in now.
  if (previous && previous !== name) {
    const toast = new Headers(
      await toastHeaders(request, context, { type: 'info', key: 'login.switched', values: { name, previous } }),
    )
    for (const cookie of toast.getSetCookie()) headers.append('Set-Cookie', cookie)
  }
  return redirect(afterLogin(formData.get('redirect')), { headers })
}
