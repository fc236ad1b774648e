// A key pair and self-signed certificate for the SAML identity provider or a test's service provider, made on this
// machine (never published): `npm start` writes one to .dev.vars, the API tests make theirs per run.
import 'reflect-metadata'
import { generateKeyPairSync, webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'

x509.cryptoProvider.set(webcrypto)

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }

/**
 * An RSA 2048 key (PKCS#8 PEM) and its self-signed certificate (PEM), valid `days` from yesterday (a clock a little
 * behind still accepts it).
 * @param {string} commonName
 * @param {number} [days]
 * @param {number} [bits] the key's size (a test's weak key: 1024)
 * @returns {Promise<{ key: string, cert: string }>}
 */
export async function samlPair(commonName, days = 3650, bits = 2048) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits })
  const keys = {
    privateKey: await webcrypto.subtle.importKey(
      'pkcs8',
      privateKey.export({ type: 'pkcs8', format: 'der' }),
      RSA,
      true,
      ['sign'],
    ),
    publicKey: await webcrypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), RSA, true, [
      'verify',
    ]),
  }
  const notBefore = new Date(Date.now() - 86_400_000)
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: webcrypto
      .getRandomValues(new Uint8Array(8))
      .reduce((hex, b) => hex + b.toString(16).padStart(2, '0'), '7f'),
    name: `CN=${commonName}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + days * 86_400_000),
    signingAlgorithm: RSA,
    keys,
    // A signing key (and an extensions field that is not empty, which RFC 5280 forbids).
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  })
  return { key: String(privateKey.export({ type: 'pkcs8', format: 'pem' })), cert: certificate.toString('pem') }
}
