/** The OpenID Connect demo application's address and client id (its server side: demo-oidc.server.ts). */
export const DEMO_PATH = '/demo-app/oidc'
export const DEMO_CLIENT_ID = 'demo-oidc'
