/** Per-host stylesheets shipped in public/styles (DESIGN §7). */
const THEMES = new Set(['default', 'portail', 'transport', 'logistique'])

/** The first label of the host picks the stylesheet; unknown labels get the default one. */
export function themeStylesheet(request: Request): string {
  const label = new URL(request.url).hostname.split('.')[0]?.toLowerCase() ?? ''
  return `/styles/${THEMES.has(label) ? label : 'default'}.css`
}
