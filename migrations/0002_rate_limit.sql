-- Migration number: 0002 	 Per-client request counters for rate limits (DESIGN §3).
-- Fixed one-minute windows, keyed by purpose and client address.
CREATE TABLE rate_limit (
  key          TEXT    NOT NULL PRIMARY KEY,
  window_start TEXT    NOT NULL,
  count        INTEGER NOT NULL
) WITHOUT ROWID;
