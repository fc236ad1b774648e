import { data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { ArrowLeft, LogIn } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { LanguageSwitch } from '~/components/language-switch'
import { Button } from '~/components/ui/button'
import { providerStart } from '~/features/federation/company-sign-in'
import { publicApi, read } from '~/lib/api.server'
import { i18nServer } from '~/lib/i18n.server'
import { safeRedirect } from '~/lib/safe-redirect'
import { pageTitle, titleMeta } from '~/lib/title'

export const meta = titleMeta

/**
 * "Continuer avec le compte de votre entreprise": the provider answering for an address's domain. The sign-in page's
 * company address form comes here (without JavaScript) and is offered that provider's button: a link, since a form's
 * answer may not send the browser to another site (the policy's form-action 'self'). No provider: back to the sign-in
 * page, saying so. The page's script asks `?verifier=1` as the person types, and offers the button on the sign-in page.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const mail = (url.searchParams.get('mail') ?? '').trim().slice(0, 254)
  const redirectTo = safeRedirect(url.searchParams.get('redirect'), '')
  const result = await read(publicApi(request, context).rest.public.bd.fournisseur.$get({ query: { mail } }))
  const provider = result.ok ? result.data.pourMail : null
  if (url.searchParams.get('verifier') === '1') return data({ fournisseur: provider, mail, redirectTo, title: '' })
  if (!provider) {
    const back = new URLSearchParams({ fournisseur: result.ok ? 'inconnu' : 'erreur', mail })
    if (redirectTo) back.set('redirect', redirectTo)
    throw redirect(`/login?${back}`)
  }
  const t = await i18nServer.getFixedT(request)
  return data({ fournisseur: provider, mail, redirectTo, title: pageTitle(t, t('login.federation.title')) })
}

export default function CompanyProvider() {
  const { fournisseur, mail, redirectTo } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  if (!fournisseur) return null
  return (
    <CenteredCard
      eyebrow={t('app.tagline')}
      title={t('login.federation.title')}
      description={t('login.federation.offered', { nom: fournisseur.nom, mail })}
      after={<LanguageSwitch />}
    >
      <Button asChild className="self-start">
        <a href={providerStart(fournisseur.id, redirectTo, mail)}>
          <LogIn aria-hidden />
          {t('login.federation.continueWith', { nom: fournisseur.nom })}
        </a>
      </Button>
      <Link
        to={redirectTo ? `/login?redirect=${encodeURIComponent(redirectTo)}` : '/login'}
        className="inline-flex items-center gap-2 self-start text-sm text-primary underline-offset-4 hover:underline"
      >
        <ArrowLeft aria-hidden className="size-4" />
        {t('login.federation.back')}
      </Link>
    </CenteredCard>
  )
}
