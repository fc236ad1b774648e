import { useTranslation } from 'react-i18next'
import { Button } from '~/components/ui/button'
import { useNonce } from '~/lib/nonce'

/**
 * A form posted to another site by itself (SAML's HTTP-POST binding): its fields hidden, sent by a one-line script as
 * soon as the page is read; without JavaScript, by its button. The page's CSP lets forms post to that address
 * (`allowFormTarget`).
 */
export function AutoPost({
  action,
  fields,
  name,
  signingOut = false,
}: {
  action: string
  fields: Record<string, string | null>
  name: string
  /** A logout message rather than a sign-in's response: the page says so. */
  signingOut?: boolean
}) {
  const { t } = useTranslation()
  const nonce = useNonce()
  return (
    <main className="mx-auto flex max-w-lg flex-col gap-3 p-6" aria-busy="true">
      <form id="auto-post" method="post" action={action} className="flex flex-col gap-3">
        {Object.entries(fields).map(([field, value]) =>
          value === null ? null : <input key={field} type="hidden" name={field} value={value} />,
        )}
        <h1 className="font-semibold text-xl">{t(signingOut ? 'samlSso.signingOut' : 'samlSso.posting', { name })}</h1>
        <p className="text-muted-foreground text-sm">{t('samlSso.postingHint')}</p>
        <Button type="submit" className="self-start">
          {t(signingOut ? 'samlSso.signingOutContinue' : 'samlSso.continue', { name })}
        </Button>
      </form>
      <script
        nonce={nonce}
        // A constant line of script, allowed by the page's nonce.
        dangerouslySetInnerHTML={{ __html: "document.getElementById('auto-post').submit()" }}
      />
    </main>
  )
}
