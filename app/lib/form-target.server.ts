import type { AppLoadContext } from '@remix-run/cloudflare'

/**
 * Lets the page's forms post to `url`'s origin (its CSP's form-action, set by the Worker): a SAML response goes to the
 * application's address. Only a page that renders such a form calls it, for the address it renders.
 */
export function allowFormTarget(context: AppLoadContext, url: string) {
  context.formTargets?.add(url)
}
