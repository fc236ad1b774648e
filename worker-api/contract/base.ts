/** Where the REST API is mounted; every path of spec §7 is below it. */
export const API_BASE = '/portail-backend'
