-- Migration number: 0022 	 Back-channel logout (OpenID Connect Back-Channel Logout 1.0, DESIGN §4b):
-- when an OpenID Connect session ends — however it ends: sign-out of the portal session that opened
-- it, password change, deactivation, deletion, a reused token — its client is told, by a signed logout
-- token posted to its back-channel logout URI, with the outbox's retries.

-- The issuer the session's ID tokens named (the origin the authorization came to), which its logout
-- token names too.
ALTER TABLE oidc_code ADD COLUMN issuer TEXT;
ALTER TABLE refresh_token ADD COLUMN issuer TEXT;

-- One logout to deliver per ended session (its family is the `sid` of its ID tokens); the address
-- is read from the client when it is sent.
CREATE TABLE logout_delivery (
  id              INTEGER PRIMARY KEY,
  family_id       TEXT    NOT NULL UNIQUE,
  application_id  INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  utilisateur_id  INTEGER NOT NULL,
  issuer          TEXT    NOT NULL,
  created_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  locked_until    TEXT,
  last_error      TEXT,
  sent_at         TEXT
);
CREATE INDEX logout_delivery_due ON logout_delivery (sent_at, next_attempt_at);

-- A session's tokens are revoked in the statement that ends it: the delivery is written in that very
-- batch, whichever write it was.
CREATE TRIGGER refresh_token_backchannel_logout
AFTER UPDATE OF revoked_at ON refresh_token
WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.scope IS NOT NULL AND NEW.issuer IS NOT NULL
BEGIN
  INSERT OR IGNORE INTO logout_delivery (family_id, application_id, utilisateur_id, issuer)
  SELECT NEW.family_id, NEW.application_id, NEW.utilisateur_id, NEW.issuer
  FROM oidc_client c
  WHERE c.application_id = NEW.application_id AND c.backchannel_logout_uri IS NOT NULL;
END;
