/** A plain cookie's value in a request's `Cookie` header (the first of that name); null when it has none. */
export function cookieValue(header: string | null, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at >= 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return null
}
