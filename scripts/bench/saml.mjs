// SAML single sign-on for its scenario: a service provider of the benchmark's own, and requests of it kept by the
// portal's single sign-on service, each answered once by the portal's page.
import { deflateRawSync } from 'node:zlib'
import { d1Execute } from './database.mjs'

const ENTITY = 'http://127.0.0.1/bench/saml'
const ACS = 'http://127.0.0.1/bench/saml/acs'

/**
 * A SAML application of the benchmark's own (its requests unsigned), sent the mail and the current posts, granted to
 * the agent's functions; written between two scenarios (no portal running).
 */
export function benchSamlApplication(persistTo) {
  const sql = `
    INSERT OR IGNORE INTO application (libelle, icone, url, protocole) VALUES ('Bench SAML', 'receipt', 'http://127.0.0.1/bench/saml/', 'SAML');
    INSERT OR IGNORE INTO saml_sp (application_id, entity_id, acs, certificats, requetes_signees, format_name_id, attributs)
      SELECT id, '${ENTITY}', '[{"url":"${ACS}","index":0}]', '[]', 0, 'persistent',
        '[{"source":"mail","nom":"mail"},{"source":"postes","nom":"postes"}]'
      FROM application WHERE libelle = 'Bench SAML';
    INSERT OR IGNORE INTO fonction_application (fonction_id, application_id)
      SELECT p.fonction_id, a.id FROM poste p JOIN utilisateur u ON u.id = p.utilisateur_id, application a
      WHERE u.login = 'agent' AND a.libelle = 'Bench SAML';`
  d1Execute(persistTo, sql)
}

/**
 * `count` requests of the bench application kept by the single sign-on service at `base` (HTTP-Redirect, 20 at a
 * time): the names the portal's page answers them by.
 */
export async function samlRequests(base, count) {
  const run = Date.now()
  const names = []
  while (names.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - names.length) }, async (_, i) => {
        const xml = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_bench${run}_${names.length + i}" Version="2.0" IssueInstant="${new Date().toISOString()}" AssertionConsumerServiceURL="${ACS}"><saml:Issuer>${ENTITY}</saml:Issuer></samlp:AuthnRequest>`
        const query = new URLSearchParams({ SAMLRequest: deflateRawSync(Buffer.from(xml)).toString('base64') })
        const response = await fetch(`${base}/portail-backend/saml/sso?${query}`, { redirect: 'manual' })
        const location = response.headers.get('location') ?? ''
        const name = new URLSearchParams(location.split('?')[1] ?? '').get('demande')
        if (!name) throw new Error(`the single sign-on service answered ${response.status} ${location}`)
        return name
      }),
    )
    names.push(...batch)
  }
  return names
}
