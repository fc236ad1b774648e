-- Migration number: 0017 	 A function's name is unique in its structure whatever its case.
--
-- Administrators now create and rename functions in the portal: "Agent de quai" and "agent de quai"
-- in one structure would be two choices that read as one. The table's own UNIQUE (structure_id,
-- libelle) stays; this index also refuses a name that differs only by its case.
CREATE UNIQUE INDEX fonction_libelle_nocase ON fonction (structure_id, libelle COLLATE NOCASE);
