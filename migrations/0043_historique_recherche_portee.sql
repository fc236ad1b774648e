-- Migration number: 0043 	 An entry a search of the archive found keeps its structure (the one it was archived with):
-- its pages and CSV are read again in the author's scope of the day, so a result found under a wider scope is not read
-- once the scope has shrunk.
ALTER TABLE historique_recherche_entree ADD COLUMN structure_id INTEGER;
