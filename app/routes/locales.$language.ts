import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { type Language, languages } from '~/lib/i18n'
import { wordsResponse } from '~/lib/words.server'

/** One language's words, which a browser fetches as its page starts (app/entry.client.tsx). */
export function loader({ params, request }: LoaderFunctionArgs) {
  const language = params.language as Language
  if (!languages.includes(language)) return new Response('Not Found', { status: 404 })
  return wordsResponse(language, new URL(request.url).searchParams.get('v'))
}
