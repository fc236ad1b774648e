import { availableParallelism } from 'node:os'
import path from 'node:path'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers'
import { defineConfig } from 'vitest/config'
import { samlPair } from './scripts/saml-pair.mjs'
import { publicJwks, startUpstreamProvider } from './tests/upstream-provider.mjs'
import { startWebhookReceiver } from './tests/webhook-receiver.mjs'

/** A test-only ES256 key of the OpenID Connect provider (and of the portal's private_key_jwt at a partner's). */
const OIDC_SIGNING_KEY =
  '{"kty":"EC","x":"WOWtQZCV4hTGTHtXJESHu9OavdnCHkyHSVhoxtsAHcA","y":"tx2FK5kDEn9SRW66sy2H25_qtvrsgQfe1rMHbQSPJYQ","crv":"P-256","d":"GKzhHeGbyj7QpE5_-iKGU7Gp7I-cqnyNwGJP5SfXx_A"}'

/**
 * API tests run inside workerd against a real local D1 with the real migrations, one per file; so do
 * the tests of the UI's server glue that talks to the API.
 */
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'))
  // The SAML identity provider's key and certificate, made for this run.
  const saml = await samlPair('Portail SAML IdP (tests)')
  // Two more: a key a rotation brings, and a service provider's.
  const others = [await samlPair('Portail SAML IdP, next (tests)'), await samlPair('SAML service provider (tests)')]
  // Two partners' identity providers (panva's oidc-provider) on free ports of this machine, for the run.
  const upstream = {
    redirectUris: ['http://localhost:8787/login/fournisseur/retour'],
    postLogoutRedirectUris: ['http://localhost:8787/login'],
    portalJwks: await publicJwks(OIDC_SIGNING_KEY),
    unref: true,
  }
  const partners = [await startUpstreamProvider(upstream), await startUpstreamProvider(upstream)]
  // An integrator's webhook receiver, verifying each delivery with the Standard Webhooks library.
  const receiver = await startWebhookReceiver({ unref: true })
  return {
    plugins: [
      cloudflareTest({
        miniflare: {
          compatibilityDate: '2025-09-01',
          compatibilityFlags: ['nodejs_compat'],
          d1Databases: ['DB'],
          // The history's archive (wrangler.toml), a local R2 bucket per file.
          r2Buckets: ['ARCHIVE'],
          // The jobs queue, as wrangler.toml binds it (its messages are delivered by tests/api/jobs-queue.ts).
          queueProducers: { JOBS: { queueName: 'portail-jobs' } },
          bindings: {
            ENVIRONMENT: 'test',
            JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789abcdef',
            SESSION_SECRET: 'test-session-secret-0123456789abcdef0123456789',
            PASSWORD_PEPPER: 'test-pepper-0123456789abcdef0123456789abcdef',
            CAPTCHA_HMAC_KEY: 'test-captcha-key-0123456789abcdef0123456789',
            CAPTCHA_PROVIDER: 'altcha',
            CAPTCHA_MAX_NUMBER: '500',
            MAIL_PROVIDER: 'log',
            // Every test file's requests come from one client (most without an address, which all
            // share one key): the per-client limits are tested with their real values where they matter.
            LOGIN_RATE_PER_MINUTE: '1000',
            FORGOT_RATE_PER_MINUTE: '1000',
            QUESTION_RATE_PER_MINUTE: '1000',
            REGISTRATION_RATE_PER_MINUTE: '1000',
            // Per user, not per client: the fuzz test's users post far more than a person would.
            CLIENT_LOG_RATE_PER_MINUTE: '1000',
            // The carriers of tests/api/helpers.ts `createOrganisation`: type 4 under the agencies, new ones in Agence Lille.
            CARRIER_TYPE_ID: '4',
            CARRIER_PARENT_ID: '4',
            OIDC_SIGNING_KEY,
            FOURNISSEUR_SECRET_KEY: 'test-fournisseur-key-0123456789abcdef0123456789',
            WEBHOOK_SECRET_KEY: 'test-webhook-key-0123456789abcdef0123456789',
            TEST_UPSTREAM_ISSUERS: partners.map((partner) => partner.issuer),
            TEST_WEBHOOK_RECEIVER: receiver.origin,
            SAML_IDP_KEY: saml.key,
            SAML_IDP_CERT: saml.cert,
            TEST_SAML_PAIRS: others,
            TEST_MIGRATIONS: migrations,
          },
        },
      }),
    ],
    resolve: {
      // Inside the pool, @remix-run/cloudflare (CommonJS) must get the CommonJS builds of these.
      alias: {
        '~': path.join(import.meta.dirname, 'app'),
        '@remix-run/server-runtime': path.join(
          import.meta.dirname,
          'node_modules/@remix-run/server-runtime/dist/index.js',
        ),
        '@remix-run/router': path.join(import.meta.dirname, 'node_modules/@remix-run/router/dist/router.cjs.js'),
        // The multipart parser of `unstable_parseMultipartFormData` (the import page's upload).
        '@web3-storage/multipart-parser': path.join(
          import.meta.dirname,
          'node_modules/@web3-storage/multipart-parser/cjs/src/index.js',
        ),
      },
    },
    test: {
      include: ['tests/api/**/*.test.ts'],
      // Two files at a time even on two cores (vitest would take one): much of a file's time is
      // waiting on workerd and D1, so the suite takes two thirds of the time.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      // A test that signs in five times (PBKDF2 each) or reads a scope of 1 000 users takes seconds on a loaded two-core
      // machine: the time it needs, where 5 s failed it for the load alone. No test waits on a timer to pass.
      testTimeout: 30_000,
      // Each file starts from an empty database, migrated (tests/api/setup.ts).
      setupFiles: ['tests/api/setup.ts'],
      // The files of a worker share its modules: the Worker, Remix and their libraries are loaded once per
      // worker, not once per file (that loading was four fifths of the suite's time). What a file must not
      // inherit is its database, which setup.ts empties; no module keeps a state a test relies on.
      isolate: false,
    },
  }
})
