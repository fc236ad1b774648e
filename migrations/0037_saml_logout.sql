-- Single logout of SAML applications (issue 62).

-- When a portal session ends, each SAML application it signed into that has a single logout service is to be told: one
-- row per session and application, written by the trigger below in the very batch that ends the session, however it
-- ends. Ended with its user present (the portal's sign-out, an application's own logout), the rows are given the
-- browser's logout sequence (`suite`) and the portal sends each application a signed LogoutRequest through that browser
-- (`A_ENVOYER`, then `ENVOYEE` with the request's ID, then `FAITE` or `REFUSEE` on the application's answer). Ended with
-- nobody there (another device, an administrator, a deactivation, a password change), there is no browser to carry the
-- request: the row stays `INJOIGNABLE`, as recorded. The application that asked for a logout itself is `INITIATRICE`:
-- its request's ID and RelayState are kept, and it is answered last.
CREATE TABLE saml_deconnexion (
  id              INTEGER PRIMARY KEY,
  family_id       TEXT    NOT NULL,
  application_id  INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  utilisateur_id  INTEGER,
  name_id         TEXT    NOT NULL,
  format_name_id  TEXT    NOT NULL,
  session_index   TEXT,
  created_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  suite           TEXT,
  statut          TEXT    NOT NULL DEFAULT 'INJOIGNABLE'
                  CHECK (statut IN ('INJOIGNABLE', 'A_ENVOYER', 'ENVOYEE', 'FAITE', 'REFUSEE', 'INITIATRICE')),
  request_id      TEXT,
  relay_state     TEXT,
  envoyee_at      TEXT,
  repondue_at     TEXT,
  UNIQUE (family_id, application_id)
);
CREATE INDEX saml_deconnexion_suite ON saml_deconnexion (suite);
CREATE INDEX saml_deconnexion_request ON saml_deconnexion (request_id);
CREATE INDEX saml_deconnexion_created ON saml_deconnexion (created_at);

-- A portal session ends when its tokens are revoked: its sign-ins to SAML applications become logouts to tell (those
-- with a single logout service), and are forgotten.
CREATE TRIGGER refresh_token_saml_logout
AFTER UPDATE OF revoked_at ON refresh_token
WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.kind = 'SESSION' AND NEW.application_id IS NULL
BEGIN
  INSERT OR IGNORE INTO saml_deconnexion (family_id, application_id, utilisateur_id, name_id, format_name_id, session_index)
  SELECT s.family_id, s.application_id, s.utilisateur_id, s.name_id, s.format_name_id, s.session_index
  FROM saml_session s JOIN saml_sp sp ON sp.application_id = s.application_id
  WHERE s.family_id = NEW.family_id AND sp.slo_url IS NOT NULL;
  DELETE FROM saml_session WHERE family_id = NEW.family_id;
END;
