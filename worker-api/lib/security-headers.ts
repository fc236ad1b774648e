/** Token-bearing pages must not leak their URL through the Referer header. */
const TOKEN_PAGES = /^\/(renewPassword|confirmMail|demo-app|launch|saml)\b/

/** Adds CSP and the other security headers of DESIGN §3 to an HTML response. */
export function securityHeaders(
  response: Response,
  options: { nonce: string; https: boolean; path: string; turnstile?: boolean; formTargets?: Iterable<string> },
) {
  const headers = new Headers(response.headers)
  // Cloudflare Turnstile, when it is the captcha, loads a script and an iframe from its own origin.
  const turnstile = options.turnstile ? ' https://challenges.cloudflare.com' : ''
  if ((headers.get('Content-Type') ?? '').includes('text/html')) {
    headers.set(
      'Content-Security-Policy',
      [
        "default-src 'self'",
        `script-src 'self' 'nonce-${options.nonce}'${turnstile}`,
        `frame-src 'self'${turnstile}`,
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "worker-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        `form-action ${["'self'", ...formOrigins(options.formTargets ?? [])].join(' ')}`,
      ].join('; '),
    )
  }
  headers.set('X-Content-Type-Options', 'nosniff')
  headers.set('Referrer-Policy', TOKEN_PAGES.test(options.path) ? 'no-referrer' : 'strict-origin-when-cross-origin')
  headers.set('X-Frame-Options', 'DENY')
  if (options.https) headers.set('Strict-Transport-Security', HSTS)
  // Pages and their data (`.data`) are per person and per moment: never kept by a browser or a proxy.
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'private, no-store')
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

const HSTS = 'max-age=63072000; includeSubDomains'

/** The origins of the addresses a page's forms post to beyond its own: http(s) only, each once. */
function formOrigins(targets: Iterable<string>): string[] {
  const origins = new Set<string>()
  for (const target of targets) {
    try {
      const url = new URL(target)
      if (url.protocol === 'https:' || url.protocol === 'http:') origins.add(url.origin)
    } catch {
      // Not an address: nothing is allowed for it.
    }
  }
  return [...origins]
}

/**
 * The headers of every REST answer (DESIGN §3), set where the route did not choose its own: JSON is
 * not sniffed as anything else, not framed, not cached, and sends no referrer.
 */
export function apiHeaders(headers: Headers, https: boolean) {
  headers.set('X-Content-Type-Options', 'nosniff')
  if (!headers.has('Content-Security-Policy')) {
    headers.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'")
    headers.set('X-Frame-Options', 'DENY')
  }
  if (!headers.has('Referrer-Policy')) headers.set('Referrer-Policy', 'no-referrer')
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store')
  if (https) headers.set('Strict-Transport-Security', HSTS)
}

/** What Sec-Fetch-Site says of a request sent from a page of another origin. */
const OTHER_SITE = new Set(['cross-site', 'same-site'])

/**
 * Cookie-authenticated forms: refuse cross-site writes (DESIGN §3). A page served with
 * `Referrer-Policy: no-referrer` makes the browser send `Origin: null` even for its own forms; the
 * browser's Sec-Fetch-Site then says whether the request is really same-origin. Without Origin (a
 * client that is no browser, or a browser that left it out), a Sec-Fetch-Site naming another site is
 * believed all the same.
 */
export function isSameOriginWrite(request: Request, url = new URL(request.url)) {
  if (request.method === 'GET' || request.method === 'HEAD') return true
  const origin = request.headers.get('Origin')
  if (!origin) return !OTHER_SITE.has(request.headers.get('Sec-Fetch-Site') ?? '')
  if (origin === 'null') return request.headers.get('Sec-Fetch-Site') === 'same-origin'
  return origin === url.origin
}

/**
 * A page served with `Referrer-Policy: no-referrer` (the reset link's) makes the browser post its own
 * form with `Origin: null`; `isSameOriginWrite` has checked it is same-origin (Sec-Fetch-Site), so
 * Remix, which compares Origin with Host on actions, is given the origin it came from.
 */
export function withOwnOrigin(request: Request, url: URL) {
  if (request.headers.get('Origin') !== 'null') return request
  const headers = new Headers(request.headers)
  headers.set('Origin', url.origin)
  return new Request(request, { headers })
}

/** The largest body a page's form sends is a few kilobytes; the rest is refused before Remix reads it. */
export const MAX_FORM_BYTES = 64 * 1024

/**
 * The request with its body read up to `limit` bytes, or null when it is larger: what a form post may
 * carry to the UI. Remix echoes submitted values back in its answers (single-fetch), and the encoder
 * of Remix v2 is open to a denial of service from large reflected input (GHSA-rxv8-25v2-qmq8, no v2
 * fix), so the size is bounded here, whether the body announces its length or not.
 */
export async function withBoundedBody(request: Request, limit = MAX_FORM_BYTES): Promise<Request | null> {
  if (request.method === 'GET' || request.method === 'HEAD' || !request.body) return request
  const declared = Number(request.headers.get('Content-Length') ?? Number.NaN)
  if (declared > limit) return null
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      return null
    }
    chunks.push(value)
  }
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  return new Request(request, { body })
}

/**
 * `withBoundedBody` for a file's upload (the import page): the body passed on as it streams rather than held, and
 * refused past `limit`, announced or not — the form reading it then fails, and the page says the file could not be
 * read. Its action answers no submitted value back.
 */
export function withStreamedBound(request: Request, limit: number): Request | null {
  if (request.method === 'GET' || request.method === 'HEAD' || !request.body) return request
  const declared = Number(request.headers.get('Content-Length') ?? Number.NaN)
  if (declared > limit) return null
  const body = byteBounded(request.body, limit, () => new Error(`The upload is larger than ${limit} bytes`))
  return new Request(request, { body })
}

/** `body` passed on as it streams, failing with `tooLarge()` once it has carried more than `limit` bytes. */
export function byteBounded(body: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error) {
  let size = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength
        if (size > limit) controller.error(tooLarge())
        else controller.enqueue(chunk)
      },
    }),
  )
}
