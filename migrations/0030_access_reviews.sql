-- Migration number: 0030 	 Access reviews (services/governance/reviews.ts): campaigns in which the administrators of
-- a sub-tree confirm or end every current post of it.
--
-- `revue`: a campaign over the sub-tree of `structure_id` (its path kept in `chemin`, its name in `structure_nom`, for
-- the report whatever becomes of it), due on `echeance` ('YYYY-MM-DD'), with what happens then to a post nobody
-- reviewed (`si_non_revu`). `etat`: OUVERTURE while its items are being written (`curseur`: the last post id gone through,
-- a window of ids per message of the queue), OUVERTE, ECHEANCE while the due date's batches handle the undecided, ECHUE, CLOTUREE.
-- `dernier_poste`: the last post id when it opened (the posts after it were not current then).
-- `auteur_id`, `cloture_par`: as the scope knows them (a user's id; a service account's, negative).
-- `rappel_mi_parcours_at`, `rappel_echeance_at`: when the reminders went.
-- `revue_element`: one current post of the sub-tree when the campaign opened, with what the report names of it
-- (copied: the post may end, the user be renamed), and its review: A_REVOIR, CONFIRME or TERMINE (`date_fin_decidee`:
-- the end given), by whom, when, why; `automatique` when the due date decided it. `decision`: the mark of the batch that
-- decided it, so that the entries and the post's end of that batch are written only for the items it decided.
-- `revue_progression`: per campaign and structure, the items and those decided, kept by the batches that change them,
-- so that progress is read without counting a hundred thousand items.
CREATE TABLE revue (
  id                    INTEGER PRIMARY KEY,
  nom                   TEXT    NOT NULL,
  structure_id          INTEGER NOT NULL,
  structure_nom         TEXT    NOT NULL,
  chemin                TEXT    NOT NULL,
  echeance              TEXT    NOT NULL,
  si_non_revu           TEXT    NOT NULL CHECK (si_non_revu IN ('CONSERVER', 'TERMINER')),
  etat                  TEXT    NOT NULL DEFAULT 'OUVERTURE'
                          CHECK (etat IN ('OUVERTURE', 'OUVERTE', 'ECHEANCE', 'ECHUE', 'CLOTUREE')),
  auteur_id             INTEGER NOT NULL,
  domaine               TEXT    NOT NULL,
  created_at            TEXT    NOT NULL,
  updated_at            TEXT    NOT NULL,
  curseur               INTEGER NOT NULL DEFAULT 0,
  dernier_poste         INTEGER NOT NULL DEFAULT 0,
  elements              INTEGER NOT NULL DEFAULT 0,
  rappel_mi_parcours_at TEXT,
  rappel_echeance_at    TEXT,
  echue_at              TEXT,
  cloturee_at           TEXT,
  cloture_par           INTEGER
);
CREATE INDEX revue_chemin ON revue (chemin);
CREATE INDEX revue_etat ON revue (etat, echeance);

CREATE TABLE revue_element (
  id                INTEGER PRIMARY KEY,
  revue_id          INTEGER NOT NULL REFERENCES revue (id) ON DELETE CASCADE,
  poste_id          INTEGER REFERENCES poste (id) ON DELETE SET NULL,
  utilisateur_id    INTEGER REFERENCES utilisateur (id) ON DELETE SET NULL,
  structure_id      INTEGER NOT NULL,
  chemin            TEXT    NOT NULL,
  login             TEXT    NOT NULL,
  nom               TEXT    NOT NULL,
  prenom            TEXT    NOT NULL,
  structure_nom     TEXT    NOT NULL,
  fonction_libelle  TEXT    NOT NULL,
  date_debut        TEXT    NOT NULL,
  date_fin          TEXT    NOT NULL,
  etat              TEXT    NOT NULL DEFAULT 'A_REVOIR' CHECK (etat IN ('A_REVOIR', 'CONFIRME', 'TERMINE')),
  decided_at        TEXT,
  decideur_id       INTEGER,
  decideur_nom      TEXT,
  commentaire       TEXT,
  date_fin_decidee  TEXT,
  automatique       INTEGER NOT NULL DEFAULT 0 CHECK (automatique IN (0, 1)),
  decision          TEXT
);
CREATE UNIQUE INDEX revue_element_poste ON revue_element (revue_id, poste_id);
CREATE INDEX revue_element_liste ON revue_element (revue_id, chemin, etat, id);
CREATE INDEX revue_element_etat ON revue_element (revue_id, etat, id);

CREATE TABLE revue_progression (
  revue_id     INTEGER NOT NULL REFERENCES revue (id) ON DELETE CASCADE,
  structure_id INTEGER NOT NULL,
  chemin       TEXT    NOT NULL,
  nom          TEXT    NOT NULL,
  total        INTEGER NOT NULL DEFAULT 0,
  confirmes    INTEGER NOT NULL DEFAULT 0,
  termines     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (revue_id, structure_id)
) WITHOUT ROWID;
