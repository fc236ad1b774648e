import { Form, useNavigation, useSubmit } from '@remix-run/react'
import { Fingerprint, Pencil, Plus } from 'lucide-react'
import { type FormEvent, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import type { Message } from '~/lib/api-errors'
import { displayDateTime } from '~/lib/dates'
import { type FormReply, posted, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import { passkeyAttestation, passkeysSupported } from './passkeys'
import { ProofFields, ProofForm } from './second-factor'

/** One of the user's passkeys as `GET rest/bd/mfa` lists it. */
export type PasskeyShown = { id: string; nom: string; creation: string; derniereUtilisation: string | null }

/** What the page's action said about a passkey form: which one (the `id` it posted), and why it refused. */
export type PasskeyReply = FormReply<string, unknown>

/**
 * The user's passkeys: each named, with when it was added and last used, renamed or removed (the
 * removal with a proof, like the app's); a new one added with the page's script (WebAuthn is a
 * script's API: without JavaScript the page says so and lists them).
 */
export function PasskeysCard({
  passkeys,
  totp,
  reply,
}: {
  passkeys: PasskeyShown[]
  totp: boolean
  reply: PasskeyReply | null
}) {
  const { t } = useTranslation()
  return (
    <Card id="passkeys">
      <CardHeader>
        <CardTitle>{t('mfa.passkeys.title')}</CardTitle>
        <CardDescription>{t('mfa.passkeys.intro')}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {passkeys.length === 0 ? (
          <p className="text-sm text-muted-foreground">{t('mfa.passkeys.none')}</p>
        ) : (
          <ul className="flex flex-col gap-3" aria-label={t('mfa.passkeys.title')}>
            {passkeys.map((passkey, index) => (
              <PasskeyItem
                key={passkey.id}
                passkey={passkey}
                index={index}
                totp={totp}
                reply={reply && posted(reply, 'id') === passkey.id ? reply : null}
              />
            ))}
          </ul>
        )}
        <AddPasskey totp={totp} error={reply?.intent === 'passkey-add' ? reply.error : null} />
      </CardContent>
    </Card>
  )
}

function PasskeyItem({
  passkey,
  index,
  totp,
  reply,
}: {
  passkey: PasskeyShown
  index: number
  totp: boolean
  reply: PasskeyReply | null
}) {
  const { t } = useTranslation()
  const renaming = usePendingIntent('passkey-rename', passkey.id)
  const renameError = reply?.intent === 'passkey-rename' && reply.error ? t(reply.error.key, reply.error.values) : null
  return (
    <li className="flex flex-col gap-3 rounded-md border p-4" aria-labelledby={`cle-${index}-nom`}>
      <p id={`cle-${index}-nom`} className="flex items-center gap-2 font-medium break-words">
        <Fingerprint aria-hidden className="size-4 shrink-0" />
        {passkey.nom}
      </p>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-muted-foreground">{t('mfa.passkeys.added')}</dt>
        <dd className="tabular-nums">{displayDateTime(passkey.creation)}</dd>
        <dt className="text-muted-foreground">{t('mfa.passkeys.lastUsed')}</dt>
        <dd className="tabular-nums">
          {passkey.derniereUtilisation ? displayDateTime(passkey.derniereUtilisation) : t('mfa.passkeys.never')}
        </dd>
      </dl>
      <details className="rounded-md border p-4" open={Boolean(renameError)}>
        <summary className="cursor-pointer font-medium">{t('mfa.passkeys.rename', { nom: passkey.nom })}</summary>
        <Form
          method="post"
          action="/pages/user/securite#passkeys"
          noValidate
          className="mt-4 flex max-w-sm flex-col gap-4"
        >
          <input type="hidden" name="intent" value="passkey-rename" />
          <input type="hidden" name="id" value={passkey.id} />
          <Field
            label={t('mfa.passkeys.name')}
            errors={renameError ? [renameError] : undefined}
            inputProps={{
              id: `cle-${index}-renommer`,
              name: 'nom',
              type: 'text',
              required: true,
              maxLength: 60,
              defaultValue: passkey.nom,
            }}
          />
          <div>
            <SubmitButton icon={Pencil} pending={renaming} pendingLabel={t('mfa.passkeys.renaming')}>
              {t('mfa.passkeys.renameSubmit')}
            </SubmitButton>
          </div>
        </Form>
      </details>
      <ProofForm
        intent="passkey-remove"
        id={`cle-${index}-retrait`}
        anchor="passkeys"
        fields={{ id: passkey.id }}
        withCode={totp}
        error={reply?.intent === 'passkey-remove' ? reply.error : null}
        summary={t('mfa.passkeys.remove', { nom: passkey.nom })}
        note={t('mfa.passkeys.removeNote')}
        submit={t('mfa.passkeys.removeSubmit')}
        pending={t('mfa.passkeys.removing')}
        destructive
      />
    </li>
  )
}

/**
 * A new passkey: its name and the proof, then the browser's prompt (the options are asked with the
 * proof first: a refused one leaves nothing in the authenticator), then the answer sent to the page's
 * action.
 */
function AddPasskey({ totp, error: refused }: { totp: boolean; error: Message | null }) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const submit = useSubmit()
  const navigation = useNavigation()
  const [asking, setAsking] = useState(false)
  const [error, setError] = useState<Message | null>(null)
  // Open once the person opened it, or a refusal is to be read; a new attempt keeps it open.
  const [open, setOpen] = useState(Boolean(refused))
  const [nameError, setNameError] = useState<string | null>(null)
  const sending = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'passkey-add'
  const busy = asking || sending
  const shown = error ?? refused
  const message = shown ? t(shown.key, shown.values) : null
  // A refusal to read opens the form (a new attempt keeps it open, its prompt's label in sight).
  useEffect(() => {
    if (shown) setOpen(true)
  }, [shown])

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const element = event.currentTarget
    const data = new FormData(element)
    const nom = String(data.get('nom') ?? '').trim()
    if (nom === '') {
      setNameError(t('mfa.passkeys.nameNeeded'))
      element.querySelector<HTMLInputElement>('input[name="nom"]')?.focus()
      return
    }
    setNameError(null)
    const proof: Record<string, string> = {}
    for (const name of ['code', 'motDePasse']) {
      const value = data.get(name)
      if (typeof value === 'string' && value.trim() !== '') proof[name] = value
    }
    setError(null)
    setAsking(true)
    const result = await passkeyAttestation(proof)
    setAsking(false)
    if (!result.ok) {
      setError(result.error)
      const password = element.querySelector<HTMLInputElement>('input[name="motDePasse"]')
      if (password) password.value = ''
      return
    }
    submit(
      { intent: 'passkey-add', nom, reponse: JSON.stringify(result.answer) },
      { method: 'post', action: '/pages/user/securite#passkeys' },
    )
  }

  return (
    <details className="rounded-md border p-4" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="cursor-pointer font-medium">{t('mfa.passkeys.add')}</summary>
      {!hydrated ? (
        <p className="mt-4 text-sm">{t('mfa.passkeys.needsScript')}</p>
      ) : !passkeysSupported() ? (
        <p className="mt-4 text-sm">{t('mfa.passkeys.unsupported')}</p>
      ) : (
        <form onSubmit={onSubmit} noValidate className="mt-4 flex max-w-sm flex-col gap-4">
          <Field
            label={t('mfa.passkeys.name')}
            hint={t('mfa.passkeys.nameHint')}
            errors={nameError ? [nameError] : undefined}
            inputProps={{ id: 'cle-nom', name: 'nom', type: 'text', required: true, maxLength: 60 }}
          />
          <ProofFields withCode={totp} id="cle-ajout" error={message} />
          <div>
            <SubmitButton
              icon={Plus}
              pending={busy}
              pendingLabel={asking ? t('mfa.passkeys.asking') : t('mfa.passkeys.adding')}
              className="h-auto whitespace-normal"
            >
              {t('mfa.passkeys.addSubmit')}
            </SubmitButton>
          </div>
        </form>
      )}
    </details>
  )
}
