import { GRANTS_MAX } from '../../../worker-api/contract/catalogue/catalogue'

/** A function that grants an application, named as the form shows it. */
export type Grant = { id: number; libelle: string; structure: { id: number; nom: string } }

/**
 * The field by which an edit form says it leaves the application's grants as they are (`kept`): it
 * is granted by more functions than a form may send, so the form does not list them.
 */
export const GRANTS_FIELD = 'grants'

/** The application form's own fields, as typed (the client's addresses one a line). */
export type ApplicationFormValues = {
  libelle: string
  icone: string
  url: string
  actif: boolean
  demandable: boolean
  protocole: string
  oidc: ClientFormValues
  saml: SamlFormValues
}

/** A SAML application's fields of the form, as typed: the metadata to paste, what the portal sends it. */
export type SamlFormValues = {
  metadata: string
  nameIdFormat: string
  signAssertion: boolean
  signResponse: boolean
  /** Each source's attribute names, separated by commas. */
  attributes: Record<string, string>
}

/** The OpenID Connect client's fields of the application form, as typed. */
export type ClientFormValues = {
  public: boolean
  redirectUris: string
  postLogoutRedirectUris: string
  initiateLoginUri: string
  backchannelLogoutUri: string
  deviceGrant: boolean
}

/**
 * What a function's `choix` input carries besides its checkbox: how to name it once the form comes
 * back from the server (without JavaScript, a function chosen in another structure than the one shown).
 */
export const choiceValue = (grant: Grant) =>
  JSON.stringify([grant.id, grant.libelle, grant.structure.id, grant.structure.nom])

/**
 * The functions a posted application form chose: the `fonctions` ticked, named by their `choix`
 * (one that names nothing readable is left out: it is shown again only if named). At most the number
 * one application may be granted by.
 */
export function grantsFrom(ticked: unknown[], choices: unknown[]): Grant[] {
  const wanted = new Set(ticked.map(Number))
  const grants = new Map<number, Grant>()
  for (const choice of choices.slice(0, 4 * GRANTS_MAX)) {
    const grant = parseChoice(choice)
    if (grant && wanted.has(grant.id) && !grants.has(grant.id)) grants.set(grant.id, grant)
  }
  return [...grants.values()].slice(0, GRANTS_MAX)
}

function parseChoice(value: unknown): Grant | null {
  if (typeof value !== 'string' || value.length > 400) return null
  try {
    const [id, libelle, structureId, nom] = JSON.parse(value) as unknown[]
    if (!Number.isSafeInteger(id) || !Number.isSafeInteger(structureId)) return null
    if (typeof libelle !== 'string' || typeof nom !== 'string') return null
    return { id: id as number, libelle, structure: { id: structureId as number, nom } }
  } catch {
    return null
  }
}
