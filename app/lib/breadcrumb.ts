/** Routes declare their place in the breadcrumb with `handle = { breadcrumb: 'i18n.key' }`. */
export type BreadcrumbHandle = { breadcrumb?: string }

/** Spec §6: paths containing 'admin' are for administrators only. */
export const isAdminPath = (pathname: string) => pathname.split('/').includes('admin')
