// The partner's identity provider of the callback's scenario, in a process of its own so that its work is not the
// load client's: `node scripts/bench/upstream.mjs <redirect URI>` prints its issuer, then serves until it is stopped.
import { startUpstreamProvider } from '../../tests/upstream-provider.mjs'

const [redirectUri] = process.argv.slice(2)
// Its codes live as long as the answers prepared before the run wait for it, all kept.
const { issuer } = await startUpstreamProvider({
  redirectUris: [redirectUri],
  portalJwks: { keys: [] },
  codeSeconds: 600,
  unbounded: true,
})
process.stdout.write(`${issuer}\n`)
