import { API_BASE } from '../../contract/base'
import { DEVICE_CODE_GRANT } from '../../contract/oidc/oidc'
import { ID_TOKEN_ALG } from '../../lib/oidc-keys'
import { ASSERTION_ALGORITHMS } from '../machines/client-credentials'
import { SCOPE_CLAIMS, SCOPES } from './claims'

/** Where the provider's endpoints are, under an issuer (the origin a request came to, DESIGN §4b). */
export function oidcEndpoints(issuer: string) {
  return {
    authorization_endpoint: `${issuer}/oidc/authorize`,
    end_session_endpoint: `${issuer}/oidc/logout`,
    token_endpoint: `${issuer}${API_BASE}/oidc/token`,
    userinfo_endpoint: `${issuer}${API_BASE}/oidc/userinfo`,
    jwks_uri: `${issuer}${API_BASE}/oidc/jwks`,
    registration_endpoint: `${issuer}${API_BASE}/oidc/register`,
    device_authorization_endpoint: `${issuer}${API_BASE}/oidc/device_authorization`,
  }
}

/** OpenID Connect Discovery 1.0 §3: what a client needs to know, with the issuer byte for byte. */
export function discoveryDocument(issuer: string) {
  return {
    issuer,
    ...oidcEndpoints(issuer),
    scopes_supported: [...SCOPES],
    claims_supported: [
      ...new Set([...Object.values(SCOPE_CLAIMS).flat(), 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid']),
    ],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ID_TOKEN_ALG],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: false,
    ui_locales_supported: ['fr', 'en'],
  }
}
