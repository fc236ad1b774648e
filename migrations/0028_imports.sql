-- Migration number: 0028 	 Imports of structures and users from CSV files, run in the background on a
-- queue (services/bulk/upload.ts, run.ts).
--
-- `import`: one file posted, its progress and counts; `APERCU`, a preview kept for the screens until it is
-- imported (a day at most), its counts and errors the preview's. `auteur_id` is the importer as the scope knows them
-- (a user's id; a service account's, negative). `domaine` is the origin new users are bound to and
-- `origine` the one their invitation links lead to, both as the request that posted the file saw them.
-- `import_lot`: the file's rows, cut into chunks as they were read (`lignes`: JSON `[[line, [cells…],
-- [problems…]], …]`), each run as one D1 batch that deletes it: a lot still there is a lot to run.
-- `import_erreur`: each row's problems (`valeurs`: the JSON values its message names, rendered in the
-- reader's language), kept with the import.
CREATE TABLE import (
  id             INTEGER PRIMARY KEY,
  type           TEXT    NOT NULL CHECK (type IN ('structures', 'utilisateurs')),
  etat           TEXT    NOT NULL DEFAULT 'RECEPTION'
                   CHECK (etat IN ('RECEPTION', 'APERCU', 'EN_ATTENTE', 'EN_COURS', 'TERMINE', 'ECHEC')),
  auteur_id      INTEGER NOT NULL,
  fichier        TEXT    NOT NULL,
  domaine        TEXT    NOT NULL,
  origine        TEXT    NOT NULL,
  inviter        INTEGER NOT NULL DEFAULT 0,
  lignes         INTEGER NOT NULL DEFAULT 0,
  lots           INTEGER NOT NULL DEFAULT 0,
  traitees       INTEGER NOT NULL DEFAULT 0,
  creees         INTEGER NOT NULL DEFAULT 0,
  modifiees      INTEGER NOT NULL DEFAULT 0,
  inchangees     INTEGER NOT NULL DEFAULT 0,
  lignes_erreur  INTEGER NOT NULL DEFAULT 0,
  erreurs        INTEGER NOT NULL DEFAULT 0,
  motif_echec    TEXT,
  created_at     TEXT    NOT NULL,
  -- The last step it took: one that stalls (a message lost) is sent on again by the minute's cron.
  updated_at     TEXT    NOT NULL,
  started_at     TEXT,
  finished_at    TEXT
);
CREATE INDEX import_auteur ON import (auteur_id, id);
CREATE INDEX import_created ON import (created_at);
CREATE INDEX import_running ON import (etat, updated_at) WHERE etat IN ('EN_ATTENTE', 'EN_COURS');

CREATE TABLE import_lot (
  import_id  INTEGER NOT NULL REFERENCES import (id) ON DELETE CASCADE,
  numero     INTEGER NOT NULL,
  lignes     TEXT    NOT NULL,
  PRIMARY KEY (import_id, numero)
) WITHOUT ROWID;

CREATE TABLE import_erreur (
  id         INTEGER PRIMARY KEY,
  import_id  INTEGER NOT NULL REFERENCES import (id) ON DELETE CASCADE,
  ligne      INTEGER NOT NULL,
  colonne    TEXT,
  code       TEXT    NOT NULL,
  valeurs    TEXT
);
CREATE INDEX import_erreur_ligne ON import_erreur (import_id, ligne, id);
