// @ts-check
// An application behind Apache httpd and mod_auth_mellon (Debian's apache2 and libapache2-mod-auth-mellon), configured
// from the portal's metadata alone: the SAML service provider the browser tests sign in to.
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { samlPair } from '../../scripts/saml-pair.mjs'

const APACHE = '/usr/sbin/apache2'
const MODULES = '/usr/lib/apache2/modules'

/** Whether this machine has Apache and mod_auth_mellon (.ci/run installs them). */
export const mellonInstalled = () => existsSync(APACHE) && existsSync(path.join(MODULES, 'mod_auth_mellon.so'))

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/**
 * Starts the application: `/prive` is protected by mellon (its page lists the MELLON_ variables the assertion set),
 * `/mellon/` is mellon's own (its metadata, its assertion consumer service, its logout). Its key pair is made here;
 * the portal's metadata is fetched from `idpMetadataUrl`.
 * @param {string} idpMetadataUrl
 */
export async function startMellon(idpMetadataUrl) {
  const dir = mkdtempSync(path.join(tmpdir(), 'portail-mellon-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const pair = await samlPair('Intranet mellon (tests)')
  writeFileSync(path.join(dir, 'sp.key'), pair.key)
  writeFileSync(path.join(dir, 'sp.crt'), pair.cert)
  const metadata = await fetch(idpMetadataUrl)
  if (!metadata.ok) throw new Error(`the portal's metadata answered ${metadata.status}`)
  writeFileSync(path.join(dir, 'idp.xml'), await metadata.text())
  writeFileSync(
    path.join(dir, 'prive.cgi'),
    [
      '#!/bin/sh',
      "printf 'Content-Type: text/html; charset=utf-8\\r\\n\\r\\n'",
      'printf \'<!doctype html><html lang="fr"><title>Intranet</title><h1>Intranet</h1><pre>\'',
      "env | grep '^MELLON_' | sort | sed 's/&/\\&amp;/g; s/</\\&lt;/g'",
      "printf '</pre>'",
      '',
    ].join('\n'),
  )
  chmodSync(path.join(dir, 'prive.cgi'), 0o755)
  /** @param {string} name @param {string} file */
  const module = (name, file) => `LoadModule ${name}_module ${MODULES}/${file}`
  writeFileSync(
    path.join(dir, 'httpd.conf'),
    [
      `ServerRoot ${dir}`,
      'ServerName 127.0.0.1',
      `Listen 127.0.0.1:${port}`,
      `PidFile ${dir}/httpd.pid`,
      `ErrorLog ${dir}/error.log`,
      'LogFormat "%r %>s" request',
      `CustomLog ${dir}/access.log request`,
      'LogLevel warn auth_mellon:info',
      module('mpm_prefork', 'mod_mpm_prefork.so'),
      module('authn_core', 'mod_authn_core.so'),
      module('authz_core', 'mod_authz_core.so'),
      module('authz_user', 'mod_authz_user.so'),
      module('alias', 'mod_alias.so'),
      module('cgi', 'mod_cgi.so'),
      module('auth_mellon', 'mod_auth_mellon.so'),
      `DocumentRoot ${dir}`,
      `ScriptAlias /prive ${dir}/prive.cgi`,
      '<Location />',
      '  MellonEndpointPath /mellon',
      `  MellonSPentityId "${base}/mellon/metadata"`,
      `  MellonSPPrivateKeyFile ${dir}/sp.key`,
      `  MellonSPCertFile ${dir}/sp.crt`,
      `  MellonIdPMetadataFile ${dir}/idp.xml`,
      // The portal posts the response from another site: mellon's cookie must come along with that post (SameSite=None,
      // which browsers take only on a Secure cookie; 127.0.0.1 is a secure context over http).
      '  MellonCookieSameSite None',
      '  MellonSecureCookie On',
      '</Location>',
      '<Location /prive>',
      '  AuthType Mellon',
      '  MellonEnable auth',
      '  Require valid-user',
      '</Location>',
      '',
    ].join('\n'),
  )
  // A process group of its own: Apache, stopping, signals its whole group, which would otherwise be the tests'.
  const child = spawn(APACHE, ['-f', path.join(dir, 'httpd.conf'), '-DFOREGROUND'], { stdio: 'ignore', detached: true })
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await fetch(`${base}/mellon/metadata`)
      if (answer.ok) {
        return {
          base,
          metadata: await answer.text(),
          errorLog: () =>
            existsSync(path.join(dir, 'error.log')) ? readFileSync(path.join(dir, 'error.log'), 'utf8') : '',
          accessLog: () =>
            existsSync(path.join(dir, 'access.log')) ? readFileSync(path.join(dir, 'access.log'), 'utf8') : '',
          stop: () => child.kill('SIGTERM'),
        }
      }
    } catch {
      // Not listening yet.
    }
    if (attempt > 50 || child.exitCode !== null) throw new Error(`Apache did not start (${dir}/error.log)`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
