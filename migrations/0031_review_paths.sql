-- Migration number: 0031 	 A campaign follows the tree, finds its people by their folded names, and marks its due date.
--
-- The scope of a campaign and of its items is checked on their copied paths (`revue.chemin`, `revue_element.chemin`,
-- `revue_progression.chemin`: the order of the index the reviewers' pages read). A structure moved under another
-- administrator takes its items with it: a trigger keeps the copies on the structure's path, in the statement that
-- moves it (by `structure_id`, hence the index). A structure deleted keeps its last path.
-- `revue_element.recherche`: the user's folded "nom prenom" (`utilisateur.recherche`, migration 0009) as the campaign
-- found it, which the items' search compares the folded words with.
-- `revue.marque`: the mark of the due date's last step (review-runs.ts), so that a step delivered twice writes the
-- campaign's entry once.
-- `log_utilisateur_type`: a user's last entry of a type (their last sign-in, their last launch) in one seek, as a
-- reviewer's page reads it for each of its 50 posts; by the user's entries alone it walks them all, each read from the
-- table for its type.
ALTER TABLE revue_element ADD COLUMN recherche TEXT NOT NULL DEFAULT '';
UPDATE revue_element SET recherche = coalesce((SELECT u.recherche FROM utilisateur u WHERE u.id = revue_element.utilisateur_id), lower(nom || ' ' || prenom));
ALTER TABLE revue ADD COLUMN marque TEXT;
CREATE INDEX revue_element_structure ON revue_element (structure_id);
CREATE INDEX log_utilisateur_type ON log (utilisateur_id, type_log, date);

CREATE TRIGGER revue_structure_path AFTER UPDATE OF path ON structure
BEGIN
  UPDATE revue SET chemin = NEW.path WHERE structure_id = NEW.id;
  UPDATE revue_element SET chemin = NEW.path WHERE structure_id = NEW.id;
  UPDATE revue_progression SET chemin = NEW.path WHERE structure_id = NEW.id;
END;
