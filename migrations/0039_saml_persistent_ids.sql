-- Migration number: 0039 	 A SAML application's persistent name identifiers are kept, not computed (issue 62): drawn
-- at random the first time a user signs in to the application, then given every time, by the single sign-on service
-- and the launcher alike. Kept in D1, the identifier is written in the batch that answers the sign-in, with the rest of
-- its writes, rather than computed from a salt that had to be read first. The identifiers already given to sessions
-- still open are kept; the salt goes.
CREATE TABLE saml_identifiant (
  application_id  INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  utilisateur_id  INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  name_id         TEXT    NOT NULL,
  created_at      TEXT    NOT NULL,
  PRIMARY KEY (application_id, utilisateur_id)
) WITHOUT ROWID;
-- A user's identifiers go with the user (a registration refused deletes its account).
CREATE INDEX saml_identifiant_utilisateur ON saml_identifiant (utilisateur_id);

INSERT OR IGNORE INTO saml_identifiant (application_id, utilisateur_id, name_id, created_at)
  SELECT s.application_id, s.utilisateur_id, s.name_id, s.created_at
  FROM saml_session s
  JOIN utilisateur u ON u.id = s.utilisateur_id
  WHERE s.format_name_id = 'persistent'
  ORDER BY s.created_at;

ALTER TABLE saml_sp DROP COLUMN sel;
