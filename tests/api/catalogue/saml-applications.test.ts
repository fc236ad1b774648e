import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ApplicationInput, ApplicationUpdate } from '../../../worker-api/contract/catalogue/catalogue'
import type { SamlServiceProviderInput } from '../../../worker-api/contract/saml/saml'
import { api, okBody } from '../client'
import {
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  signedInUser,
} from '../helpers'

/**
 * SAML applications in the catalogue (issue 62): POST and PUT rest/bd/application with `protocole: SAML` and a `saml`
 * object, the service provider read from its metadata or typed; what the catalogue answers of it; what is refused, on
 * the field it came from.
 */
const [, SP_PAIR] = env.TEST_SAML_PAIRS
const SP_CERT = SP_PAIR.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')
const ENTITY = 'https://erp.example.test/mellon/metadata'

const metadata = (entityId = ENTITY, extra = '') => `<?xml version="1.0"?>
<EntityDescriptor entityID="${entityId}" xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
  <SPSSODescriptor AuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${SP_CERT}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>
    <SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://erp.example.test/mellon/logout"/>
    <AssertionConsumerService index="0" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://erp.example.test/mellon/postResponse"/>${extra}
  </SPSSODescriptor>
</EntityDescriptor>`

let root: string
let agent: { id: number; token: string }
let count = 0

const draft = (saml: Partial<SamlServiceProviderInput> | null, overrides: Partial<ApplicationInput> = {}) =>
  ({
    libelle: `ERP ${++count}`,
    icone: 'receipt',
    url: 'https://erp.example.test/',
    actif: true,
    protocole: 'SAML',
    saml,
    fonctions: [{ id: 2 }],
    ...overrides,
  }) as ApplicationInput

const post = (body: unknown) =>
  call('/rest/bd/application', { method: 'POST', token: root, body: JSON.stringify(body) })
const updated = (json: ApplicationUpdate) => okBody(api(root).rest.bd.application.$put({ json }))
const created = (saml: Partial<SamlServiceProviderInput>, overrides: Partial<ApplicationInput> = {}) =>
  okBody(api(root).rest.bd.application.$post({ json: draft(saml, overrides) }), 201)

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  const signedIn = await signedInUser({ postes: [currentPost(4, 2)] })
  agent = { id: signedIn.id, token: signedIn.jwt.accessToken }
})

describe('a SAML application', () => {
  it('is registered from its metadata: what it says is read and shown, with the portal’s defaults', async () => {
    const application = await created({ metadata: metadata() })
    expect(application.protocole).toBe('SAML')
    expect(application.oidc).toBeNull()
    expect(application.saml).toEqual({
      entityId: ENTITY,
      assertionConsumerServices: ['https://erp.example.test/mellon/postResponse'],
      singleLogoutService: 'https://erp.example.test/mellon/logout',
      certificates: [{ sujet: 'CN=SAML service provider (tests)', expire: expect.stringMatching(/^20\d\d-/) }],
      authnRequestsSigned: true,
      nameIdFormat: 'email',
      signResponse: false,
      signAssertion: true,
      attributes: [],
    })
    const read = await okBody(api(root).rest.bd.application[':id'].$get({ param: { id: application.id }, query: {} }))
    expect(read.saml).toEqual(application.saml)
    const entries = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'APPLICATION_CREATION')
      .execute()
    expect(entries.map((e) => e.commentaire)).toContainEqual(
      `${application.libelle} (SAML ${ENTITY}) : Agent de quai (Agence Lille)`,
    )
    await db().deleteFrom('application').where('id', '=', application.id).execute()
  })

  it('is registered from typed facts, then changed, kept by a change without protocol, and left for the launch code', async () => {
    const typed: Partial<SamlServiceProviderInput> = {
      entityId: 'https://rh.example.test/sp',
      assertionConsumerServices: ['https://rh.example.test/acs', 'https://rh.example.test/acs2'],
      certificates: [SP_PAIR.cert],
      nameIdFormat: 'persistent',
      signResponse: true,
      attributes: [
        { source: 'mail', nom: 'urn:oid:0.9.2342.19200300.100.1.3' },
        { source: 'postes', nom: 'postes' },
      ],
    }
    const application = await created(typed)
    expect(application.saml).toMatchObject({
      entityId: 'https://rh.example.test/sp',
      assertionConsumerServices: ['https://rh.example.test/acs', 'https://rh.example.test/acs2'],
      singleLogoutService: null,
      authnRequestsSigned: false,
      nameIdFormat: 'persistent',
      signResponse: true,
      signAssertion: true,
      attributes: typed.attributes,
    })
    // A persistent name identifier the application was given.
    const user = await createUser({ postes: [] })
    const identifier = { application_id: application.id, utilisateur_id: user.id, name_id: 'p-kept', created_at: 'now' }
    await db().insertInto('saml_identifiant').values(identifier).execute()

    const base = {
      id: application.id,
      libelle: application.libelle,
      icone: 'receipt' as const,
      url: application.url,
      actif: true,
    }
    const changed = await updated({
      ...base,
      protocole: 'SAML',
      saml: { ...typed, nameIdFormat: 'transient' } as SamlServiceProviderInput,
    })
    expect(changed.saml?.nameIdFormat).toBe('transient')
    // Its persistent identifiers do not change with its settings.
    const after = await db()
      .selectFrom('saml_identifiant')
      .selectAll()
      .where('application_id', '=', application.id)
      .execute()
    expect(after).toEqual([identifier])

    const kept = await updated({ ...base, libelle: `${application.libelle} RH` })
    expect(kept.protocole).toBe('SAML')
    expect(kept.saml).toMatchObject({ nameIdFormat: 'transient' })

    // Neither metadata nor entityID: the service provider registered stays, what the portal sends changes.
    const settings = await updated({
      ...base,
      libelle: kept.libelle,
      protocole: 'SAML',
      saml: {
        nameIdFormat: 'email',
        signAssertion: true,
        signResponse: false,
        attributes: [{ source: 'nom', nom: 'sn' }],
      },
    })
    expect(settings.saml).toEqual({
      ...kept.saml,
      nameIdFormat: 'email',
      signResponse: false,
      attributes: [{ source: 'nom', nom: 'sn' }],
    })

    const code = await updated({ ...base, protocole: 'CODE' })
    expect([code.protocole, code.saml]).toEqual(['CODE', null])
    expect(
      await db().selectFrom('saml_sp').select('application_id').where('application_id', '=', application.id).execute(),
    ).toEqual([])
  })

  it('is launched by a signed response posted to its first assertion consumer service: no launch code; the launch is in the history', async () => {
    const application = await created({ metadata: metadata('https://launch.example.test/sp') })
    const launched = await okBody(
      api(agent.token).rest.bd.acces.application.$get({ query: { idApplication: application.id } }),
    )
    expect(launched.url).toBe('https://erp.example.test/mellon/postResponse')
    expect(launched.refreshToken).toBe('')
    expect(launched.saml).toMatchObject({ url: launched.url, RelayState: 'https://erp.example.test/' })
    const entries = await db()
      .selectFrom('log')
      .select('nom_log')
      .where('utilisateur_id', '=', agent.id)
      .where('nom_log', '=', application.libelle)
      .execute()
    expect(entries).toHaveLength(1)
  })
})

describe('what a SAML application may not be', () => {
  const refused = async (body: unknown, field: string, message: string) =>
    expect((await expectError(await post(body), 400, 'VALIDATION_FAILED')).attributs).toEqual([{ field, message }])

  it('a new one, or one moving to SAML, that names no service provider', async () => {
    await refused(draft({ nameIdFormat: 'email' }), 'saml.entityId', 'validation.required')
    const code = await okBody(
      api(root).rest.bd.application.$post({ json: draft(null, { protocole: 'CODE', libelle: `Code ${++count}` }) }),
      201,
    )
    const moved = await call('/rest/bd/application', {
      method: 'PUT',
      token: root,
      body: JSON.stringify({ ...draft({ nameIdFormat: 'email' }), id: code.id, libelle: code.libelle }),
    })
    expect((await expectError(moved, 400, 'VALIDATION_FAILED')).attributs).toEqual([
      { field: 'saml.entityId', message: 'validation.required' },
    ])
  })

  it('another application’s entityID, said on the field it came from', async () => {
    await created({ metadata: metadata('https://twice.example.test/sp') })
    await refused(
      draft({ metadata: metadata('https://twice.example.test/sp') }),
      'saml.metadata',
      'validation.samlEntityIdUsed',
    )
    await refused(
      draft({
        entityId: 'https://twice.example.test/sp',
        assertionConsumerServices: ['https://twice.example.test/acs'],
      }),
      'saml.entityId',
      'validation.samlEntityIdUsed',
    )
  })

  it('another application’s entityID taken between the read and the write: the same answer, nothing written', async () => {
    const racing = draft({ metadata: metadata('https://race.example.test/sp') })
    const before = await db().selectFrom('application').select('id').execute()
    const taken = () => created({ metadata: metadata('https://race.example.test/sp') })
    const answer = await call('/rest/bd/application', {
      method: 'POST',
      token: root,
      body: JSON.stringify(racing),
      env: { DB: changedBeforeWrite(taken) },
    })
    expect((await expectError(answer, 400, 'VALIDATION_FAILED')).attributs).toEqual([
      { field: 'saml.metadata', message: 'validation.samlEntityIdUsed' },
    ])
    const after = await db().selectFrom('application').select(['id', 'libelle']).execute()
    expect(after.length).toBe(before.length + 1)
    expect(after.map((a) => a.libelle)).not.toContain((racing as { libelle: string }).libelle)
  })

  it('metadata with a DOCTYPE, not well formed, or no service provider answering by HTTP-POST', async () => {
    const doctype = `<!DOCTYPE x [<!ENTITY e "e">]>${metadata('https://dtd.example.test/sp').replace(/^<\?xml[^>]*>/, '')}`
    await refused(draft({ metadata: doctype }), 'saml.metadata', 'validation.samlMetadata')
    await refused(draft({ metadata: '<EntityDescriptor' }), 'saml.metadata', 'validation.samlMetadata')
    const noPost = metadata('https://nopost.example.test/sp').replace(
      'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
      'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact',
    )
    await refused(draft({ metadata: noPost }), 'saml.metadata', 'validation.samlMetadataNotSp')
  })

  it('a typed certificate that is none, an address the browser cannot be sent to, nothing signed, no service provider', async () => {
    const typed = {
      entityId: 'https://typed.example.test/sp',
      assertionConsumerServices: ['https://typed.example.test/acs'],
    }
    await refused(
      draft({ ...typed, certificates: ['not a certificate'] }),
      'saml.certificates.0',
      'validation.samlCertificate',
    )
    await refused(
      draft({ ...typed, assertionConsumerServices: ['javascript:alert(1)'] }),
      'saml.assertionConsumerServices.0',
      'validation.samlUri',
    )
    await refused(
      draft({ ...typed, signAssertion: false, signResponse: false }),
      'saml.signAssertion',
      'validation.samlUnsigned',
    )
    await refused(draft(null), 'saml', 'validation.required')
    await refused(
      draft({ assertionConsumerServices: typed.assertionConsumerServices }),
      'saml.entityId',
      'validation.required',
    )
  })

  it('an address on this machine outside development', async () => {
    const local = draft({
      entityId: 'https://local.example.test/sp',
      assertionConsumerServices: ['http://localhost:8080/acs'],
    })
    const answer = await call('/rest/bd/application', {
      method: 'POST',
      token: root,
      body: JSON.stringify(local),
      env: { ENVIRONMENT: 'production' },
    })
    expect((await expectError(answer, 400, 'VALIDATION_FAILED')).attributs).toEqual([
      { field: 'saml.assertionConsumerServices', message: 'validation.clientUriLocal' },
    ])
  })
})
