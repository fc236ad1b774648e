import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data } from '@remix-run/cloudflare'
import { apiMessage, fieldErrors } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { formFailure, formReply, readForm, submitted } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle } from '~/lib/title'
import {
  type ApplicationIcon,
  applicationFormSchema,
  type CatalogueApplication,
  GRANTS_MAX,
  samlFormInput,
} from '../../../worker-api/contract/catalogue/catalogue'
import { SAML_ATTRIBUTE_SOURCES } from '../../../worker-api/contract/saml/saml'
import { structureChoices } from '../organisation/structure-choices.server'
import {
  type ApplicationFormValues,
  type ClientFormValues,
  GRANTS_FIELD,
  type Grant,
  grantsFrom,
  type SamlFormValues,
} from './application-grants'
import { RENEW_INTENT, type ShownSecret } from './client-secret'

/**
 * What the application form needs (root administrators): the application (when editing), the
 * structures, and the functions of the one being looked at to choose grants from. That structure
 * comes from the form when it posted itself to show another one's functions (without JavaScript,
 * what is typed and chosen then shown again), else from the URL (`?structure=`).
 */
export async function applicationFormData(request: Request, auth: Auth, id: number | null, posted?: FormData) {
  const url = new URL(request.url).searchParams
  const asked = Number(posted ? posted.get('structure') : url.get('structure'))
  const wanted = Number.isSafeInteger(asked) && asked > 0 ? asked : null
  const [application, { choices, chosen: structure }, fonctions, t] = await Promise.all([
    // One more than a form may send: an application granted by more keeps its grants (`grantsKept`).
    id === null
      ? null
      : auth.expect(auth.api.rest.bd.application[':id'].$get({ param: { id }, query: { fonctionsMax: GRANTS_MAX } })),
    structureChoices(auth, posted ?? url, wanted),
    wanted ? auth.settle(auth.api.rest.bd.fonction.structure[':id'].$get({ param: { id: wanted } })) : null,
    i18nServer.getFixedT(request),
  ])
  const values: ApplicationFormValues = posted
    ? {
        libelle: String(posted.get('libelle') ?? ''),
        icone: String(posted.get('icone') ?? ''),
        url: String(posted.get('url') ?? ''),
        actif: posted.get('actif') === 'on',
        demandable: posted.get('demandable') === 'on',
        protocole: String(posted.get('protocole') ?? 'CODE'),
        oidc: postedClient(posted),
        saml: postedProvider(posted),
      }
    : {
        libelle: application?.libelle ?? '',
        icone: application?.icone ?? '',
        url: application?.url ?? '',
        actif: application?.actif ?? true,
        demandable: application?.demandable ?? false,
        protocole: application?.protocole ?? 'CODE',
        oidc: savedClient(application?.oidc ?? null),
        saml: savedProvider(application?.saml ?? null),
      }
  const grantsKept = application && application.nbFonctions > GRANTS_MAX ? application.nbFonctions : null
  const grants: Grant[] =
    grantsKept !== null
      ? []
      : posted
        ? grantsFrom(posted.getAll('fonctions'), posted.getAll('choix'))
        : (application?.fonctions.map(({ id, libelle, structure }) => ({ id, libelle, structure })) ?? [])
  const title = application ? t('applications.editTitle', { libelle: application.libelle }) : t('applications.newTitle')
  return {
    application: application ? { id: application.id, libelle: application.libelle } : null,
    // The client as saved (its id is the portal's, shown read-only; a secret is never readable again).
    client: application?.oidc ? { clientId: application.oidc.clientId, public: application.oidc.public } : null,
    // A SAML application's service provider, shown as registered (new metadata pasted replaces it).
    saml: application?.saml ?? null,
    values,
    grants,
    grantsKept,
    ...(grantsKept !== null ? { structures: [], shown: 0, total: 0, recherche: '' } : choices),
    structure,
    fonctions: structure && fonctions?.ok ? fonctions.data.map(({ id, libelle }) => ({ id, libelle })) : [],
    constraint: getZodConstraint(applicationFormSchema),
    title: pageTitle(t, title),
  }
}

/** The client's fields as a form posted them (without JavaScript, shown again with the structure chosen). */
function postedClient(posted: FormData): ClientFormValues {
  const field = (name: string) => posted.get(`oidc.${name}`)
  const text = (name: string) => String(field(name) ?? '')
  return {
    public: field('public') === 'on',
    redirectUris: text('redirectUris'),
    postLogoutRedirectUris: text('postLogoutRedirectUris'),
    initiateLoginUri: text('initiateLoginUri'),
    backchannelLogoutUri: text('backchannelLogoutUri'),
    deviceGrant: field('deviceGrant') === 'on',
  }
}

/** The service provider's fields as a form posted them. */
function postedProvider(posted: FormData): SamlFormValues {
  const text = (name: string) => String(posted.get(`saml.${name}`) ?? '')
  return {
    metadata: text('metadata'),
    nameIdFormat: text('nameIdFormat') || 'email',
    signAssertion: text('signAssertion') === 'on',
    signResponse: text('signResponse') === 'on',
    attributes: Object.fromEntries(SAML_ATTRIBUTE_SOURCES.map((source) => [source, text(`attributes.${source}`)])),
  }
}

/** The service provider's settings as registered (the metadata is pasted again only to change it); the defaults else. */
function savedProvider(saml: CatalogueApplication['saml']): SamlFormValues {
  return {
    metadata: '',
    nameIdFormat: saml?.nameIdFormat ?? 'email',
    signAssertion: saml?.signAssertion ?? true,
    signResponse: saml?.signResponse ?? false,
    attributes: Object.fromEntries(
      SAML_ATTRIBUTE_SOURCES.map((source) => [
        source,
        (saml?.attributes ?? [])
          .filter((attribute) => attribute.source === source)
          .map((attribute) => attribute.nom)
          .join(', '),
      ]),
    ),
  }
}

/** The client's fields as saved (its addresses one a line); empty for a launch-code application. */
function savedClient(client: CatalogueApplication['oidc']): ClientFormValues {
  return {
    public: client?.public ?? false,
    redirectUris: client?.redirectUris.join('\n') ?? '',
    postLogoutRedirectUris: client?.postLogoutRedirectUris.join('\n') ?? '',
    initiateLoginUri: client?.initiateLoginUri ?? '',
    backchannelLogoutUri: client?.backchannelLogoutUri ?? '',
    deviceGrant: client?.deviceGrant ?? false,
  }
}

/**
 * The application form's post: Save (`intent=application`); on the edit page, the renewal of its
 * client's secret (`intent=secret`, after its confirmation); or, without JavaScript, "show its
 * functions" (`intent=fonctions`): the form again, for the structure chosen, with what was typed and chosen.
 */
export async function applicationFormAction(request: Request, auth: Auth, id: number | null) {
  const form = await readForm(request)
  if (id !== null && form.get('intent') === RENEW_INTENT) return renewSecret(form, auth, id)
  if (form.get('intent') !== 'fonctions') return saveApplication(form, auth, id)
  const reloaded = await applicationFormData(request, auth, id, form)
  return data({ ...reloaded, intent: 'fonctions' as const }, { headers: await auth.headers() })
}

/**
 * Saves the form (POST or PUT rest/bd/application, its protocol and client as chosen): the name taken
 * lands on its field, an address refused on its own (`oidc.redirectUris.1` is the form's
 * `oidc.redirectUris[1]`), an unknown function (deleted meanwhile) on the grants; success goes back to
 * the catalogue with a notice — or, when the save made the client a secret, shows it this once.
 */
async function saveApplication(form: FormData, auth: Auth, id: number | null) {
  const submission = parseApplication(form)
  if (submission.status !== 'success') return formFailure('application', submission, { headers: await auth.headers() })
  const { libelle, icone, url, actif, demandable, protocole, oidc, saml, fonctions } = submission.value
  const json = {
    libelle,
    icone: icone as ApplicationIcon,
    url,
    actif,
    demandable,
    protocole,
    // The client's fields of a launch-code application are not sent: it has none.
    oidc: protocole === 'OIDC' ? (oidc ?? null) : null,
    // No metadata pasted: on a change, the service provider registered is kept (what the portal sends changes).
    saml: protocole === 'SAML' ? samlFormInput(saml) : null,
    fonctions: fonctions.map((fonction) => ({ id: fonction })),
  }
  // Granted by more functions than a form may send: the form did not list them, they stay as they are.
  const kept = form.get(GRANTS_FIELD) === 'kept'
  const result =
    id === null
      ? await auth.settle(auth.api.rest.bd.application.$post({ json }))
      : await auth.settle(
          auth.api.rest.bd.application.$put({
            json: {
              ...json,
              id,
              ...(kept ? { fonctions: undefined } : {}),
            },
          }),
        )
  if (!result.ok) {
    const fields = fieldErrors(result)
    if (fields && Object.keys(fields).length > 0) {
      const reply = submission.reply({ fieldErrors: formFieldErrors(fields) })
      return formReply('application', reply, null, await auth.headers())
    }
    return formFailure('application', submission, {
      failure: result,
      fallback: 'errors.saveFailed',
      onField: { APPLICATION_LIBELLE_ALREADY_USED: 'libelle' },
      headers: await auth.headers(),
    })
  }
  const { oidc: client } = result.data
  if (client?.clientSecret) {
    return showSecret(auth, {
      event: id === null ? 'created' : 'saved',
      application: { id: result.data.id, libelle: result.data.libelle },
      clientId: client.clientId,
      clientSecret: client.clientSecret,
    })
  }
  return auth.redirectWithToast('/pages/admin/applications', {
    type: 'success',
    key: id === null ? 'applications.created' : 'applications.saved',
    values: { libelle: result.data.libelle },
  })
}

/** The form as conform reads it; a hand-made post conform cannot read (`oidc` and `oidc.public`) is a 400. */
function parseApplication(form: FormData) {
  try {
    return parseWithZod(form, { schema: applicationFormSchema })
  } catch {
    throw new Response('Malformed form', { status: 400 })
  }
}

/**
 * The API's field errors by the form's names: an address of a list by its place (`oidc.redirectUris.1`
 * is `oidc.redirectUris[1]`), any error about a granting function on the grants.
 */
function formFieldErrors(fields: Record<string, string[]>): Record<string, string[]> {
  const byName: Record<string, string[]> = {}
  for (const [field, errors] of Object.entries(fields)) {
    const name = field.startsWith('fonctions')
      ? 'fonctions'
      : field.startsWith('saml.')
        ? samlFieldName(field)
        : field.replace(/\.(\d+)(?=\.|$)/g, '[$1]')
    byName[name] = [...(byName[name] ?? []), ...errors]
  }
  return byName
}

/**
 * The form's field of an API error about the service provider: what the form does not type (its entityID, services,
 * certificates) comes from the metadata pasted; an attribute's, on the attributes' group.
 */
function samlFieldName(field: string): string {
  const [, name = ''] = field.split('.')
  if (name === 'attributes') return `saml.${name}`
  return SAML_OWN_FIELDS.has(name) ? field : `saml.${'metadata'}`
}

/** The service provider's fields the form types itself (the others come from its metadata). */
const SAML_OWN_FIELDS = new Set(['nameIdFormat', 'signAssertion', 'signResponse'])

/**
 * POST rest/bd/application/{id}/secret, after its confirmation: the new secret shown this once. A
 * failure (a public client has none) is the renewal form's message.
 */
async function renewSecret(form: FormData, auth: Auth, id: number) {
  const result = await auth.settle(auth.api.rest.bd.application[':id'].secret.$post({ param: { id } }))
  if (!result.ok) {
    const message = apiMessage(result, 'applications.oidc.renewFailed')
    return formReply(RENEW_INTENT, submitted(form).reply(), message, await auth.headers())
  }
  return showSecret(auth, {
    event: 'renewed',
    application: { id, libelle: String(form.get('libelle') ?? '') },
    clientId: result.data.clientId,
    clientSecret: result.data.clientSecret,
  })
}

/**
 * The page that shows a client's secret once: the action's answer itself (data, not a redirect), so
 * that the secret is in no URL, no history entry's address and no cookie.
 */
async function showSecret(auth: Auth, shown: Omit<ShownSecret, 'intent'>) {
  return data<ShownSecret>({ intent: 'secretShown', ...shown }, { headers: await auth.headers() })
}
