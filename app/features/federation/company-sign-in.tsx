import { Form, useFetcher } from '@remix-run/react'
import { Building2, LogIn } from 'lucide-react'
import { useEffect, useId } from 'react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { Alert } from '~/components/ui/alert'
import { Button } from '~/components/ui/button'
import type { ProviderButton } from '../../../worker-api/contract/federation/sign-in'

/** Why the sign-in page was sent back from a provider's start (`?fournisseur=`): said in the section. */
const REFUSALS = {
  inconnu: 'login.federation.unknown',
  erreur: 'login.federation.failed',
  attente: 'errors.TOO_MANY_ATTEMPTS',
}

/** The start of a sign-in at provider `id`, the page asked for kept (a full navigation: it leaves for the provider). */
export const providerStart = (id: number, redirect: string, mail?: string) => {
  const query = new URLSearchParams()
  if (redirect) query.set('redirect', redirect)
  if (mail) query.set('mail', mail)
  const search = query.toString()
  return `/login/fournisseur/${id}${search ? `?${search}` : ''}`
}

/** An address's domain as typed, lowercase, when it looks like one. */
const domainOf = (typed: string) => {
  const at = typed.lastIndexOf('@')
  const domain =
    at > 0
      ? typed
          .slice(at + 1)
          .trim()
          .toLowerCase()
      : ''
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain) ? domain : null
}

/**
 * Signing in with a company account (issue 63): the providers the portal lists, each a button; and a company address,
 * whose domain finds its provider — a plain GET form without JavaScript, and with it the provider's button offered as
 * soon as the identifier typed above is an address of its domain.
 */
export function CompanySignIn({
  providers,
  typed,
  redirect,
  refusal,
  mail,
}: {
  providers: ProviderButton[]
  /** The identifier typed in the sign-in form. */
  typed: string
  redirect: string
  refusal: string | null
  mail: string
}) {
  const { t } = useTranslation()
  const headingId = useId()
  const lookup = useFetcher<{ fournisseur: ProviderButton | null }>()
  const domain = domainOf(typed)
  // biome-ignore lint/correctness/useExhaustiveDependencies: asked again only when the domain changes
  useEffect(() => {
    if (!domain) return
    const timer = setTimeout(() => {
      lookup.load(`/login/fournisseur?verifier=1&mail=${encodeURIComponent(`x@${domain}`)}`)
    }, 300)
    return () => clearTimeout(timer)
  }, [domain])
  const offered = domain && lookup.state === 'idle' ? (lookup.data?.fournisseur ?? null) : null
  const refusalKey = refusal ? REFUSALS[refusal as keyof typeof REFUSALS] : undefined
  return (
    <section aria-labelledby={headingId} className="mt-2 flex flex-col gap-3 border-t pt-4">
      <h2 id={headingId} className="flex items-center gap-2 text-sm font-semibold">
        <Building2 aria-hidden className="size-4" />
        {t('login.federation.heading')}
      </h2>
      {refusalKey ? <Alert role="alert">{t(refusalKey, { seconds: 60 })}</Alert> : null}
      {offered ? (
        <Button asChild>
          <a href={providerStart(offered.id, redirect, typed.trim())} aria-live="polite">
            <LogIn aria-hidden />
            {t('login.federation.continueWith', { nom: offered.nom })}
          </a>
        </Button>
      ) : null}
      {providers.length > 0 ? (
        <ul className="flex flex-col gap-2">
          {providers.map((provider) => (
            <li key={provider.id}>
              <Button asChild variant="outline" className="w-full whitespace-normal">
                <a href={providerStart(provider.id, redirect)}>
                  {t('login.federation.continueWith', { nom: provider.nom })}
                </a>
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      <Form method="get" action="/login/fournisseur" className="flex flex-col gap-3">
        <input type="hidden" name="redirect" value={redirect} />
        <Field
          label={t('login.federation.mail')}
          hint={t('login.federation.mailHint')}
          inputProps={{
            id: 'login-company-mail',
            name: 'mail',
            type: 'email',
            maxLength: 254,
            autoComplete: 'email',
            defaultValue: mail,
          }}
        />
        <Button type="submit" variant="outline" className="self-start">
          {t('login.federation.submit')}
        </Button>
      </Form>
    </section>
  )
}
