/**
 * What the UI may know of the API: the routes as one type (paths, inputs, outputs), for Hono's typed
 * client, and where the API is mounted. The UI imports the API's types from `contract/` only.
 */
export type { ApiRoutes } from '../app'
export { API_BASE } from './base'
export type { BusinessCode, ErrorBody } from './errors'
