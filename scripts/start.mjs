// `npm start`: build, migrate and seed a local D1, then serve the portal with wrangler dev.
import path from 'node:path'
import { build, ensureDevVars, migrate, root, seed, serve } from './local.mjs'

const port = Number(process.env.PORT ?? 8787)
// wrangler.toml [triggers]: every minute, and every hour at :17.
const MINUTE_CRON = '* * * * *'
const HOURLY_CRON = '17 * * * *'
const HOURLY_MINUTE = 17
const persistTo = path.join(root, '.wrangler', 'state')
const started = Date.now()

const vars = await ensureDevVars()
console.log('Building…')
build()
console.log('Applying migrations to the local D1…')
migrate(persistTo)
console.log('Loading demo data…')
const accounts = await seed(persistTo, vars.PASSWORD_PEPPER, `http://localhost:${port}`)
// The crons of wrangler.toml run here as in production (due dates, reminders, expiries, mail retries, the
// imports' invitations): wrangler dev does not run them by itself, it serves them at /__scheduled.
const { child, url } = await serve({ port, persistTo, args: ['--test-scheduled'] })
const runCron = (cron) =>
  fetch(`${url}/__scheduled?cron=${encodeURIComponent(cron)}`).catch((error) =>
    console.error(`The cron ${cron} did not run: ${error.message}`),
  )
setInterval(() => {
  runCron(MINUTE_CRON)
  if (new Date().getUTCMinutes() === HOURLY_MINUTE) runCron(HOURLY_CRON)
}, 60_000)

console.log(`
  Portail is running at ${url}  (also http://127.0.0.1:${port}; ready in ${((Date.now() - started) / 1000).toFixed(1)} s)

  Demo accounts:
${accounts.map((a) => `    ${a.login.padEnd(10)} ${a.password.padEnd(11)} ${a.note}`).join('\n')}

  API description: ${url}/portail-backend/openapi.json${
    vars.ENVIRONMENT === 'development'
      ? `\n  Mailbox (development): ${url}/dev/mails  (password-reset links and notices land here)`
      : ''
  }
  Scheduled work (wrangler.toml's crons) runs every minute, as in production.
  Press Ctrl+C to stop.
`)

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
