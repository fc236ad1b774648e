-- Migration number: 0040 	 Partners' identity providers (issue 63): users of a carrier or a subsidiary sign in with
-- their company's OpenID Connect provider. A provider is administered by root administrators; a portal user is linked
-- to an upstream identity by the provider and its `sub`, never by an address alone.
CREATE TABLE fournisseur (
  id                  INTEGER PRIMARY KEY,
  -- The name on the sign-in page's button ("Continuer avec <nom>").
  nom                 TEXT    NOT NULL,
  -- The provider's issuer identifier, as its discovery document states it (unique, whatever its case).
  issuer              TEXT    NOT NULL COLLATE NOCASE UNIQUE,
  client_id           TEXT    NOT NULL,
  authentification    TEXT    NOT NULL
                      CHECK (authentification IN ('client_secret_basic', 'client_secret_post', 'private_key_jwt')),
  -- The client secret, sealed (AES-GCM, a key derived from FOURNISSEUR_SECRET_KEY): the portal must send it, so it
  -- cannot be hashed; null with private_key_jwt.
  secret_scelle       TEXT,
  scopes              TEXT    NOT NULL DEFAULT 'openid email profile',
  -- What a first sign-in (an upstream identity linked to nobody) does.
  premiere_connexion  TEXT    NOT NULL CHECK (premiere_connexion IN ('RATTACHER', 'INSCRIRE', 'REFUSER')),
  -- The company structure of the registrations a first sign-in queues (INSCRIRE).
  structure_id        INTEGER REFERENCES structure (id) ON DELETE SET NULL,
  -- 1: the provider's second factor (amr/acr) stands for the portal's; 0: a user with a factor here is asked for it.
  confiance_mfa       INTEGER NOT NULL DEFAULT 0 CHECK (confiance_mfa IN (0, 1)),
  -- 1: the sign-in page lists the provider's button; 0: it is offered for the provider's domains only.
  affiche             INTEGER NOT NULL DEFAULT 0 CHECK (affiche IN (0, 1)),
  actif               INTEGER NOT NULL DEFAULT 1 CHECK (actif IN (0, 1)),
  -- The discovery document as last read (JSON), and the provider's keys as last fetched (oauth4webapi's cache, JSON).
  metadata            TEXT    NOT NULL,
  jwks                TEXT,
  metadata_lu_le      TEXT    NOT NULL,
  created_at          TEXT    NOT NULL,
  updated_at          TEXT    NOT NULL
);
CREATE INDEX fournisseur_structure ON fournisseur (structure_id);

-- The mail domains a provider answers for: one provider per domain, so an address never has two ways in.
CREATE TABLE fournisseur_domaine (
  domaine         TEXT    NOT NULL PRIMARY KEY COLLATE NOCASE,
  fournisseur_id  INTEGER NOT NULL REFERENCES fournisseur (id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX fournisseur_domaine_fournisseur ON fournisseur_domaine (fournisseur_id);

-- A portal user's upstream identity: one per provider and user, one user per provider and sub.
CREATE TABLE lien_fournisseur (
  fournisseur_id      INTEGER NOT NULL REFERENCES fournisseur (id) ON DELETE CASCADE,
  sub                 TEXT    NOT NULL,
  utilisateur_id      INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  -- The address the provider gave when the link was made (shown to the user and the administrators).
  mail                TEXT,
  created_at          TEXT    NOT NULL,
  derniere_connexion  TEXT,
  PRIMARY KEY (fournisseur_id, sub),
  UNIQUE (utilisateur_id, fournisseur_id)
) WITHOUT ROWID;

-- A sign-in under way at a provider: its state (hashed, used once), bound to the browser that started it and to the
-- provider it was sent to, with the PKCE verifier and the nonce the answer must carry.
CREATE TABLE fournisseur_etat (
  etat_hash        TEXT    NOT NULL PRIMARY KEY,
  fournisseur_id   INTEGER NOT NULL REFERENCES fournisseur (id) ON DELETE CASCADE,
  navigateur_hash  TEXT    NOT NULL,
  verifier         TEXT    NOT NULL,
  nonce            TEXT    NOT NULL,
  redirection      TEXT,
  domaine          TEXT    NOT NULL,
  expires_at       TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX fournisseur_etat_expires ON fournisseur_etat (expires_at);

-- A portal session opened through a provider: its sign-out is told to the provider (end_session_endpoint).
CREATE TABLE session_fournisseur (
  family_id       TEXT    NOT NULL PRIMARY KEY,
  fournisseur_id  INTEGER NOT NULL REFERENCES fournisseur (id) ON DELETE CASCADE,
  id_token        TEXT    NOT NULL,
  created_at      TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX session_fournisseur_fournisseur ON session_fournisseur (fournisseur_id);

-- The address a user proved by opening a link the portal mailed to it (registration, invitation, reset, change of
-- address): a provider attaches a first sign-in to a user only while this is still the user's address. None is known
-- before this migration (a link voided and a link opened leave the same trace), so every user proves it once more.
ALTER TABLE utilisateur ADD COLUMN mail_prouve TEXT;
-- The address a link was mailed to: opening it proves that address, as long as it is still the account's.
ALTER TABLE mail_token ADD COLUMN adresse TEXT;

-- A sign-in through a provider that still needs the portal's second step: the provider and its ID token wait with the
-- challenge, for the session the step opens (its sign-out at the provider, its entry in the history).
ALTER TABLE mfa_challenge ADD COLUMN fournisseur_id INTEGER REFERENCES fournisseur (id) ON DELETE CASCADE;
ALTER TABLE mfa_challenge ADD COLUMN id_token TEXT;
