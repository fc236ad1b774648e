-- Migration number: 0041 	 Ten years of history (issue 64): D1 keeps the recent months of `log`; each month beyond is
-- written to R2 (binding ARCHIVE) as Parquet files, each listed here, and only then removed from D1.

-- The months of history D1 keeps (the current one included): older ones are archived (root administrators; 3 or more).
ALTER TABLE parametre_securite ADD COLUMN historique_mois_en_ligne INTEGER NOT NULL DEFAULT 13
  CHECK (historique_mois_en_ligne >= 3);

-- A Parquet file of the archive: a part of a month's entries, those whose ids run from id_min to id_max (every entry of
-- the month in that range, none left out). Listed only once the file is in R2, so an entry is removed from D1 only
-- when a listed file holds it; a part written again (a message delivered twice) has the same name and the same rows.
CREATE TABLE historique_archive (
  fichier    TEXT    NOT NULL PRIMARY KEY,
  -- 'YYYY-MM', of the entries' dates (UTC).
  mois       TEXT    NOT NULL,
  id_min     INTEGER NOT NULL,
  id_max     INTEGER NOT NULL,
  lignes     INTEGER NOT NULL,
  octets     INTEGER NOT NULL,
  -- The file's SHA-256 (hex): checked when it is read.
  sha256     TEXT    NOT NULL,
  date_min   TEXT    NOT NULL,
  date_max   TEXT    NOT NULL,
  created_at TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX historique_archive_mois ON historique_archive (mois, id_min);
