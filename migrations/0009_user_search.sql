-- Migration number: 0009 	 The user list searches first and last names whatever their case and accents.
-- SQLite folds only ASCII case and cannot strip accents, so each user keeps a folded copy of
-- "nom prenom" in `recherche`, kept by triggers whatever writes the row (the API, the seeds, a fix
-- by hand). The letters folded are those of worker-api/lib/search-text.ts, which folds the searched
-- words the same way (a test compares both). The replacements run a few per statement: one deeply
-- nested expression overflows the parser stack of some SQLite builds.
ALTER TABLE utilisateur ADD COLUMN recherche TEXT NOT NULL DEFAULT '';

CREATE TRIGGER utilisateur_recherche_insert AFTER INSERT ON utilisateur
BEGIN
  UPDATE utilisateur SET recherche = lower(NEW.nom || ' ' || NEW.prenom) WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(recherche, 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss') WHERE id = NEW.id;
END;

CREATE TRIGGER utilisateur_recherche_update AFTER UPDATE OF nom, prenom ON utilisateur
BEGIN
  UPDATE utilisateur SET recherche = lower(NEW.nom || ' ' || NEW.prenom) WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y') WHERE id = NEW.id;
  UPDATE utilisateur SET recherche = replace(replace(replace(replace(replace(recherche, 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss') WHERE id = NEW.id;
END;

-- The users there are already: the update trigger folds their names.
UPDATE utilisateur SET nom = nom;
