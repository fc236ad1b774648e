-- Migration number: 0042 	 Searches of the archived months (issue 64): a date range reaching months archived to R2 is
-- searched in the background, file after file on the jobs queue; its result is kept a day, paged and exported from here.

CREATE TABLE historique_recherche (
  -- Random and unguessable; only its author reads it.
  id                TEXT    NOT NULL PRIMARY KEY,
  -- Who asked: a user, or a service account (its id, positive).
  utilisateur_id    INTEGER REFERENCES utilisateur (id) ON DELETE CASCADE,
  compte_service_id INTEGER REFERENCES compte_service (id) ON DELETE CASCADE,
  -- The origin the author's account is bound to: their scope is read with it at each step.
  domaine           TEXT    NOT NULL,
  -- The filters (JSON, as POST rest/bd/logs/recherches took them).
  filtres           TEXT    NOT NULL,
  -- The range as instants (UTC), and its archived months.
  date_min          TEXT,
  date_max          TEXT,
  mois_debut        TEXT,
  mois_fin          TEXT,
  fichiers          INTEGER NOT NULL,
  fichiers_lus      INTEGER NOT NULL DEFAULT 0,
  -- The last file read: files are read newest first, by name.
  curseur           TEXT,
  entrees           INTEGER NOT NULL DEFAULT 0,
  etat              TEXT    NOT NULL DEFAULT 'EN_COURS' CHECK (etat IN ('EN_COURS', 'TERMINEE', 'TRONQUEE', 'ECHEC')),
  erreur            TEXT,
  created_at        TEXT    NOT NULL,
  expires_at        TEXT    NOT NULL,
  CHECK ((utilisateur_id IS NULL) <> (compte_service_id IS NULL))
);
CREATE INDEX historique_recherche_auteur ON historique_recherche (utilisateur_id, etat);
CREATE INDEX historique_recherche_compte ON historique_recherche (compte_service_id, etat);
CREATE INDEX historique_recherche_expiration ON historique_recherche (expires_at);

-- An entry found, as the history lists it (JSON of the entry): once per search whatever the deliveries (its id).
CREATE TABLE historique_recherche_entree (
  recherche_id TEXT    NOT NULL REFERENCES historique_recherche (id) ON DELETE CASCADE,
  id           INTEGER NOT NULL,
  date         TEXT    NOT NULL,
  entree       TEXT    NOT NULL,
  PRIMARY KEY (recherche_id, id)
) WITHOUT ROWID;
CREATE INDEX historique_recherche_entree_date ON historique_recherche_entree (recherche_id, date DESC, id DESC);
