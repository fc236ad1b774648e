-- Migration number: 0018 	 The functions a new structure of each type starts with.
--
-- Root administrators set, per structure type, the functions (and the applications each grants) that
-- a structure of that type is created with, in the portal or when a carrier's company is created at
-- its authorisation: copied once, then the structure's own. `position` keeps the order the
-- administrator gave (the first is the one the authorisation queue preselects).
CREATE TABLE modele_fonction (
  id       INTEGER PRIMARY KEY,
  type_id  INTEGER NOT NULL REFERENCES type_structure (id) ON DELETE CASCADE,
  libelle  TEXT    NOT NULL,
  position INTEGER NOT NULL
);
CREATE UNIQUE INDEX modele_fonction_libelle ON modele_fonction (type_id, libelle COLLATE NOCASE);

CREATE TABLE modele_fonction_application (
  modele_id      INTEGER NOT NULL REFERENCES modele_fonction (id) ON DELETE CASCADE,
  application_id INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  PRIMARY KEY (modele_id, application_id)
) WITHOUT ROWID;
CREATE INDEX modele_fonction_application_application ON modele_fonction_application (application_id);
