import type { D1Migration } from '@cloudflare/vitest-pool-workers'
import type { Env as WorkerEnv } from '../../worker-api/lib/types'

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[]
      /** Key pairs made for the run (PKCS#8 and certificate, PEM): a SAML key a rotation brings, a service provider's. */
      TEST_SAML_PAIRS: [{ key: string; cert: string }, { key: string; cert: string }]
      /** The issuers of two partners' identity providers started for the run (tests/upstream-provider.mjs). */
      TEST_UPSTREAM_ISSUERS: [string, string]
      /** A webhook receiver started for the run (tests/webhook-receiver.mjs): its origin. */
      TEST_WEBHOOK_RECEIVER: string
    }
  }
}
