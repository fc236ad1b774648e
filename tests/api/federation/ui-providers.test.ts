import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FournisseurInput } from '../../../worker-api/contract/federation/providers'
import { api, okBody } from '../client'
import { browserCookieOf, createOrganisation, createUser, currentPost, db, ORIGIN, sessionFor } from '../helpers'
import { postForm, visit } from '../visit'
import { OTHER_UPSTREAM, providerDraft, registeredProvider, UPSTREAM, UPSTREAM_SECRET } from './upstream'

/**
 * The identity providers' screen (`/pages/admin/fournisseurs`, root administrators): the list as the API pages it, a
 * provider registered through the page's form (its discovery document read at a real provider, its domains typed in
 * one field), the API's refusals on their fields or as the form's message, a row changed in its panel with its secret
 * kept, and a deletion after its confirmation — all through plain form posts, as without JavaScript.
 */

const PATH = '/pages/admin/fournisseurs'

let rootToken = ''
let rootCookie = ''
let nordCookie = ''
let linked: Awaited<ReturnType<typeof createUser>>

/** The page's text as a browser shows it (React escapes quotes in the markup). */
const shown = (html: string) => html.replaceAll('&#x27;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&')

const page = async (path: string, cookie = rootCookie) => {
  const response = await visit(path, { headers: { Cookie: cookie, 'Accept-Language': 'fr' } })
  return { status: response.status, html: shown(await response.text()) }
}

/** A provider as the page's create form posts it: its domains in one field, its boxes ticked or left out. */
function formOf(draft: FournisseurInput, domaines = draft.domaines.join(', ')): Record<string, string> {
  return {
    intent: 'creer',
    nom: draft.nom,
    issuer: draft.issuer,
    clientId: draft.clientId,
    authentification: draft.authentification,
    secret: draft.secret ?? '',
    scopes: draft.scopes,
    domaines,
    premiereConnexion: draft.premiereConnexion,
    structure: draft.structure ? String(draft.structure.id) : '',
    ...(draft.confianceMfa ? { confianceMfa: 'on' } : {}),
    ...(draft.affiche ? { affiche: 'on' } : {}),
    ...(draft.actif ? { actif: 'on' } : {}),
  }
}

const post = async (fields: Record<string, string>, path = PATH, cookie = rootCookie) => {
  const answer = await postForm(path, cookie, fields)
  return { ...answer, html: shown(answer.html) }
}

const providers = () => okBody(api(rootToken).rest.bd.fournisseur.$get({ query: {} }), 200)

/** A user linked to an identity at the provider `id`, as a first sign-in there leaves them. */
async function link(id: number, userId: number) {
  await db()
    .insertInto('lien_fournisseur')
    .values({
      fournisseur_id: id,
      sub: `sub-${userId}`,
      utilisateur_id: userId,
      mail: 'agent@transports-dupont.fr',
      created_at: new Date().toISOString(),
    })
    .execute()
}

/** The attributes of the element whose id is `id`, as written in the page. */
const element = (html: string, id: string) => new RegExp(`<[a-z]+[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0] ?? ''

beforeAll(async () => {
  await createOrganisation()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  const session = await sessionFor(root.id)
  rootToken = session.accessToken
  rootCookie = await browserCookieOf({ ...root, ...session })
  const nord = await createUser({ admin: true, postes: [currentPost(2, 1)] })
  nordCookie = await browserCookieOf({ ...nord, ...(await sessionFor(nord.id)) })
  linked = await createUser({ postes: [currentPost(4, 2)] })
})

beforeEach(async () => {
  await db().deleteFrom('fournisseur').execute()
})

describe('the identity providers’ list', () => {
  it('shows each provider to a root administrator, with the addresses to declare at the provider', async () => {
    const provider = await registeredProvider(rootToken)
    await link(provider.id, linked.id)
    const { status, html } = await page(PATH)
    expect(status).toBe(200)
    expect(html).toContain("<title>Fournisseurs d'identité · Portail</title>")
    expect(html).toContain('Transports Dupont')
    expect(html).toContain(UPSTREAM)
    expect(html).toContain('transports-dupont.fr')
    expect(html).toContain("Mettre en attente d'autorisation")
    expect(html).toContain('Inscriptions dans Agence Lille')
    expect(html).toContain('1 utilisateur lié')
    expect(html).toContain('1 fournisseur d')
    expect(html).toContain(`${ORIGIN}/login/fournisseur/retour`)
    // Without JavaScript, the portal's keys for private_key_jwt are there too.
    expect(html).toContain(`${ORIGIN}/portail-backend/oidc/jwks`)
    expect(html).toContain('href="/pages/admin/fournisseurs"')
    // Searched by the API.
    expect((await page(`${PATH}?q=inconnu`)).html).toContain('Aucun fournisseur ne correspond à « inconnu ».')
    expect((await page(`${PATH}?q=dupont`)).html).toContain(UPSTREAM)
  })

  it('is the root’s: another administrator gets the page that says so, and cannot post to it', async () => {
    const refused = await page(PATH, nordCookie)
    expect(refused.status).toBe(403)
    expect(refused.html).toContain('Réservé aux administrateurs de la structure racine')
    const posted = await post(formOf(providerDraft()), PATH, nordCookie)
    expect(posted.status).toBe(403)
    expect(await db().selectFrom('fournisseur').select('id').execute()).toEqual([])
  })
})

describe('registering a provider', () => {
  it('creates it from the form, its discovery document read at the provider and its domains split', async () => {
    const draft = providerDraft({
      nom: 'Filiale Sud',
      issuer: OTHER_UPSTREAM,
      authentification: 'client_secret_post',
      premiereConnexion: 'RATTACHER',
      structure: null,
      affiche: false,
    })
    const created = await post(formOf(draft, 'Filiale-Sud.fr,  sud-logistique.fr filiale-sud.fr'))
    expect(created.status).toBe(302)
    expect(created.location).toBe(PATH)
    const [provider] = await providers()
    expect(provider).toMatchObject({
      nom: 'Filiale Sud',
      issuer: OTHER_UPSTREAM,
      clientId: 'portail',
      authentification: 'client_secret_post',
      secretDefini: true,
      scopes: 'openid email profile',
      domaines: ['filiale-sud.fr', 'sud-logistique.fr'],
      premiereConnexion: 'RATTACHER',
      structure: null,
      affiche: false,
      actif: true,
      decouverte: { tokenEndpoint: `${OTHER_UPSTREAM}/token` },
    })
  })

  it('shows a field’s refusal on its field, the form’s own checks and the API’s alike, never echoing the secret', async () => {
    // The form's check: each domain typed.
    const typed = await post(formOf(providerDraft(), 'transports-dupont.fr, pas_un.domaine'))
    expect(typed.status).toBe(400)
    expect(element(typed.html, 'fournisseur-domaines')).toContain('aria-invalid="true"')
    expect(element(typed.html, 'fournisseur-domaines')).toMatch(/aria-describedby="[^"]*fournisseur-domaines-error/)
    expect(typed.html).toMatch(
      /<ul id="fournisseur-domaines-error"[^>]*><li>pas_un\.domaine : domaine de messagerie attendu/,
    )
    expect(typed.html).toContain('Vérifiez les champs signalés : Domaines de messagerie.')
    expect(typed.html).not.toContain(UPSTREAM_SECRET)
    // The API's (VALIDATION_FAILED): no secret for a method that needs one, a scope list without openid.
    const noSecret = await post(formOf(providerDraft({ secret: undefined })))
    expect(noSecret.status).toBe(400)
    expect(element(noSecret.html, 'fournisseur-secret')).toContain('aria-invalid="true"')
    expect(noSecret.html).toMatch(/<ul id="fournisseur-secret-error"[^>]*><li>Ce champ est obligatoire<\/li>/)
    const noOpenid = await post(formOf(providerDraft({ scopes: 'email profile' })))
    expect(noOpenid.status).toBe(400)
    expect(noOpenid.html).toMatch(/<ul id="fournisseur-scopes-error"[^>]*><li>La portée openid est nécessaire<\/li>/)
    expect(noOpenid.html).not.toContain(UPSTREAM_SECRET)
    // What was typed stays, on the form's fields.
    expect(element(noOpenid.html, 'fournisseur-nom')).toContain('value="Transports Dupont"')
    expect(await db().selectFrom('fournisseur').select('id').execute()).toEqual([])
  })

  it('without JavaScript, posts the form back to search the structures, keeping what was typed but the secret', async () => {
    const searched = await post({
      ...formOf(providerDraft({ structure: null })),
      intent: 'structures',
      structureRecherche: 'Lille',
    })
    expect(searched.status).toBe(200)
    expect(element(searched.html, 'fournisseur-nom')).toContain('value="Transports Dupont"')
    const select = /<select[^>]*name="structure"[^>]*>(.*?)<\/select>/s.exec(searched.html)?.[1] ?? ''
    expect(select).toContain('Agence Lille')
    expect(select).not.toContain('Direction Sud')
    expect(searched.html).not.toContain(UPSTREAM_SECRET)
    expect(searched.html).not.toContain('role="alert"')
    expect(await db().selectFrom('fournisseur').select('id').execute()).toEqual([])
  })

  it('says a business refusal as the form’s message: an issuer another provider has', async () => {
    await registeredProvider(rootToken)
    const taken = await post(formOf(providerDraft({ nom: 'Encore Dupont', domaines: ['encore-dupont.fr'] })))
    expect(taken.status).toBe(400)
    expect(taken.html).toMatch(
      /role="alert">Un autre fournisseur d’identité a déjà l’émetteur http:\/\/127\.0\.0\.1:\d+/,
    )
    expect((await providers()).map((provider) => provider.nom)).toEqual(['Transports Dupont'])
  })
})

describe('changing a provider', () => {
  it('fills its panel in, shows what its discovery document said, and keeps its secret when none is typed', async () => {
    const provider = await registeredProvider(rootToken, { domaines: ['transports-dupont.fr', 'dupont-logistique.fr'] })
    const { status, html } = await page(`${PATH}?modifier=${provider.id}`)
    expect(status).toBe(200)
    expect(html).toContain('Modifier le fournisseur Transports Dupont')
    expect(element(html, 'modifier-nom')).toContain('value="Transports Dupont"')
    expect(element(html, 'modifier-domaines')).toContain('value="dupont-logistique.fr, transports-dupont.fr"')
    expect(element(html, 'modifier-secret')).not.toContain('value=')
    expect(html).toContain('Laissé vide, le secret actuel est conservé')
    expect(html).toContain(`${UPSTREAM}/auth`)
    expect(html).toContain(`${UPSTREAM}/token`)
    expect(html).toContain(`${UPSTREAM}/jwks`)
    expect(html).toContain(`${UPSTREAM}/session/end`)
    const saved = await post(
      {
        ...formOf(providerDraft({ nom: 'Transports Dupont Nord', secret: undefined, confianceMfa: true })),
        intent: 'modifier',
        id: String(provider.id),
        ancienNom: 'Transports Dupont',
        retour: `modifier-${provider.id}`,
      },
      `${PATH}?modifier=${provider.id}`,
    )
    expect(saved.status).toBe(302)
    expect(saved.location).toBe(`${PATH}#modifier-${provider.id}`)
    expect(await providers()).toEqual([
      expect.objectContaining({
        id: provider.id,
        nom: 'Transports Dupont Nord',
        secretDefini: true,
        confianceMfa: true,
        domaines: ['transports-dupont.fr'],
      }),
    ])
  })

  it('keeps a refusal in the panel, on its field', async () => {
    const provider = await registeredProvider(rootToken)
    const refused = await post(
      {
        ...formOf(providerDraft({ structure: null })),
        intent: 'modifier',
        id: String(provider.id),
        ancienNom: 'Transports Dupont',
      },
      `${PATH}?modifier=${provider.id}`,
    )
    expect(refused.status).toBe(400)
    expect(element(refused.html, 'modifier-structure')).toContain('aria-invalid="true"')
    expect(refused.html).toContain('id="modifier-structure-error"')
  })
})

describe('deleting a provider', () => {
  it('asks first, saying how many users are linked and that they keep their accounts, then deletes it', async () => {
    const provider = await registeredProvider(rootToken)
    await link(provider.id, linked.id)
    const asked = await page(`${PATH}?confirmer=supprimer&id=${provider.id}`)
    expect(asked.status).toBe(200)
    expect(asked.html).toContain('Supprimer le fournisseur Transports Dupont ?')
    expect(asked.html).toContain('1 utilisateur y est lié : il garde son compte')
    expect(await providers()).toHaveLength(1)
    const deleted = await post(
      { intent: 'supprimer', id: String(provider.id), nom: 'Transports Dupont', retour: '' },
      `${PATH}?confirmer=supprimer&id=${provider.id}`,
    )
    expect(deleted.status).toBe(302)
    expect(deleted.location).toBe(PATH)
    expect(await providers()).toEqual([])
    expect(await db().selectFrom('lien_fournisseur').select('sub').execute()).toEqual([])
    const kept = await db().selectFrom('utilisateur').select(['id', 'actif']).where('id', '=', linked.id).execute()
    expect(kept).toEqual([{ id: linked.id, actif: 1 }])
  })
})
