import { redirect } from '@remix-run/cloudflare'
import { pageCount } from './pagination'
import { urlWith } from './url'

/**
 * A paged list whose page is past its last (its last rows handled, a URL kept from a longer list) goes on to the page
 * that is now the last: every list's loader calls this once it knows its total, and the redirect it throws keeps the
 * session's `headers`. A list with nothing at all stays where it is and says it is empty.
 */
export function redirectPastLast(url: URL, page: number, total: number, shown: number, headers?: HeadersInit) {
  const last = pageCount(total)
  if (shown > 0 || last === 0 || page <= last) return
  const search = urlWith(url.searchParams, { page: last === 1 ? null : String(last) })
  throw redirect(search === '?' ? url.pathname : `${url.pathname}${search}`, { headers })
}
