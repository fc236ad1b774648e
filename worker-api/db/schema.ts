import type { ColumnType, Generated, Insertable, Selectable } from 'kysely'
import type { LogType } from '../contract/log-labels'
import type { SessionEndReason } from '../contract/sign-in/auth'

export interface TypeStructureTable {
  id: Generated<number>
  libelle: string
  parent_type_id: number | null
}

export interface StructureTable {
  id: Generated<number>
  nom: string
  type_id: number
  parent_id: number | null
  path: string
  created_at: Generated<string>
  /** Its name folded for search (migration 0034's triggers). */
  recherche: Generated<string>
}

export interface FonctionTable {
  id: Generated<number>
  libelle: string
  structure_id: number
}

export type RegistrationState = 'COMPLETE' | 'INVITED' | 'PENDING'

export interface UtilisateurTable {
  id: Generated<number>
  login: string
  nom: string
  prenom: string
  mail: string
  password_hash: string | null
  actif: Generated<number>
  supprime: Generated<number>
  admin: Generated<number>
  domain: string
  langue: Generated<'fr' | 'en'>
  registration_state: Generated<RegistrationState>
  /** The carrier company of a registration: the one it chose, or the one created when it was authorised. */
  registration_structure_id: number | null
  /**
   * The company a pending registration typed, not yet a structure (created when an administrator
   * authorises it, migration 0015); null once `registration_structure_id` is set.
   */
  registration_structure_nom: string | null
  token_register_expires_at: string | null
  /** "nom prenom" folded for search (lib/search-text.ts), kept by triggers (migration 0009). */
  recherche: Generated<string>
  /** The last end date of the user's posts ('' with none), kept by triggers (migration 0010). */
  postes_fin: Generated<string>
  /**
   * The structure a user without a live post belongs to (DESIGN §4): their last post's, else a
   * carrier's registration company, else null; kept by triggers (migration 0014).
   */
  rattachement_id: Generated<number | null>
  created_at: Generated<string>
  updated_at: Generated<string>
  /** The address the user proved by opening a link mailed to it (migration 0040); null before any. */
  mail_prouve: Generated<string | null>
  /** SCIM's `externalId`: the provisioning client's id of the user (migration 0027). */
  external_id: Generated<string | null>
  /** One more at each change SCIM shows (migration 0027's triggers): the weak ETag. */
  version: Generated<number>
}

export interface PosteTable {
  id: Generated<number>
  utilisateur_id: number
  structure_id: number
  fonction_id: number
  date_debut: string
  date_fin: string
  /** The start and the end told (`poste.debut`, `poste.fin`: migration 0050's trigger sets them), null before. */
  debut_dit: Generated<string | null>
  fin_dit: Generated<string | null>
}

/** How an application receives its users: `CODE`, the spec's single-use launch code; `OIDC`, OpenID Connect. */
export type ApplicationProtocol = 'CODE' | 'OIDC' | 'SAML'

export interface ApplicationTable {
  id: Generated<number>
  libelle: string
  icone: string
  url: string
  /** 0: off — in no launcher, its launch refused as for an unknown one; its grants kept. */
  actif: Generated<number>
  protocole: Generated<ApplicationProtocol>
  /** 1: users may ask for it from their launcher (migration 0029). */
  demandable: Generated<number>
}

/** An OIDC application's client (migration 0021); the lists are JSON arrays of URIs. */
export interface OidcClientTable {
  application_id: number
  client_id: string
  /** SHA-256 of the secret; null: a public client. */
  secret_hash: string | null
  redirect_uris: string
  post_logout_redirect_uris: Generated<string>
  initiate_login_uri: string | null
  backchannel_logout_uri: string | null
  /** 1: the client may use the device authorization grant (migration 0053). */
  device_grant: Generated<number>
}

/** A SAML application's service provider (migration 0035); `acs`, `certificats` and `attributs` are JSON arrays. */
export interface SamlSpTable {
  application_id: number
  entity_id: string
  acs: string
  slo_url: string | null
  slo_binding: 'HTTP-Redirect' | 'HTTP-POST' | null
  certificats: Generated<string>
  requetes_signees: Generated<number>
  format_name_id: Generated<'email' | 'persistent' | 'transient'>
  signer_reponse: Generated<number>
  signer_assertion: Generated<number>
  attributs: Generated<string>
}

/** A user's persistent name identifier at a SAML application (migration 0039): drawn once, given every time. */
export interface SamlIdentifiantTable {
  application_id: number
  utilisateur_id: number
  name_id: string
  created_at: string
}

/** A SAML authentication request, checked, waiting to be answered (migration 0036); its ID once per provider. */
export interface SamlDemandeTable {
  id: string
  application_id: number
  request_id: string
  acs_url: string
  relay_state: string | null
  force_authn: number
  passive: number
  format_name_id: string | null
  created_at: string
  expires_at: string
  repondue_at: Generated<string | null>
  reponse: Generated<string | null>
}

/** A portal session's sign-in to a SAML application: what single logout names. */
export interface SamlSessionTable {
  family_id: string
  application_id: number
  utilisateur_id: number
  name_id: string
  format_name_id: string
  session_index: string
  created_at: string
}

/** Where a SAML application's single logout stands for an ended portal session (migration 0037). */
export type SamlLogoutStatus = 'INJOIGNABLE' | 'A_ENVOYER' | 'ENVOYEE' | 'FAITE' | 'REFUSEE' | 'INITIATRICE'

/** An ended portal session's logout of a SAML application: told through the browser, or recorded as not reachable. */
export interface SamlDeconnexionTable {
  id: Generated<number>
  family_id: string
  application_id: number
  utilisateur_id: number | null
  name_id: string
  format_name_id: string
  session_index: string | null
  created_at: Generated<string>
  suite: string | null
  statut: Generated<SamlLogoutStatus>
  request_id: string | null
  relay_state: string | null
  envoyee_at: string | null
  repondue_at: string | null
}

/** An authorization code (its SHA-256), single use, 60 s. */
export interface OidcCodeTable {
  id: Generated<number>
  code_hash: string
  application_id: number
  utilisateur_id: number
  redirect_uri: string
  code_challenge: string
  scope: string
  nonce: string | null
  auth_time: string
  parent_family_id: string
  family_id: string
  expires_at: string
  used_at: string | null
  /** The origin the authorization came to: its ID tokens' and logout token's `iss`. */
  issuer: Generated<string | null>
}

/** The states of a device's request (migration 0053): decided once, then its tokens issued once. */
export type DeviceAuthorizationState = 'EN_ATTENTE' | 'APPROUVEE' | 'REFUSEE' | 'EMISE'

/** A device's request of the device authorization grant (migration 0053), both codes as their SHA-256. */
export interface DeviceAuthorizationTable {
  id: Generated<number>
  device_code_hash: string
  user_code_hash: string
  application_id: number
  scope: string
  issuer: string
  nom_navigateur: string | null
  version_navigateur: string | null
  /** The device's kind and system, as its request's User-Agent said them (`mobile · Android`). */
  type_appareil: string | null
  created_at: string
  expires_at: string
  /** The seconds the device waits between polls, 5 more for each poll too soon. */
  poll_interval: Generated<number>
  last_polled_at: string | null
  /** 1 when the last poll came too soon (answered `slow_down`). */
  trop_tot: Generated<number>
  etat: Generated<DeviceAuthorizationState>
  utilisateur_id: number | null
  decided_at: string | null
  approving_family_id: string | null
  auth_time: string | null
  /** The kind of device the approval came from (`mobile`, `tablet`, `desktop`). */
  approuve_depuis: string | null
  /** The name the approver gave the device. */
  nom: string | null
  family_id: string | null
}

/** A back-channel logout to deliver (migration 0022), written by a trigger as an OIDC session ends. */
export interface LogoutDeliveryTable {
  id: Generated<number>
  family_id: string
  application_id: number
  utilisateur_id: number
  issuer: string
  created_at: Generated<string>
  attempts: Generated<number>
  next_attempt_at: Generated<string>
  locked_until: Generated<string | null>
  last_error: Generated<string | null>
  sent_at: Generated<string | null>
}

export interface FonctionApplicationTable {
  fonction_id: number
  application_id: number
}

/** A function a new structure of a type starts with (migration 0018), in the order given. */
export interface ModeleFonctionTable {
  id: Generated<number>
  type_id: number
  libelle: string
  position: number
}

export interface ModeleFonctionApplicationTable {
  modele_id: number
  application_id: number
}

/** What a mail token is for; each call that takes a token accepts only its own purposes. */
export type MailTokenPurpose = 'PASSWORD_RESET' | 'INVITATION' | 'REGISTRATION' | 'MAIL_CHANGE'

export interface MailTokenTable {
  id: Generated<number>
  token_hash: string
  utilisateur_id: number
  purpose: MailTokenPurpose
  /** MAIL_CHANGE: the address that becomes the account's once the link is opened. */
  new_mail: Generated<string | null>
  /** The address the link was mailed to (migration 0040): opening it proves that address. */
  adresse: Generated<string | null>
  expires_at: string
  used_at: string | null
  created_at: Generated<string>
}

export interface RefreshTokenTable {
  id: Generated<number>
  token_hash: string
  utilisateur_id: number
  family_id: string
  kind: 'SESSION' | 'LAUNCH'
  application_id: number | null
  created_at: string
  expires_at: string
  family_expires_at: string
  rotated_at: string | null
  revoked_at: string | null
  /** Why it was revoked, when the browser holding it is told (migration 0024): null for a sign-out, a reuse… */
  revoked_reason: Generated<SessionEndReason | null>
  /** Who ended it (migration 0049): an administrator, or a program by the negative of its id; null when its user did. */
  revoked_by: Generated<number | null>
  /** For an application's session: the portal session that launched it (single logout). */
  parent_family_id: string | null
  /** Once rotated: the pair it was exchanged for, sealed with this token (answers a retry in the grace window). */
  successor: Generated<string | null>
  /** An OIDC session's: the scopes granted, and when its user signed in to the portal. */
  scope: Generated<string | null>
  auth_time: Generated<string | null>
  issuer: Generated<string | null>
  /** A portal session's browser, as its sign-in saw it (the family's first row). */
  nom_navigateur: Generated<string | null>
  version_navigateur: Generated<string | null>
  /** How a portal session's user signed in (the family's first row; migration 0036): null before it, read as a password. */
  methode: Generated<SignInMethod | null>
  /** A device's session (migration 0053): the name its approver gave it, and the kind of device that approved it. */
  appareil: Generated<string | null>
  appareil_approuve_depuis: Generated<string | null>
}

/** How a user proved who they are: a password alone, a password and a second factor, or a passkey. */
export type SignInMethod = 'MOT_DE_PASSE' | 'SECOND_FACTEUR' | 'CLE_ACCES'

/** The organisation's security settings (one row, id 1). */
export interface ParametreSecuriteTable {
  id: number
  mfa_requis_administrateurs: number
  /** The longest period an access request may ask for, in days (migration 0029). */
  demande_duree_max_jours: Generated<number>
  /** The months of history D1 keeps, the current one included (migration 0041; 13 unless changed, at least 3). */
  historique_mois_en_ligne: Generated<number>
}

/** A Parquet file of the history's archive in R2 (migration 0041): a part of a month, ids id_min to id_max. */
export interface HistoriqueArchiveTable {
  fichier: string
  mois: string
  id_min: number
  id_max: number
  lignes: number
  octets: number
  sha256: string
  date_min: string
  date_max: string
  created_at: string
}

/** An integrator's subscription to the portal's events (migration 0045), on a structure's sub-tree. */
export interface WebhookTable {
  id: Generated<number>
  url: string
  /** The event types and families subscribed to, a JSON array. */
  evenements: string
  description: string | null
  /** The address and description folded, for the list's search. */
  recherche: string
  actif: Generated<number>
  structure_id: number
  cree_par: number | null
  domain: string
  /** Its secret (`whsec_…`), sealed with WEBHOOK_SECRET_KEY. */
  secret_scelle: string
  ancien_secret_scelle: string | null
  ancien_secret_expire: string | null
  created_at: string
  updated_at: string
  /** Why it stopped being served (migration 0046): its address answered 410 Gone, or failed a whole day. */
  desactive_motif: 'GONE' | 'ECHECS' | null
  desactive_le: string | null
}

/** One of the portal's events (migration 0046), kept 30 days. */
export interface EvenementTable {
  id: Generated<number>
  type: string
  date: string
  /** JSON: who acted. */
  acteur: string
  /** JSON: what it is about. */
  sujet: string
  /** The person it is about ('utilisateur:42'): the order of a subscription's deliveries. */
  sujet_cle: string
  /** JSON: the subject once changed. */
  data: string
  /** JSON: the paths of the structures it concerns. */
  chemins: Generated<string>
  /** Its subject's domain (for one of no structure). */
  domain: Generated<string>
}

/** A day whose posts' starts and ends were told (migration 0047), and the run that told them. */
/** A user's application as the events last told it (migration 0051: acces.accorde, acces.retire). */
export interface AccesDitTable {
  utilisateur_id: number
  application_id: number
  /** The paths of the structures of the posts that granted it while it was held, as a JSON array. */
  chemins: Generated<string>
}

export interface EvenementJourTable {
  jour: string
  fait_le: string
}

/** One event's delivery to one subscription (migration 0046). */
export interface WebhookLivraisonTable {
  id: Generated<number>
  webhook_id: number
  evenement_id: number
  sujet_cle: string
  created_at: string
  attempts: Generated<number>
  next_attempt_at: string
  locked_until: string | null
  last_attempt_at: string | null
  last_status: number | null
  last_error: string | null
  sent_at: string | null
  abandoned_at: string | null
}

/** A month whose archiving entry is in the history (migration 0044): it is written once. */
export interface HistoriqueArchiveJournalTable {
  mois: string
}

/** A search of the archived months (migration 0042), kept a day with what it found. */
export interface HistoriqueRechercheTable {
  id: string
  utilisateur_id: number | null
  compte_service_id: number | null
  domaine: string
  filtres: string
  date_min: string | null
  date_max: string | null
  mois_debut: string | null
  mois_fin: string | null
  fichiers: number
  fichiers_lus: Generated<number>
  curseur: string | null
  entrees: Generated<number>
  etat: Generated<'EN_COURS' | 'TERMINEE' | 'TRONQUEE' | 'ECHEC'>
  erreur: string | null
  created_at: string
  expires_at: string
}

/** An entry a search found, as the history lists it (JSON). */
export interface HistoriqueRechercheEntreeTable {
  recherche_id: string
  id: number
  date: string
  entree: string
  /** The structure the entry was archived with (migration 0043): read only in the author's scope of the day. */
  structure_id: number | null
}

/** TOTP: the confirmed secret (base32) and an enrolment waiting for its first code. */
export interface MfaTotpTable {
  utilisateur_id: number
  secret: string | null
  confirmed_at: string | null
  /** The last RFC 6238 time step accepted: a code is accepted once. */
  last_step: Generated<number>
  pending_secret: string | null
  pending_created_at: string | null
}

export interface MfaRecoveryCodeTable {
  id: Generated<number>
  utilisateur_id: number
  code_hash: string
  used_at: string | null
}

export interface PasskeyTable {
  /** The credential id, base64url. */
  id: string
  utilisateur_id: number
  nom: string
  /** The COSE public key, base64url. */
  public_key: string
  counter: Generated<number>
  transports: string | null
  rp_id: string
  created_at: string
  last_used_at: string | null
}

export type MfaChallengePurpose = 'LOGIN' | 'PASSKEY_REGISTRATION' | 'PASSKEY_LOGIN'

export interface MfaChallengeTable {
  hash: string
  purpose: MfaChallengePurpose
  utilisateur_id: number | null
  identifier: string | null
  webauthn: string | null
  created_at: string
  expires_at: string
  /** A sign-in through a partner's provider waiting for this second step (migration 0040): the provider, its ID token. */
  fournisseur_id: Generated<number | null>
  id_token: Generated<string | null>
}

export interface OutboxTable {
  id: Generated<number>
  utilisateur_id: number | null
  to_address: string
  subject: string
  html: string
  text: string
  created_at: Generated<string>
  attempts: Generated<number>
  next_attempt_at: Generated<string>
  last_error: string | null
  sent_at: string | null
  /** A sender holds the mail until then (no two deliveries at once). */
  locked_until: string | null
  provider_message_id: string | null
  kind: Generated<MailKind>
}

export type MailKind =
  | 'PASSWORD_RESET'
  | 'PASSWORD_CHANGED'
  | 'SESSIONS_ENDED'
  | 'MAIL_CHANGE_CONFIRM'
  | 'MAIL_CHANGE_REQUESTED'
  | 'MAIL_CHANGED'
  | 'MAIL_NOW_USED'
  | 'INVITATION'
  | 'REGISTRATION'
  | 'FACTOR_ADDED'
  | 'FACTOR_REMOVED'
  | 'FACTOR_RESET'
  | 'ACCESS_REQUEST'
  | 'ACCESS_DECISION'
  | 'ACCESS_REVIEW'
  | 'WEBHOOK_DISABLED'
  | 'OTHER'

export type LogSource = 'SERVEUR' | 'CLIENT'

export interface LogTable {
  id: Generated<number>
  date: string
  utilisateur_id: number | null
  type_log: LogType
  nom_log: string
  commentaire: string | null
  nom_navigateur: string | null
  version_navigateur: string | null
  /** Who reported the entry: the API with the action it records, or a client (spec §7 POST logs/). */
  source: Generated<LogSource>
  /** The service account that acted (migration 0026); `utilisateur_id` is null then. */
  compte_service_id: Generated<number | null>
  /** `date` in milliseconds since 1970, computed by SQLite (migration 0044): what the indexes hold. Never written. */
  instant: ColumnType<number, never, never>
}

/** A program's account (migration 0026): client credentials, acting within its structure's sub-tree. */
export interface CompteServiceTable {
  id: Generated<number>
  nom: string
  /** Its name folded for search (migration 0034's triggers). */
  recherche: Generated<string>
  description: string | null
  /** Null only once a deleted account's structure is gone. */
  structure_id: number | null
  admin: number
  /** What it may be granted, space-separated (`SERVICE_SCOPES`). */
  scopes: string
  client_id: string
  /** SHA-256 of the secret; null: keys only (`jwks`). */
  secret_hash: string | null
  /** The secret before the last rotation, kept until `ancien_secret_expire`. */
  ancien_secret_hash: string | null
  ancien_secret_expire: string | null
  /** The public keys of `private_key_jwt` (a JWK Set, JSON). */
  jwks: string | null
  domain: string
  actif: Generated<number>
  supprime: Generated<number>
  created_at: Generated<string>
  cree_par: number | null
}

/** An account's calls of the current minute (its rate limit) and day, and its last (bookkeeping, migration 0026). */
export interface CompteServiceUsageTable {
  compte_service_id: number
  minute: string
  appels_minute: number
  jour: string
  appels_jour: number
  derniere_utilisation: string
}

/** A client assertion's `jti` accepted once, until the assertion expires. */
export interface ClientAssertionJtiTable {
  cle: string
  expires_at: string
}

export interface ClientAuthFailureRunTable {
  client_id: string
  log_id: number
  failures: number
  last_failure_at: string
}

export interface CaptchaUsedTable {
  signature: string
  expires_at: string
}

/**
 * The failure counters (DESIGN §3), each a namespace of its own: sign-ins count per identifier typed,
 * wrong old passwords per user id, so nothing typed at sign-in can reach another counter.
 */
export type AttemptCounter = 'login' | 'password-change'

export interface LoginAttemptTable {
  counter: Generated<AttemptCounter>
  identifier: string
  failures: number
  last_failure_at: string
  locked_until: string | null
}

/** The totals of the user list's pages, emptied by triggers on any write they depend on (migration 0010). */
export interface UtilisateurListeTotalTable {
  cle: string
  jour: string
  total: number
  /** For a total of the history: the last log entry it counted. */
  jusqua: number | null
}

export interface RateLimitTable {
  key: string
  window_start: string
  count: number
}

export type ImportState = 'RECEPTION' | 'APERCU' | 'EN_ATTENTE' | 'EN_COURS' | 'TERMINE' | 'ECHEC'

/** A file posted to import (migration 0028), its progress and counts. */
export interface ImportTable {
  id: Generated<number>
  type: 'structures' | 'utilisateurs'
  etat: Generated<ImportState>
  /** The importer as the scope knows them: a user's id, a service account's negative. */
  auteur_id: number
  fichier: string
  domaine: string
  origine: string
  inviter: Generated<number>
  lignes: Generated<number>
  lots: Generated<number>
  traitees: Generated<number>
  creees: Generated<number>
  modifiees: Generated<number>
  inchangees: Generated<number>
  lignes_erreur: Generated<number>
  erreurs: Generated<number>
  /** A kept preview's changes of existing users (`import_changement`), all of them. */
  changements: Generated<number>
  motif_echec: Generated<string | null>
  created_at: string
  updated_at: string
  started_at: Generated<string | null>
  finished_at: Generated<string | null>
}

/** A chunk of a file's rows, JSON `[[line, [cells…], [problems…]], …]`, run as one batch that deletes it. */
export interface ImportLotTable {
  import_id: number
  numero: number
  lignes: string
}

export interface ImportErreurTable {
  id: Generated<number>
  import_id: number
  ligne: number
  colonne: string | null
  code: string
  valeurs: string | null
}

/** A change of an existing user a kept preview's row will make (`valeurs`: JSON, the contract's fields). */
export interface ImportChangementTable {
  import_id: number
  ligne: number
  login: string
  valeurs: string
}

export interface Database {
  type_structure: TypeStructureTable
  structure: StructureTable
  fonction: FonctionTable
  utilisateur: UtilisateurTable
  poste: PosteTable
  application: ApplicationTable
  fonction_application: FonctionApplicationTable
  oidc_client: OidcClientTable
  saml_sp: SamlSpTable
  saml_demande: SamlDemandeTable
  saml_identifiant: SamlIdentifiantTable
  saml_session: SamlSessionTable
  saml_deconnexion: SamlDeconnexionTable
  oidc_code: OidcCodeTable
  device_authorization: DeviceAuthorizationTable
  logout_delivery: LogoutDeliveryTable
  modele_fonction: ModeleFonctionTable
  modele_fonction_application: ModeleFonctionApplicationTable
  mail_token: MailTokenTable
  refresh_token: RefreshTokenTable
  outbox: OutboxTable
  log: LogTable
  captcha_used: CaptchaUsedTable
  compte_service: CompteServiceTable
  compte_service_usage: CompteServiceUsageTable
  client_assertion_jti: ClientAssertionJtiTable
  client_auth_failure_run: ClientAuthFailureRunTable
  login_attempt: LoginAttemptTable
  rate_limit: RateLimitTable
  utilisateur_liste_total: UtilisateurListeTotalTable
  parametre_securite: ParametreSecuriteTable
  historique_archive: HistoriqueArchiveTable
  historique_archive_journal: HistoriqueArchiveJournalTable
  webhook: WebhookTable
  evenement: EvenementTable
  evenement_jour: EvenementJourTable
  acces_dit: AccesDitTable
  webhook_livraison: WebhookLivraisonTable
  historique_recherche: HistoriqueRechercheTable
  historique_recherche_entree: HistoriqueRechercheEntreeTable
  mfa_totp: MfaTotpTable
  mfa_recovery_code: MfaRecoveryCodeTable
  passkey: PasskeyTable
  mfa_challenge: MfaChallengeTable
  import: ImportTable
  import_lot: ImportLotTable
  import_erreur: ImportErreurTable
  import_changement: ImportChangementTable
  demande_acces: DemandeAccesTable
  revue: RevueTable
  revue_element: RevueElementTable
  revue_progression: RevueProgressionTable
  fournisseur: FournisseurTable
  fournisseur_domaine: FournisseurDomaineTable
  lien_fournisseur: LienFournisseurTable
  fournisseur_etat: FournisseurEtatTable
  session_fournisseur: SessionFournisseurTable
}

/** How the portal proves itself at a provider's token endpoint. */
export type FournisseurAuthentification = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt'
/** What a first sign-in through a provider does: attach to a user who proved the address, queue a registration, refuse. */
export type PremiereConnexion = 'RATTACHER' | 'INSCRIRE' | 'REFUSER'

/** A partner's OpenID Connect provider (migration 0040). */
export interface FournisseurTable {
  id: Generated<number>
  nom: string
  issuer: string
  client_id: string
  authentification: FournisseurAuthentification
  /** The client secret, sealed (services/federation/secret.ts); null with private_key_jwt. */
  secret_scelle: string | null
  scopes: Generated<string>
  premiere_connexion: PremiereConnexion
  structure_id: number | null
  confiance_mfa: Generated<number>
  affiche: Generated<number>
  actif: Generated<number>
  /** The discovery document as last read, JSON. */
  metadata: string
  /** The provider's keys as last fetched (oauth4webapi's JWKS cache), JSON. */
  jwks: string | null
  metadata_lu_le: string
  created_at: string
  updated_at: string
}

export interface FournisseurDomaineTable {
  domaine: string
  fournisseur_id: number
}

/** A portal user's upstream identity: the provider and its `sub`. */
export interface LienFournisseurTable {
  fournisseur_id: number
  sub: string
  utilisateur_id: number
  mail: string | null
  created_at: string
  derniere_connexion: Generated<string | null>
}

/** A sign-in under way at a provider, used once. */
export interface FournisseurEtatTable {
  etat_hash: string
  fournisseur_id: number
  navigateur_hash: string
  verifier: string
  nonce: string
  redirection: string | null
  domaine: string
  expires_at: string
}

/** A portal session opened through a provider, for the provider's sign-out. */
export interface SessionFournisseurTable {
  family_id: string
  fournisseur_id: number
  id_token: string
  created_at: string
}

export type DemandeEtat = 'EN_ATTENTE' | 'ACCORDEE' | 'REFUSEE' | 'RETIREE' | 'EXPIREE'

/** A user's request for an application (migration 0029); `decision` marks the batch that decided it. */
export interface DemandeAccesTable {
  id: Generated<number>
  utilisateur_id: number
  application_id: number
  motif: string
  date_debut: string
  date_fin: string
  etat: Generated<DemandeEtat>
  created_at: string
  relance_at: string | null
  decided_at: string | null
  decideur_id: number | null
  commentaire: string | null
  decision: string | null
  poste_id: number | null
}

/** An access review campaign (migration 0030). */
export interface RevueTable {
  id: Generated<number>
  nom: string
  structure_id: number
  structure_nom: string
  chemin: string
  echeance: string
  si_non_revu: 'CONSERVER' | 'TERMINER'
  etat: Generated<'OUVERTURE' | 'OUVERTE' | 'ECHEANCE' | 'ECHUE' | 'CLOTUREE'>
  auteur_id: number
  domaine: string
  created_at: string
  updated_at: string
  curseur: Generated<number>
  dernier_poste: Generated<number>
  elements: Generated<number>
  rappel_mi_parcours_at: string | null
  rappel_echeance_at: string | null
  echue_at: string | null
  cloturee_at: string | null
  cloture_par: number | null
  /** The mark of the last batch that wrote the campaign with its entry: its opening, then its due date's step (0031). */
  marque: string | null
}

/** A post of a campaign, as it was when the campaign opened, and its review. */
export interface RevueElementTable {
  id: Generated<number>
  revue_id: number
  poste_id: number | null
  utilisateur_id: number | null
  structure_id: number
  chemin: string
  login: string
  nom: string
  prenom: string
  structure_nom: string
  fonction_libelle: string
  date_debut: string
  date_fin: string
  etat: Generated<'A_REVOIR' | 'CONFIRME' | 'TERMINE'>
  decided_at: string | null
  decideur_id: number | null
  decideur_nom: string | null
  commentaire: string | null
  date_fin_decidee: string | null
  automatique: Generated<number>
  decision: string | null
  /** The user's folded "nom prenom" as the campaign found it (migration 0031). */
  recherche: Generated<string>
}

/** A campaign's items and decisions per structure. */
export interface RevueProgressionTable {
  revue_id: number
  structure_id: number
  chemin: string
  nom: string
  total: Generated<number>
  confirmes: Generated<number>
  termines: Generated<number>
}

export type UtilisateurRow = Selectable<UtilisateurTable>
export type NewUtilisateur = Insertable<UtilisateurTable>
export type PosteRow = Selectable<PosteTable>
export type ApplicationRow = Selectable<ApplicationTable>
export type RefreshTokenRow = Selectable<RefreshTokenTable>
export type NewLog = Insertable<LogTable>
export type OutboxRow = Selectable<OutboxTable>
