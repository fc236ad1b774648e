import { API_BASE } from '../../contract/base'
import type { ServiceScope } from '../../contract/machines/service-accounts'
import { serviceAccountId } from '../../lib/scope'
import type { Caller } from '../../lib/types'

/**
 * What a service account's token may call on the REST API, by the scope that opens it: an explicit list
 * of route ids (the method and the path as the route is registered), so that a route added later is
 * refused to programs until it is listed here. Everything interactive — the caller's own profile,
 * password, factors, sessions and launches — is listed nowhere; nor are the security settings, the
 * reset of someone's second factor or the service accounts themselves: a program holds no proof of a
 * person, and does not make other programs.
 */
const routes = (scope: ServiceScope, list: string[]) =>
  Object.fromEntries(list.map((route) => [`${route.split(' ')[0]} ${API_BASE}${route.split(' ')[1]}`, scope]))

export const SERVICE_ROUTES: Readonly<Record<string, ServiceScope>> = {
  ...routes('api', [
    'GET /rest/bd/accueil',
    'GET /rest/bd/acces/utilisateur/:userId',
    // The catalogue (an account of a root structure, as a root administrator).
    'GET /rest/bd/application',
    'POST /rest/bd/application',
    'PUT /rest/bd/application',
    'GET /rest/bd/application/:id',
    'DELETE /rest/bd/application/:id',
    'POST /rest/bd/application/:id/secret',
    'GET /rest/bd/typestructure/fonctions',
    'GET /rest/bd/typestructure/me',
    'GET /rest/bd/typestructure/:id/fonctions',
    'PUT /rest/bd/typestructure/:id/fonctions',
    // The organisation: structures, functions, posts, users.
    'POST /rest/bd/structure',
    'PUT /rest/bd/structure',
    'GET /rest/bd/structure/user/me',
    'GET /rest/bd/structure/nom/:nom',
    'GET /rest/bd/structure/parent/:typeId',
    'GET /rest/bd/structure/:id',
    'DELETE /rest/bd/structure/:id',
    'GET /rest/bd/structure/:id/parents',
    'POST /rest/bd/fonction',
    'PUT /rest/bd/fonction',
    'GET /rest/bd/fonction/structure/:id',
    'DELETE /rest/bd/fonction/:id',
    'POST /rest/bd/poste',
    'PUT /rest/bd/poste',
    'DELETE /rest/bd/poste/suppression/:id',
    'POST /rest/bd/utilisateur',
    'GET /rest/bd/utilisateur/liste',
    'GET /rest/bd/utilisateur/structure/:idStructure',
    'PUT /rest/bd/utilisateur/state',
    'PUT /rest/bd/utilisateur/admin',
    'DELETE /rest/bd/utilisateur/suppression/:id',
    'DELETE /rest/bd/utilisateur/retablir/:id',
    'GET /rest/bd/utilisateur/:id',
    'PUT /rest/bd/utilisateur/:id',
    'POST /rest/bd/utilisateur/:id/invitation',
    'GET /rest/bd/utilisateur/:id/sessions',
    'DELETE /rest/bd/utilisateur/:id/sessions',
    // A user's links to partners' identity providers (an offboarding program removes them as an administrator).
    'GET /rest/bd/utilisateur/:id/fournisseurs',
    'DELETE /rest/bd/utilisateur/:id/fournisseurs/:fournisseurId',
    // The carriers' registrations.
    'GET /rest/bd/authorize/get/user/all',
    'POST /rest/bd/authorize/user',
    'GET /rest/bd/authorize/user/:id/fonctions',
    // What changed, for a program that polls rather than receive webhooks.
    'GET /rest/bd/evenements',
    // Moving an organisation in, and keeping it in step.
    'POST /rest/bd/import',
    'GET /rest/bd/import',
    'GET /rest/bd/import/:id',
    'GET /rest/bd/import/:id/erreurs.csv',
    'POST /rest/bd/import/:id/lancement',
    'GET /rest/bd/export/:fichier',
    // Access requests, decided by a program (a service desk) as by an administrator of its structure.
    'GET /rest/bd/demande/aTraiter',
    'GET /rest/bd/demande/:id',
    'POST /rest/bd/demande/:id/decision',
    // Access reviews, run by a program (a governance tool) as by an administrator of its structure.
    'POST /rest/bd/revue',
    'GET /rest/bd/revue',
    'GET /rest/bd/revue/:id',
    'GET /rest/bd/revue/:id/elements',
    'POST /rest/bd/revue/:id/decisions',
    'POST /rest/bd/revue/:id/decisions/tous',
    'POST /rest/bd/revue/:id/cloture',
    'GET /rest/bd/revue/:id/rapport.csv',
  ]),
  ...routes('logs', [
    'GET /rest/bd/logs/',
    'GET /rest/bd/logs/export',
    // The archived months, searched in the background.
    'POST /rest/bd/logs/recherches',
    'GET /rest/bd/logs/recherches/:id',
    'GET /rest/bd/logs/recherches/:id/entrees',
    'GET /rest/bd/logs/recherches/:id/export',
  ]),
}

/** The scopes a service account's token carries (its `cs` claim); null for anyone else's token. */
export function serviceScopes(caller: Caller): readonly string[] | null {
  if (serviceAccountId(caller.id) === null) return null
  return (caller.claims.cs ?? '').split(' ').filter(Boolean)
}

/**
 * Whether the caller may make this call: anyone but a service account; an account, on a route its token's scopes open —
 * a read-only account's token (`admin` false), only to read.
 */
export function serviceAccountMayCall(caller: Caller, method: string, routePath: string): boolean {
  const scopes = serviceScopes(caller)
  if (scopes === null) return true
  if (!serviceAccountWrites(caller, method)) return false
  const scope = SERVICE_ROUTES[`${method} ${routePath}`]
  return scope !== undefined && scopes.includes(scope)
}

/** Whether a service account's token may make a call of this method: any, an administrator account's; a read, any. */
export const serviceAccountWrites = (caller: Caller, method: string) =>
  caller.claims.admin === true || method === 'GET' || method === 'HEAD'
