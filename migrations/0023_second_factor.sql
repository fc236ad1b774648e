-- Migration number: 0023 	 A second factor (TOTP, passkeys, recovery codes), the policy that requires
-- one of administrators, and what the list of a user's sessions shows (DESIGN §3b).

-- The organisation's security settings: one row.
CREATE TABLE parametre_securite (
  id                         INTEGER PRIMARY KEY CHECK (id = 1),
  -- An administrator without a second factor is taken to enrolment and refused every admin call.
  mfa_requis_administrateurs INTEGER NOT NULL DEFAULT 0 CHECK (mfa_requis_administrateurs IN (0, 1))
);
INSERT INTO parametre_securite (id, mfa_requis_administrateurs) VALUES (1, 0);

-- TOTP (RFC 6238): the confirmed secret, and an enrolment waiting for its first code (which replaces
-- it once confirmed). A code is accepted once: the last time step accepted is kept.
CREATE TABLE mfa_totp (
  utilisateur_id     INTEGER PRIMARY KEY REFERENCES utilisateur (id) ON DELETE CASCADE,
  secret             TEXT,
  confirmed_at       TEXT,
  last_step          INTEGER NOT NULL DEFAULT 0,
  pending_secret     TEXT,
  pending_created_at TEXT
) WITHOUT ROWID;

-- Ten single-use recovery codes per user, stored as their SHA-256.
CREATE TABLE mfa_recovery_code (
  id             INTEGER PRIMARY KEY,
  utilisateur_id INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  code_hash      TEXT    NOT NULL,
  used_at        TEXT,
  UNIQUE (utilisateur_id, code_hash)
);

-- WebAuthn credentials (passkeys), bound to the relying party (the user's domain's host).
CREATE TABLE passkey (
  id             TEXT    PRIMARY KEY,
  utilisateur_id INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  nom            TEXT    NOT NULL,
  public_key     TEXT    NOT NULL,
  counter        INTEGER NOT NULL DEFAULT 0,
  transports     TEXT,
  rp_id          TEXT    NOT NULL,
  created_at     TEXT    NOT NULL,
  last_used_at   TEXT
);
CREATE INDEX passkey_user ON passkey (utilisateur_id);

-- Single-use challenges: the second step of a sign-in (after the right password), and WebAuthn's.
CREATE TABLE mfa_challenge (
  hash           TEXT PRIMARY KEY,
  purpose        TEXT NOT NULL CHECK (purpose IN ('LOGIN', 'PASSKEY_REGISTRATION', 'PASSKEY_LOGIN')),
  utilisateur_id INTEGER REFERENCES utilisateur (id) ON DELETE CASCADE,
  -- LOGIN: the sign-in counter's identifier (wrong codes count with wrong passwords).
  identifier     TEXT,
  -- WebAuthn: the challenge the browser signs.
  webauthn       TEXT,
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX mfa_challenge_expiry ON mfa_challenge (expires_at);

-- A portal session's browser, as the sign-in saw it (the first row of its family).
ALTER TABLE refresh_token ADD COLUMN nom_navigateur TEXT;
ALTER TABLE refresh_token ADD COLUMN version_navigateur TEXT;
