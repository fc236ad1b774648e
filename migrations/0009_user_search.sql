-- Migration number: 0009 	 The user list searches first and last names whatever their case and accents.
-- SQLite folds only ASCII case and cannot strip accents, so each user keeps a folded copy of
-- "nom prenom" in `recherche`, kept by triggers whatever writes the row (the API, the seeds, a fix
-- by hand). The letters folded are those of worker-api/lib/search-text.ts,
-- which folds the searched words the same way (a test compares both).
ALTER TABLE utilisateur ADD COLUMN recherche TEXT NOT NULL DEFAULT '';

CREATE TRIGGER utilisateur_recherche_insert AFTER INSERT ON utilisateur
BEGIN
  UPDATE utilisateur SET recherche = lower(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(NEW.nom || ' ' || NEW.prenom, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a'), 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c'), 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e'), 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i'), 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o'), 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o'), 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u'), 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y'), 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss')) WHERE id = NEW.id;
END;

CREATE TRIGGER utilisateur_recherche_update AFTER UPDATE OF nom, prenom ON utilisateur
BEGIN
  UPDATE utilisateur SET recherche = lower(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(NEW.nom || ' ' || NEW.prenom, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a'), 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c'), 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e'), 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i'), 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o'), 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o'), 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u'), 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y'), 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss')) WHERE id = NEW.id;
END;

-- The users there are already: the update trigger folds their names.
UPDATE utilisateur SET nom = nom;
