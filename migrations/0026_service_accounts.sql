-- Migration number: 0026 	 Service accounts: programs that call the API with client credentials
-- (RFC 6749 §4.4), each belonging to a structure and acting within that structure's sub-tree.
--
-- An account is not a user: it has no password, mail, post or session, appears in no list of users
-- and never signs in. Its secrets are stored as SHA-256 digests (a secret is 256 random bits, so a
-- slow hash would protect nothing more); `ancien_secret_hash` keeps working until
-- `ancien_secret_expire` after a rotation. `jwks` holds the public keys of `private_key_jwt`.
-- A deleted account stays (`supprime`), so that the history still names it; a live one
-- keeps its structure from being deleted (`structure_id` is null only once a deleted one's is gone).
CREATE TABLE compte_service (
  id                    INTEGER PRIMARY KEY,
  nom                   TEXT    NOT NULL,
  description           TEXT,
  structure_id          INTEGER REFERENCES structure (id) ON DELETE SET NULL,
  admin                 INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
  scopes                TEXT    NOT NULL,
  client_id             TEXT    NOT NULL UNIQUE,
  secret_hash           TEXT,
  ancien_secret_hash    TEXT,
  ancien_secret_expire  TEXT,
  jwks                  TEXT,
  domain                TEXT    NOT NULL,
  actif                 INTEGER NOT NULL DEFAULT 1 CHECK (actif IN (0, 1)),
  supprime              INTEGER NOT NULL DEFAULT 0 CHECK (supprime IN (0, 1)),
  created_at            TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  cree_par              INTEGER REFERENCES utilisateur (id) ON DELETE SET NULL
);
CREATE INDEX compte_service_structure ON compte_service (structure_id, supprime);

-- An account's calls: of the current minute (its rate limit) and day (its list and the administration
-- home), and its last, counted by the very statement that checks the account at each call (so they
-- cost no round trip), refused calls included. Bookkeeping, as `rate_limit` is.
CREATE TABLE compte_service_usage (
  compte_service_id     INTEGER PRIMARY KEY REFERENCES compte_service (id) ON DELETE CASCADE,
  minute                TEXT    NOT NULL,
  appels_minute         INTEGER NOT NULL,
  jour                  TEXT    NOT NULL,
  appels_jour           INTEGER NOT NULL,
  derniere_utilisation  TEXT    NOT NULL
);

-- The `jti` of the client assertions accepted (RFC 7523 §3: single use), kept until they expire.
CREATE TABLE client_assertion_jti (
  cle         TEXT PRIMARY KEY,
  expires_at  TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX client_assertion_jti_expiry ON client_assertion_jti (expires_at);

-- The history names the account that acted; `utilisateur_id` stays null on its entries.
ALTER TABLE log ADD COLUMN compte_service_id INTEGER REFERENCES compte_service (id);
CREATE INDEX log_compte_service ON log (compte_service_id, date) WHERE compte_service_id IS NOT NULL;
