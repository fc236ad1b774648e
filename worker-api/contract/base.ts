/** Where the REST API is mounted; every path of spec §7 is below it. */
export const API_BASE = '/portail-backend'

/** Items in a page of a list call when `taille` is not given (spec §9: 10 per page), API and screens alike. */
export const DEFAULT_PAGE_SIZE = 10

/**
 * The most entries a list call answers in its whole-list form (no `page`, DESIGN §1): past it, 400
 * LIST_TOO_LARGE, and the client asks for pages — a large organisation's history or users would
 * otherwise be a million entries in one answer.
 */
export const WHOLE_LIST_MAX = 5000
