import { sql } from 'kysely'
import {
  newSamlLogoutSequence,
  SAML_LOGOUT_SECONDS,
  type SamlLogoutMessage,
  type SamlLogoutStep,
} from '../../contract/saml/saml'
import { type DB, namedBatch } from '../../db/client'
import { uniqueViolation } from '../../lib/query'
import { SamlInputError } from '../../lib/saml/xml'
import { samlEnabled, samlSigner } from '../../lib/saml-keys'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'
import { liveToken } from '../sign-in/sessions'
import type { SamlMessage, SigningServiceProvider } from './inbound'
import {
  checkLogoutRequest,
  checkLogoutResponse,
  type LogoutRequest,
  logoutRequestXml,
  logoutResponseXml,
  receiveLogoutMessage,
  redirectBinding,
  signedPostValue,
} from './logout-messages'
import { NAME_ID_FORMATS, samlEndpoints } from './metadata'
import { messageId } from './response'

/**
 * Single logout (SAML 2.0 Profiles §4.4; issue 62). A portal session that ends with its user present tells, through
 * the browser, each SAML application it signed into: the portal's page walks the browser through a logout sequence, one
 * signed LogoutRequest per application, each application answering back to the single logout service. An application
 * may itself ask the portal to log its user out: the session it names ends, the others are told the same way, and it is
 * answered last. What is to be told is written when the session ends, in the batch that ends it (migration 0037).
 */

/** How long a logout sequence may take, from the session's end to its last answer. */
export const LOGOUT_SEQUENCE_SECONDS = SAML_LOGOUT_SECONDS
/** The most portal sessions one logout request ends (a name identifier without session index names all of them). */
export const LOGOUT_MAX_SESSIONS = 10

/** The portal's page that walks the browser through a logout sequence. */
export const LOGOUT_PAGE = '/saml/deconnexion'

/** A SAML application's service provider, as single logout reads it (switched off, it may still log its users out). */
const sloProviders = (db: DB) =>
  db
    .selectFrom('saml_sp as sp')
    .innerJoin('application as a', 'a.id', 'sp.application_id')
    .select(['sp.application_id', 'a.libelle', 'sp.entity_id', 'sp.certificats', 'sp.slo_url', 'sp.slo_binding'])
    .where('a.protocole', '=', 'SAML')

type SloProvider = Awaited<ReturnType<ReturnType<typeof sloProviders>['executeTakeFirstOrThrow']>>

const signing = (row: SloProvider): SigningServiceProvider => ({
  entityId: row.entity_id,
  certificates: JSON.parse(row.certificats) as string[],
})

/**
 * The single logout service (GET or POST /saml/slo): an application's logout request, or its answer to the portal's.
 * The browser goes on to the logout page; a request starts a new sequence (`suite`, which the browser is given in its
 * cookie). A refusal is a `SamlInputError` naming its reason.
 */
export async function receiveLogout(ctx: Ctx, message: SamlMessage): Promise<{ suite: string | null }> {
  if (!samlEnabled(ctx.env)) throw new SamlInputError('OFF', 'SAML is not configured')
  const incoming = receiveLogoutMessage(message)
  const destination = samlEndpoints(ctx.request.origin).slo
  const now = new Date()
  const db = ctx.db
  if (incoming.kind === 'request') {
    const { received } = incoming
    const row = received.issuer
      ? await sloProviders(db).where('sp.entity_id', '=', received.issuer).executeTakeFirst()
      : undefined
    const request = checkLogoutRequest(received, row ? signing(row) : null, { destination, now })
    return { suite: await endSessionsNamed(ctx, row as SloProvider, request, now) }
  }
  const { received } = incoming
  const inResponseTo = received.root.getAttribute('InResponseTo')
  const { provider, sent } = await namedBatch(ctx.d1, {
    provider: sloProviders(db).where('sp.entity_id', '=', received.issuer),
    sent: db
      .selectFrom('saml_deconnexion as d')
      .innerJoin('saml_sp as sp', 'sp.application_id', 'd.application_id')
      .select('d.id')
      .where('d.request_id', '=', inResponseTo)
      .where('sp.entity_id', '=', received.issuer)
      .where('d.statut', '=', 'ENVOYEE'),
  })
  const row = provider?.results[0] as SloProvider | undefined
  const answer = checkLogoutResponse(received, row ? signing(row) : null, { destination, now })
  const waiting = sent?.results[0] as { id: number } | undefined
  if (!waiting || answer.inResponseTo !== inResponseTo) {
    throw new SamlInputError('UNEXPECTED', 'The logout response answers no logout request of the portal’s')
  }
  await db
    .updateTable('saml_deconnexion')
    .set({ statut: answer.success ? 'FAITE' : 'REFUSEE', repondue_at: now.toISOString() })
    .where('id', '=', waiting.id)
    .where('statut', '=', 'ENVOYEE')
    .execute()
  return { suite: null }
}

/**
 * An application's logout request, checked: the portal sessions it names (its name identifier, and its session indexes
 * if any) end, with a DECONNEXION entry each; the other applications they signed into are put in a new logout sequence,
 * the asking one as its last step. One batch, every part of it on the sessions still live as it runs.
 */
async function endSessionsNamed(ctx: Ctx, provider: SloProvider, request: LogoutRequest, now: Date): Promise<string> {
  const db = ctx.db
  const at = now.toISOString()
  const suite = newSamlLogoutSequence()
  const named = () => {
    let query = db
      .selectFrom('saml_session as s')
      .where('s.application_id', '=', provider.application_id)
      .where('s.name_id', '=', request.nameId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('refresh_token as t')
            .select('t.id')
            .whereRef('t.family_id', '=', 's.family_id')
            .where('t.kind', '=', 'SESSION')
            .where('t.application_id', 'is', null)
            .where(liveToken(at)),
        ),
      )
    if (request.sessionIndexes.length > 0) query = query.where('s.session_index', 'in', request.sessionIndexes)
    // The same sessions in every statement of the batch.
    return query.orderBy('s.family_id').limit(LOGOUT_MAX_SESSIONS)
  }
  const families = () => named().select('s.family_id')
  const entry = logEntry(0, 'DECONNEXION', 'DECONNEXION', ctx.request.userAgent, {
    commentaire: `SAML : déconnexion demandée par ${provider.libelle}`,
  })
  const columns = Object.keys(entry) as (keyof typeof entry)[]
  const asking = db.insertInto('saml_deconnexion').values({
    family_id: `slo:${suite}`,
    application_id: provider.application_id,
    // Whose sessions it ends (none: nobody's).
    utilisateur_id: named().select('s.utilisateur_id').limit(1),
    name_id: request.nameId,
    format_name_id: '',
    session_index: request.sessionIndexes[0] ?? null,
    suite,
    statut: 'INITIATRICE',
    request_id: request.id,
    relay_state: request.relayState,
  })
  try {
    await namedBatch(ctx.d1, {
      // The asking application, answered at the end of the sequence; its request once (migration 0038: a request
      // presented again is refused, and nothing else of the batch takes place).
      asking,
      log: db
        .insertInto('log')
        .columns(columns)
        .expression(
          named().select((eb) =>
            columns.map((column) =>
              column === 'utilisateur_id' ? eb.ref('s.utilisateur_id').as(column) : eb.val(entry[column]).as(column),
            ),
          ),
        ),
      // The applications the ended sessions signed into, before the trigger records them as not reachable: the asking
      // one has logged its user out already.
      others: db
        .insertInto('saml_deconnexion')
        .columns([
          'family_id',
          'application_id',
          'utilisateur_id',
          'name_id',
          'format_name_id',
          'session_index',
          'suite',
          'statut',
        ])
        .expression(
          db
            .selectFrom('saml_session as o')
            .innerJoin('saml_sp as sp', 'sp.application_id', 'o.application_id')
            .select((eb) => [
              'o.family_id',
              'o.application_id',
              'o.utilisateur_id',
              'o.name_id',
              'o.format_name_id',
              'o.session_index',
              eb.val(suite).as('suite'),
              sql<string>`case when o.application_id = ${provider.application_id} then 'FAITE' else 'A_ENVOYER' end`.as(
                'statut',
              ),
            ])
            .where('o.family_id', 'in', families())
            .where('sp.slo_url', 'is not', null),
        ),
      revoked: db
        .updateTable('refresh_token')
        .set({ revoked_at: at })
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('family_id', 'in', families()), eb('parent_family_id', 'in', families())])),
    })
  } catch (error) {
    if (uniqueViolation(error)) throw new SamlInputError('REPLAYED', 'This logout request was presented already')
    throw error
  }
  return suite
}

/** What a sequence's row tells of its application, to write its message. */
type SequenceRow = {
  id: number
  statut: string
  name_id: string
  format_name_id: string
  session_index: string | null
  request_id: string | null
  relay_state: string | null
  envoyee_at: string | null
  libelle: string
  entity_id: string
  slo_url: string | null
  slo_binding: 'HTTP-Redirect' | 'HTTP-POST' | null
}

/**
 * POST rest/public/bd/saml/deconnexion: the logout page's next step in a sequence, for the browser carrying it. Each
 * application to tell is given, once, a signed LogoutRequest with the name identifier and session index it was given;
 * then the application that asked, if one did, its signed LogoutResponse (partial if some other was not told); then
 * nothing more. Whether the page's own portal session has ended is said too: the page then forgets it.
 */
export async function nextLogoutStep(ctx: Ctx, suite: string, sessionPortail?: string): Promise<SamlLogoutStep> {
  const db = ctx.db
  const now = new Date()
  const since = new Date(now.getTime() - LOGOUT_SEQUENCE_SECONDS * 1000).toISOString()
  const { rows, ended } = await namedBatch(ctx.d1, {
    rows: db
      .selectFrom('saml_deconnexion as d')
      .innerJoin('saml_sp as sp', 'sp.application_id', 'd.application_id')
      .innerJoin('application as a', 'a.id', 'd.application_id')
      .select([
        'd.id',
        'd.statut',
        'd.name_id',
        'd.format_name_id',
        'd.session_index',
        'd.request_id',
        'd.relay_state',
        'd.envoyee_at',
        'a.libelle',
        'sp.entity_id',
        'sp.slo_url',
        'sp.slo_binding',
      ])
      .where('d.suite', '=', suite)
      .where('d.created_at', '>', since)
      .orderBy('d.id'),
    // The page's session, ended, and one of the sequence's own (its family, or its user's).
    ended: sessionPortail
      ? db
          .selectFrom('refresh_token as t')
          .select('t.id')
          .where('t.family_id', '=', sessionPortail)
          .where('t.revoked_at', 'is not', null)
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('saml_deconnexion as o')
                .select('o.id')
                .where('o.suite', '=', suite)
                .where((o) =>
                  o.or([o('o.family_id', '=', sessionPortail), o('o.utilisateur_id', '=', o.ref('t.utilisateur_id'))]),
                ),
            ),
          )
          .limit(1)
      : null,
  })
  const sessionFinie = (ended?.results.length ?? 0) > 0
  // Without its key, the portal tells no application (none could have been signed into).
  if (!samlEnabled(ctx.env)) return { action: 'done', libelle: null, message: null, sessionFinie }
  const all = (rows?.results ?? []) as SequenceRow[]
  const issuer = samlEndpoints(ctx.request.origin).entityId
  const signer = samlSigner(ctx.env)
  for (const row of all) {
    if (row.statut !== 'A_ENVOYER' || !row.slo_url) continue
    const id = messageId()
    const { taken } = await namedBatch(ctx.d1, {
      taken: db
        .updateTable('saml_deconnexion')
        .set({ statut: 'ENVOYEE', request_id: id, envoyee_at: now.toISOString() })
        .where('id', '=', row.id)
        .where('statut', '=', 'A_ENVOYER'),
    })
    // Taken by the same page loaded twice: the next one.
    if (taken?.meta.changes !== 1) continue
    const xml = logoutRequestXml(id, {
      issuer,
      destination: row.slo_url,
      audience: row.entity_id,
      nameId: { format: NAME_ID_FORMATS[row.format_name_id as keyof typeof NAME_ID_FORMATS], value: row.name_id },
      sessionIndex: row.session_index,
      now,
    })
    // No RelayState: the sequence's name stays in the browser's cookie; the answer is known by its InResponseTo.
    const message = outgoing(row, 'SAMLRequest', xml, id, null, signer)
    return { action: 'request', libelle: row.libelle, message, sessionFinie }
  }
  const asking = all.find((row) => row.statut === 'INITIATRICE' && row.envoyee_at === null)
  if (asking?.slo_url && asking.request_id) {
    const { answered } = await namedBatch(ctx.d1, {
      answered: db
        .updateTable('saml_deconnexion')
        .set({ envoyee_at: now.toISOString() })
        .where('id', '=', asking.id)
        .where('envoyee_at', 'is', null)
        // Not while another page of the sequence has an application left to tell.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('saml_deconnexion as o')
                .select('o.id')
                .where('o.suite', '=', suite)
                .where('o.statut', '=', 'A_ENVOYER'),
            ),
          ),
        ),
    })
    if (answered?.meta.changes === 1) {
      const id = messageId()
      const partial = all.some((row) => row.statut !== 'INITIATRICE' && row.statut !== 'FAITE')
      const xml = logoutResponseXml(
        id,
        { issuer, destination: asking.slo_url, inResponseTo: asking.request_id, now },
        partial,
      )
      const message = outgoing(asking, 'SAMLResponse', xml, id, asking.relay_state, signer)
      return { action: 'response', libelle: asking.libelle, message, sessionFinie }
    }
  }
  return { action: 'done', libelle: null, message: null, sessionFinie }
}

/** A message to an application's single logout service, by the binding its metadata names. */
function outgoing(
  row: SequenceRow,
  parameter: 'SAMLRequest' | 'SAMLResponse',
  xml: string,
  id: string,
  relayState: string | null,
  signer: ReturnType<typeof samlSigner>,
): SamlLogoutMessage {
  const url = row.slo_url as string
  if (row.slo_binding === 'HTTP-POST') {
    return { binding: 'post', url, champ: parameter, valeur: signedPostValue(xml, id, signer), RelayState: relayState }
  }
  return { binding: 'redirect', url: redirectBinding(url, parameter, xml, relayState, signer) }
}
