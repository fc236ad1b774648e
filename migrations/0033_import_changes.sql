-- Migration number: 0033 	 What a kept preview of a users file will change of existing users
-- (services/bulk/changes.ts), shown before "Importer".
--
-- `import_changement`: each row of the file that renames an existing user, changes their address, makes them an
-- administrator or removes them as one, deactivates or reactivates them (`valeurs`: JSON, the fields it changes,
-- as the contract's ImportChange writes them), stored with the preview's lots and deleted when it is imported or
-- with its import. `import.changements`: how many such rows in all.
ALTER TABLE import ADD COLUMN changements INTEGER NOT NULL DEFAULT 0;

CREATE TABLE import_changement (
  import_id  INTEGER NOT NULL REFERENCES import (id) ON DELETE CASCADE,
  ligne      INTEGER NOT NULL,
  login      TEXT    NOT NULL,
  valeurs    TEXT    NOT NULL,
  PRIMARY KEY (import_id, ligne)
) WITHOUT ROWID;
