import { isRouteErrorResponse } from '@remix-run/react'
import { ROOT_ONLY } from './menu'

/** Every title `pageErrorKeys` may give. */
export const PAGE_ERROR_TITLES = [
  'pageError.rootOnlyTitle',
  'pageError.forbiddenTitle',
  'common.notFoundTitle',
  'common.errorTitle',
] as const

/**
 * Why a page could not be shown, as the keys of its heading (its title too) and of its text: a page
 * of the whole organisation (403 `ROOT_ONLY`), another part of the organisation (403), an unknown
 * page (404), anything else a technical error.
 */
export function pageErrorKeys(error: unknown): readonly [title: string, text: string] {
  const status = isRouteErrorResponse(error) ? error.status : 500
  if (status === 403 && isRouteErrorResponse(error) && error.data === ROOT_ONLY) {
    return ['pageError.rootOnlyTitle', 'pageError.rootOnly']
  }
  if (status === 403) return ['pageError.forbiddenTitle', 'pageError.forbidden']
  if (status === 404) return ['common.notFoundTitle', 'pageError.notFound']
  return ['common.errorTitle', 'errors.technical']
}
