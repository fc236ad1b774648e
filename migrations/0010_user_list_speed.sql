-- Migration number: 0010 	 The user list answers as fast for the root of 100 000 users as for a site.
--
-- 1. `utilisateur.postes_fin`: the last end date of the user's posts ('' with none), kept by the
--    triggers below whatever writes a post. "Has a current or future post" is then `postes_fin >= today`,
--    a column an index answers: the users seen by domain alone (no such post, DESIGN §4) are found
--    without probing the posts of every user.
-- 2. An index for the list sorted by first name (the name index serves the sort by name).
-- 3. `utilisateur_liste_total`: the totals of the list's pages (`X-Total-Count`) by viewer, day and
--    filters. Counting the root's 100 000 users costs a tenth of a second; a page costs a millisecond.
--    The triggers below empty the table whenever anything a total depends on is written (a user's
--    flags, names or domain, a post, a structure's place in the tree), so a total read from it is the
--    count at that moment; the day is part of the key because posts start and end with the date.

ALTER TABLE utilisateur ADD COLUMN postes_fin TEXT NOT NULL DEFAULT '';
UPDATE utilisateur
   SET postes_fin = coalesce((SELECT max(date_fin) FROM poste WHERE poste.utilisateur_id = utilisateur.id), '');
CREATE INDEX utilisateur_postes_fin ON utilisateur (postes_fin);

CREATE TRIGGER poste_fin_insert AFTER INSERT ON poste
BEGIN
  UPDATE utilisateur SET postes_fin = NEW.date_fin WHERE id = NEW.utilisateur_id AND postes_fin < NEW.date_fin;
END;

CREATE TRIGGER poste_fin_update AFTER UPDATE OF utilisateur_id, date_fin ON poste
BEGIN
  UPDATE utilisateur
     SET postes_fin = coalesce((SELECT max(date_fin) FROM poste WHERE poste.utilisateur_id = utilisateur.id), '')
   WHERE id IN (OLD.utilisateur_id, NEW.utilisateur_id);
END;

CREATE TRIGGER poste_fin_delete AFTER DELETE ON poste
BEGIN
  UPDATE utilisateur
     SET postes_fin = coalesce((SELECT max(date_fin) FROM poste WHERE poste.utilisateur_id = utilisateur.id), '')
   WHERE id = OLD.utilisateur_id;
END;

CREATE INDEX utilisateur_prenom ON utilisateur (prenom COLLATE NOCASE, nom COLLATE NOCASE);

CREATE TABLE utilisateur_liste_total (
  cle   TEXT    PRIMARY KEY,
  jour  TEXT    NOT NULL,
  total INTEGER NOT NULL
);

CREATE TRIGGER liste_total_utilisateur_insert AFTER INSERT ON utilisateur
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_utilisateur_update
AFTER UPDATE OF actif, supprime, admin, domain, registration_state, recherche, postes_fin ON utilisateur
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_utilisateur_delete AFTER DELETE ON utilisateur
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_poste_insert AFTER INSERT ON poste
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_poste_update AFTER UPDATE ON poste
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_poste_delete AFTER DELETE ON poste
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_structure_insert AFTER INSERT ON structure
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_structure_update AFTER UPDATE OF path ON structure
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_structure_delete AFTER DELETE ON structure
BEGIN
  DELETE FROM utilisateur_liste_total;
END;
