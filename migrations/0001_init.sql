-- Migration number: 0001 	 Initial schema: the whole domain of the portal specification (§3).
-- Dates: calendar dates as 'YYYY-MM-DD', instants as ISO 8601 UTC ('YYYY-MM-DDTHH:MM:SS.sssZ').

-- Structure types form a hierarchy: a structure of a type hangs below a structure of parent_type_id.
CREATE TABLE type_structure (
  id             INTEGER PRIMARY KEY,
  libelle        TEXT    NOT NULL UNIQUE,
  parent_type_id INTEGER REFERENCES type_structure (id)
);

-- Structure 1 is the root. path is materialised ('/1/4/9/'): sub-tree queries and list order.
CREATE TABLE structure (
  id         INTEGER PRIMARY KEY,
  nom        TEXT    NOT NULL,
  type_id    INTEGER NOT NULL REFERENCES type_structure (id),
  parent_id  INTEGER REFERENCES structure (id),
  path       TEXT    NOT NULL,
  created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX structure_nom_unique ON structure (nom COLLATE NOCASE);
CREATE INDEX structure_parent ON structure (parent_id);
CREATE INDEX structure_type ON structure (type_id);
CREATE INDEX structure_path ON structure (path);

CREATE TABLE fonction (
  id           INTEGER PRIMARY KEY,
  libelle      TEXT    NOT NULL,
  structure_id INTEGER NOT NULL REFERENCES structure (id) ON DELETE CASCADE,
  UNIQUE (structure_id, libelle)
);

-- registration_state: COMPLETE (has a password), INVITED (created by an admin, waits for the mail
-- link), PENDING (carrier self-registration waiting for an administrator).
CREATE TABLE utilisateur (
  id                        INTEGER PRIMARY KEY,
  login                     TEXT    NOT NULL,
  nom                       TEXT    NOT NULL,
  prenom                    TEXT    NOT NULL,
  mail                      TEXT    NOT NULL,
  password_hash             TEXT,
  actif                     INTEGER NOT NULL DEFAULT 1 CHECK (actif IN (0, 1)),
  supprime                  INTEGER NOT NULL DEFAULT 0 CHECK (supprime IN (0, 1)),
  admin                     INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
  domain                    TEXT    NOT NULL,
  langue                    TEXT    NOT NULL DEFAULT 'fr' CHECK (langue IN ('fr', 'en')),
  registration_state        TEXT    NOT NULL DEFAULT 'COMPLETE'
                            CHECK (registration_state IN ('COMPLETE', 'INVITED', 'PENDING')),
  registration_structure_id INTEGER REFERENCES structure (id),
  registration_structure_nom TEXT,
  token_register_expires_at TEXT,
  created_at                TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at                TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX utilisateur_login_unique ON utilisateur (login COLLATE NOCASE);
CREATE UNIQUE INDEX utilisateur_mail_unique ON utilisateur (mail COLLATE NOCASE);
CREATE INDEX utilisateur_nom ON utilisateur (nom COLLATE NOCASE, prenom COLLATE NOCASE);
CREATE INDEX utilisateur_registration ON utilisateur (registration_state, token_register_expires_at);

-- A post: a user's function within a structure over [date_debut, date_fin] (inclusive).
CREATE TABLE poste (
  id             INTEGER PRIMARY KEY,
  utilisateur_id INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  structure_id   INTEGER NOT NULL REFERENCES structure (id),
  fonction_id    INTEGER NOT NULL REFERENCES fonction (id),
  date_debut     TEXT    NOT NULL,
  date_fin       TEXT    NOT NULL,
  CHECK (date_debut <= date_fin)
);
CREATE INDEX poste_utilisateur ON poste (utilisateur_id, date_fin);
CREATE INDEX poste_structure ON poste (structure_id, date_fin);
CREATE INDEX poste_fonction ON poste (fonction_id);

CREATE TABLE application (
  id      INTEGER PRIMARY KEY,
  libelle TEXT NOT NULL UNIQUE,
  icone   TEXT NOT NULL,
  url     TEXT NOT NULL
);

-- Applications are granted to functions; access is derived from a user's current posts.
CREATE TABLE fonction_application (
  fonction_id    INTEGER NOT NULL REFERENCES fonction (id) ON DELETE CASCADE,
  application_id INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  PRIMARY KEY (fonction_id, application_id)
) WITHOUT ROWID;
CREATE INDEX fonction_application_application ON fonction_application (application_id);

-- Single-use tokens sent by mail (password reset, invitation, registration); only the SHA-256 is kept.
CREATE TABLE mail_token (
  id             INTEGER PRIMARY KEY,
  token_hash     TEXT    NOT NULL UNIQUE,
  utilisateur_id INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  purpose        TEXT    NOT NULL CHECK (purpose IN ('PASSWORD_RESET', 'INVITATION', 'REGISTRATION')),
  expires_at     TEXT    NOT NULL,
  used_at        TEXT,
  created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX mail_token_utilisateur ON mail_token (utilisateur_id, purpose);

-- Refresh tokens (SHA-256 only). SESSION tokens rotate within a family; LAUNCH tokens are single-use
-- codes bound to one application.
CREATE TABLE refresh_token (
  id                INTEGER PRIMARY KEY,
  token_hash        TEXT    NOT NULL UNIQUE,
  utilisateur_id    INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  family_id         TEXT    NOT NULL,
  kind              TEXT    NOT NULL DEFAULT 'SESSION' CHECK (kind IN ('SESSION', 'LAUNCH')),
  application_id    INTEGER REFERENCES application (id) ON DELETE CASCADE,
  created_at        TEXT    NOT NULL,
  expires_at        TEXT    NOT NULL,
  family_expires_at TEXT    NOT NULL,
  rotated_at        TEXT,
  revoked_at        TEXT
);
CREATE INDEX refresh_token_family ON refresh_token (family_id);
CREATE INDEX refresh_token_utilisateur ON refresh_token (utilisateur_id);

-- Every outgoing mail, written in the same batch as the token it carries, then delivered.
CREATE TABLE outbox (
  id              INTEGER PRIMARY KEY,
  utilisateur_id  INTEGER REFERENCES utilisateur (id) ON DELETE SET NULL,
  to_address      TEXT    NOT NULL,
  subject         TEXT    NOT NULL,
  html            TEXT    NOT NULL,
  text            TEXT    NOT NULL,
  created_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  last_error      TEXT,
  sent_at         TEXT
);
CREATE INDEX outbox_pending ON outbox (sent_at, next_attempt_at);

-- Audit history.
CREATE TABLE log (
  id                 INTEGER PRIMARY KEY,
  date               TEXT    NOT NULL,
  utilisateur_id     INTEGER REFERENCES utilisateur (id) ON DELETE SET NULL,
  type_log           TEXT    NOT NULL CHECK (type_log IN
                     ('CONNEXION', 'DECONNEXION', 'APPLICATION', 'APPLI_YARD', 'APPLI_PESAGE', 'APPLI_MODRDV', 'ADMINISTRATION')),
  nom_log            TEXT    NOT NULL,
  commentaire        TEXT,
  nom_navigateur     TEXT,
  version_navigateur TEXT
);
CREATE INDEX log_date ON log (date);
CREATE INDEX log_utilisateur ON log (utilisateur_id, date);

-- Solved captcha challenges, kept until they expire so that none is accepted twice.
CREATE TABLE captcha_used (
  signature  TEXT NOT NULL PRIMARY KEY,
  expires_at TEXT NOT NULL
) WITHOUT ROWID;

-- Consecutive failed sign-ins per identifier (known or not, so the throttle reveals nothing).
CREATE TABLE login_attempt (
  identifier      TEXT    NOT NULL PRIMARY KEY,
  failures        INTEGER NOT NULL DEFAULT 0,
  last_failure_at TEXT    NOT NULL,
  locked_until    TEXT
) WITHOUT ROWID;
