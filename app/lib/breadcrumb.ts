/** One step of the breadcrumb: its text, and where it leads (the route's own path when omitted). */
export type Crumb = { label: string; to?: string }

/**
 * Routes declare their place in the breadcrumb with `handle = { breadcrumb: 'i18n.key' }`, or with a
 * function of their loader's data when the steps name what the server read (a structure's name).
 */
export type BreadcrumbHandle = {
  breadcrumb?: string | ((data: unknown, t: (key: string, values?: Record<string, string>) => string) => Crumb[])
}
