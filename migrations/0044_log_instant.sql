-- Migration number: 0044 	 The history in less room (issue 64): 100 000 users write about 8 million entries a month,
-- and D1 must hold the kept months under 5 GB. An entry took 277 bytes, 190 of them in five indexes each repeating its
-- 24-character date. They now index `instant`, the date's milliseconds since 1970 computed by SQLite (a virtual
-- column: nothing more in the table, 6 bytes in an index), and a user's entries by type are indexed for the two types
-- a review asks for only (their last sign-in, their last launch: one seek each), as partial indexes. Measured with
-- dbstat on a million entries inserted in order: 179 bytes an entry (the table 87, its indexes 92).

ALTER TABLE log ADD COLUMN instant INTEGER
  GENERATED ALWAYS AS (CAST(round((julianday(date) - 2440587.5) * 86400000) AS INTEGER)) VIRTUAL;

DROP INDEX log_utilisateur;
DROP INDEX log_date_utilisateur;
DROP INDEX log_type_date;
DROP INDEX log_compte_service;
DROP INDEX log_utilisateur_type;

CREATE INDEX log_utilisateur ON log (utilisateur_id, instant);
-- Used only where named (`indexed by`); the launch types in the order of LAUNCH_LOG_TYPES (lib/log-types.ts), which
-- the query repeats: SQLite uses a partial index when the query's terms hold its own.
CREATE INDEX log_utilisateur_connexion ON log (utilisateur_id, instant) WHERE type_log = 'CONNEXION';
CREATE INDEX log_utilisateur_lancement ON log (utilisateur_id, instant)
  WHERE type_log IN ('APPLI_YARD', 'APPLI_MODRDV', 'APPLI_PESAGE', 'APPLICATION');
CREATE INDEX log_instant_utilisateur ON log (instant, utilisateur_id);
CREATE INDEX log_type_instant ON log (type_log, instant, utilisateur_id);
CREATE INDEX log_compte_service ON log (compte_service_id, instant) WHERE compte_service_id IS NOT NULL;

-- The months whose archiving entry is written (once, with the month's first lot removed from D1): looked up by its
-- key, where finding the entry itself in `log` read the whole table at each lot.
CREATE TABLE historique_archive_journal (
  mois TEXT NOT NULL PRIMARY KEY
) WITHOUT ROWID;
INSERT OR IGNORE INTO historique_archive_journal (mois)
  SELECT substr(commentaire, 1, 7) FROM log WHERE nom_log = 'HISTORIQUE_ARCHIVE' AND commentaire IS NOT NULL;
