-- Migration number: 0024 	 Why a session was ended, for the browser that held it: another of the
-- user's sessions ended it (a sign-out elsewhere, "end the other sessions", a password changed), or an
-- administrator did. The sign-in page says so instead of nothing.
ALTER TABLE refresh_token ADD COLUMN revoked_reason TEXT
  CHECK (revoked_reason IS NULL OR revoked_reason IN ('AUTRE_APPAREIL', 'ADMINISTRATEUR'));
