-- Migration number: 0006 	 Failure counters kept apart: sign-in failures and wrong old passwords each
-- have their own counter, so no identifier typed at sign-in can reach the password-change counter.
CREATE TABLE login_attempt_by_counter (
  counter         TEXT    NOT NULL DEFAULT 'login' CHECK (counter IN ('login', 'password-change')),
  identifier      TEXT    NOT NULL,
  failures        INTEGER NOT NULL DEFAULT 0,
  last_failure_at TEXT    NOT NULL,
  locked_until    TEXT,
  PRIMARY KEY (counter, identifier)
) WITHOUT ROWID;
-- Sign-in counts carry over. The former password-change counts do not: a sign-in could have planted
-- them, and starting them over only gives a few more guesses to someone already signed in.
INSERT INTO login_attempt_by_counter (counter, identifier, failures, last_failure_at, locked_until)
  SELECT 'login', identifier, failures, last_failure_at, locked_until FROM login_attempt
  WHERE identifier NOT LIKE 'password-change:%';
DROP TABLE login_attempt;
ALTER TABLE login_attempt_by_counter RENAME TO login_attempt;
CREATE INDEX login_attempt_last_failure ON login_attempt (last_failure_at);
