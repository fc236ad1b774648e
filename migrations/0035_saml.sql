-- Migration number: 0035 	 SAML 2.0 beside the launch code and OpenID Connect: an application of the catalogue may be a
-- SAML service provider the portal signs its users in to (`protocole` SAML, issue 62).
--
-- The protocol's check gains SAML: the column is dropped with its check and added again, its values kept aside and put
-- back (applications of both earlier protocols exist by now).
ALTER TABLE application ADD COLUMN protocole_avant TEXT;
UPDATE application SET protocole_avant = protocole;
ALTER TABLE application DROP COLUMN protocole;
ALTER TABLE application ADD COLUMN protocole TEXT NOT NULL DEFAULT 'CODE' CHECK (protocole IN ('CODE', 'OIDC', 'SAML'));
UPDATE application SET protocole = protocole_avant;
ALTER TABLE application DROP COLUMN protocole_avant;

-- A SAML application's service provider, as its metadata or its administrator describes it: its entityID (one
-- application per entity), where responses are posted (JSON [{url, index}], the first for a launch), where logouts go,
-- its signing certificates (JSON, base64 DER) and whether it signs its requests; then what the portal sends it: the
-- name identifier's format, which of the response and the assertion are signed, the attributes (JSON [{source, nom}]).
-- `sel` makes its persistent name identifiers: stable, opaque, and different from any other application's.
CREATE TABLE saml_sp (
  application_id      INTEGER PRIMARY KEY REFERENCES application (id) ON DELETE CASCADE,
  entity_id           TEXT    NOT NULL UNIQUE,
  acs                 TEXT    NOT NULL,
  slo_url             TEXT,
  slo_binding         TEXT    CHECK (slo_binding IN ('HTTP-Redirect', 'HTTP-POST')),
  certificats         TEXT    NOT NULL DEFAULT '[]',
  requetes_signees    INTEGER NOT NULL DEFAULT 0,
  format_name_id      TEXT    NOT NULL DEFAULT 'email' CHECK (format_name_id IN ('email', 'persistent', 'transient')),
  signer_reponse      INTEGER NOT NULL DEFAULT 0,
  signer_assertion    INTEGER NOT NULL DEFAULT 1,
  attributs           TEXT    NOT NULL DEFAULT '[]',
  sel                 TEXT    NOT NULL
);
