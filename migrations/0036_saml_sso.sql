-- Single sign-on to SAML applications (issue 62).

-- How a portal session's user proved who they are (the family's first row): a password alone, a password and a second
-- factor, or a passkey. A SAML assertion says it (AuthnContextClassRef). Sessions opened before this have none: read
-- as a password.
ALTER TABLE refresh_token ADD COLUMN methode TEXT CHECK (methode IN ('MOT_DE_PASSE', 'SECOND_FACTEUR', 'CLE_ACCES'));

-- An authentication request a service provider sent, checked, waiting for its user to be signed in and answered. `id`
-- is the random name the portal's page is given; the request's own ID is kept once per service provider, for as long
-- as the request may be presented, so that a request replayed is refused. Answered once (`repondue_at`, and `reponse`,
-- the random mark of the answer that did, which the rest of its batch checks).
CREATE TABLE saml_demande (
  id              TEXT    PRIMARY KEY,
  application_id  INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  request_id      TEXT    NOT NULL,
  acs_url         TEXT    NOT NULL,
  relay_state     TEXT,
  force_authn     INTEGER NOT NULL DEFAULT 0,
  passive         INTEGER NOT NULL DEFAULT 0,
  format_name_id  TEXT,
  created_at      TEXT    NOT NULL,
  expires_at      TEXT    NOT NULL,
  repondue_at     TEXT,
  reponse         TEXT,
  UNIQUE (application_id, request_id)
);
CREATE INDEX saml_demande_expires ON saml_demande (expires_at);

-- A portal session's sign-in to a SAML application: the name identifier and session index it was given, for single
-- logout. One per session and application; it goes when the application does.
CREATE TABLE saml_session (
  family_id       TEXT    NOT NULL,
  application_id  INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  utilisateur_id  INTEGER NOT NULL,
  name_id         TEXT    NOT NULL,
  format_name_id  TEXT    NOT NULL,
  session_index   TEXT    NOT NULL,
  created_at      TEXT    NOT NULL,
  PRIMARY KEY (family_id, application_id)
);
CREATE INDEX saml_session_application ON saml_session (application_id, name_id);
