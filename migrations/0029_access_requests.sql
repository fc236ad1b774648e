-- Migration number: 0029 	 Access requests from the launcher (services/governance/requests.ts), and the history's
-- types for them and for access reviews.
--
-- `application.demandable`: a root administrator lets users ask for it from "Mes accès".
-- `parametre_securite.demande_duree_max_jours`: the longest period a request may ask for (90 days unless changed).
-- `demande_acces`: one request, its state and its decision. At most one request of a user for an application waits at a
-- time (`demande_en_attente`, which the insert relies on). `decision` is a random mark the deciding batch sets with the
-- state, so that the post and the entries of that batch are written only if its own decision took place.
-- `relance_at`: when the administrators of the next sub-tree up were told of a request still waiting. `decideur_id`: who
-- decided, as the scope knows them (a user's id; a service account's, negative), as `import.auteur_id`.
ALTER TABLE application ADD COLUMN demandable INTEGER NOT NULL DEFAULT 0 CHECK (demandable IN (0, 1));
ALTER TABLE parametre_securite ADD COLUMN demande_duree_max_jours INTEGER NOT NULL DEFAULT 90
  CHECK (demande_duree_max_jours BETWEEN 1 AND 3660);

CREATE TABLE demande_acces (
  id             INTEGER PRIMARY KEY,
  utilisateur_id INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  application_id INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  motif          TEXT    NOT NULL,
  date_debut     TEXT    NOT NULL,
  date_fin       TEXT    NOT NULL,
  etat           TEXT    NOT NULL DEFAULT 'EN_ATTENTE'
                   CHECK (etat IN ('EN_ATTENTE', 'ACCORDEE', 'REFUSEE', 'RETIREE', 'EXPIREE')),
  created_at     TEXT    NOT NULL,
  relance_at     TEXT,
  decided_at     TEXT,
  decideur_id    INTEGER,
  commentaire    TEXT,
  decision       TEXT,
  poste_id       INTEGER REFERENCES poste (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX demande_en_attente ON demande_acces (utilisateur_id, application_id) WHERE etat = 'EN_ATTENTE';
CREATE INDEX demande_attente_date ON demande_acces (created_at) WHERE etat = 'EN_ATTENTE';
CREATE INDEX demande_utilisateur ON demande_acces (utilisateur_id, created_at);

-- The history's types: the table is rebuilt to widen its CHECK (SQLite cannot alter one), keeping every entry and id
-- (the kept totals of `utilisateur_liste_total` name entries by id).
CREATE TABLE log_types (
  id                 INTEGER PRIMARY KEY,
  date               TEXT    NOT NULL,
  utilisateur_id     INTEGER REFERENCES utilisateur (id) ON DELETE SET NULL,
  type_log           TEXT    NOT NULL CHECK (type_log IN
                     ('CONNEXION', 'DECONNEXION', 'APPLICATION', 'APPLI_YARD', 'APPLI_PESAGE', 'APPLI_MODRDV', 'ADMINISTRATION',
                      'DEMANDE_ACCES', 'REVUE_ACCES')),
  nom_log            TEXT    NOT NULL,
  commentaire        TEXT,
  nom_navigateur     TEXT,
  version_navigateur TEXT,
  source             TEXT    NOT NULL DEFAULT 'SERVEUR' CHECK (source IN ('SERVEUR', 'CLIENT')),
  compte_service_id  INTEGER REFERENCES compte_service (id)
);
INSERT INTO log_types (id, date, utilisateur_id, type_log, nom_log, commentaire, nom_navigateur, version_navigateur,
    source, compte_service_id)
  SELECT id, date, utilisateur_id, type_log, nom_log, commentaire, nom_navigateur, version_navigateur, source,
    compte_service_id FROM log;
DROP TABLE log;
ALTER TABLE log_types RENAME TO log;
CREATE INDEX log_utilisateur ON log (utilisateur_id, date);
CREATE INDEX log_date_utilisateur ON log (date, utilisateur_id);
CREATE INDEX log_type_date ON log (type_log, date, utilisateur_id);
CREATE INDEX log_compte_service ON log (compte_service_id, date) WHERE compte_service_id IS NOT NULL;
