/** Where the REST API is mounted; every path of spec §7 is below it. */
export const API_BASE = '/portail-backend'

/** Items in a page of a list call when `taille` is not given (spec §9: 10 per page), API and screens alike. */
export const DEFAULT_PAGE_SIZE = 10
