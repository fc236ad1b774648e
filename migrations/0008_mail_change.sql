-- Migration number: 0008 	 A user's own change of mail address waits for a link sent to the new address
-- (purpose MAIL_CHANGE, carrying the address to confirm), so that a session alone cannot move the
-- account to another mailbox. SQLite cannot change a CHECK constraint in place: the table is rebuilt.
CREATE TABLE mail_token_with_mail_change (
  id             INTEGER PRIMARY KEY,
  token_hash     TEXT    NOT NULL UNIQUE,
  utilisateur_id INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  purpose        TEXT    NOT NULL
                 CHECK (purpose IN ('PASSWORD_RESET', 'INVITATION', 'REGISTRATION', 'MAIL_CHANGE')),
  -- MAIL_CHANGE only: the address that becomes the account's once the link is opened.
  new_mail       TEXT    CHECK ((purpose = 'MAIL_CHANGE') = (new_mail IS NOT NULL)),
  expires_at     TEXT    NOT NULL,
  used_at        TEXT,
  created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO mail_token_with_mail_change (id, token_hash, utilisateur_id, purpose, expires_at, used_at, created_at)
  SELECT id, token_hash, utilisateur_id, purpose, expires_at, used_at, created_at FROM mail_token;
DROP TABLE mail_token;
ALTER TABLE mail_token_with_mail_change RENAME TO mail_token;
CREATE INDEX mail_token_utilisateur ON mail_token (utilisateur_id, purpose);
CREATE INDEX mail_token_expires ON mail_token (expires_at);
