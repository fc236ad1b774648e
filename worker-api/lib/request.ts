import { languageFromAcceptLanguage } from '../contract/language'
import { requestOrigin } from './domain'

/** What the services need to know about the HTTP request itself. */
export function requestContext(request: Request) {
  return {
    origin: requestOrigin(request),
    userAgent: request.headers.get('User-Agent'),
    ip: request.headers.get('CF-Connecting-IP'),
    language: languageFromAcceptLanguage(request.headers.get('Accept-Language')),
  }
}
