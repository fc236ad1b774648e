-- Migration number: 0032 	 A run of failed client authentications at the token endpoint is one history entry.
--
-- A client's (an application's or a service account's) failures in a row: the history entry the run wrote at its
-- first failure, whose count the later ones update. A success ends the run, and so does an hour without failure.
-- Bookkeeping, as `rate_limit` is: the hourly purge forgets the runs that ended.
CREATE TABLE client_auth_failure_run (
  client_id        TEXT    NOT NULL PRIMARY KEY,
  log_id           INTEGER NOT NULL,
  failures         INTEGER NOT NULL,
  last_failure_at  TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX client_auth_failure_run_last ON client_auth_failure_run (last_failure_at);
