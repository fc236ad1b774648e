-- Migration number: 0016 	 The catalogue of applications, administered in the portal.
--
-- An application can be switched off without losing its grants (`actif`: it leaves every launcher
-- and its launch answers as for an unknown one), says how it receives its users (`protocole`: `CODE`,
-- the spec's single-use launch code), and its name is unique whatever its case.
ALTER TABLE application ADD COLUMN actif INTEGER NOT NULL DEFAULT 1 CHECK (actif IN (0, 1));
ALTER TABLE application ADD COLUMN protocole TEXT NOT NULL DEFAULT 'CODE' CHECK (protocole IN ('CODE'));
CREATE UNIQUE INDEX application_libelle_nocase ON application (libelle COLLATE NOCASE);
