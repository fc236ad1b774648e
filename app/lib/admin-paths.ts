/** Spec §6: paths containing 'admin' are for administrators only. */
export const isAdminPath = (pathname: string) => pathname.split('/').includes('admin')

/**
 * The pages that act on the whole organisation (the catalogue, the function templates, the security
 * settings): for the administrators of the whole tree alone (a current post on the root structure).
 * The menu offers them to those administrators only, and their guard (`requireAdmin`)
 * refuses any other on these very paths, their forms' posts included.
 */
const ROOT_ONLY_PATHS = ['/pages/admin/applications', '/pages/admin/modeles', '/pages/admin/securite']

export const isRootOnlyPath = (pathname: string) =>
  ROOT_ONLY_PATHS.some((path) => pathname === path || pathname.startsWith(`${path}/`))

/** What the guard's 403 says on a root-only page, so that the page tells why (`PageError`). */
export const ROOT_ONLY = 'ROOT_ONLY'
