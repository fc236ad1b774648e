-- Migration number: 0034 	 Service accounts and structures are searched by name whatever the case and accents.
--
-- The searched words are folded (worker-api/lib/search-text.ts); a column compared with them must be folded the same
-- way, as `utilisateur.recherche` is (migration 0009, whose triggers these copy, a few replacements per statement).
-- `compte_service.recherche` holds its folded name, `structure.recherche` its structure's: "reseau" and "Réseau" find
-- "Réseau Sud" alike. Without them an accented word found nothing, not even written as the name is.
ALTER TABLE compte_service ADD COLUMN recherche TEXT NOT NULL DEFAULT '';
ALTER TABLE structure ADD COLUMN recherche TEXT NOT NULL DEFAULT '';

CREATE TRIGGER compte_service_recherche_insert AFTER INSERT ON compte_service
BEGIN
  UPDATE compte_service SET recherche = lower(NEW.nom) WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(recherche, 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss') WHERE id = NEW.id;
END;

CREATE TRIGGER compte_service_recherche_update AFTER UPDATE OF nom ON compte_service
BEGIN
  UPDATE compte_service SET recherche = lower(NEW.nom) WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y') WHERE id = NEW.id;
  UPDATE compte_service SET recherche = replace(replace(replace(replace(replace(recherche, 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss') WHERE id = NEW.id;
END;

CREATE TRIGGER structure_recherche_insert AFTER INSERT ON structure
BEGIN
  UPDATE structure SET recherche = lower(NEW.nom) WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(recherche, 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss') WHERE id = NEW.id;
END;

CREATE TRIGGER structure_recherche_update AFTER UPDATE OF nom ON structure
BEGIN
  UPDATE structure SET recherche = lower(NEW.nom) WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'à', 'a'), 'á', 'a'), 'â', 'a'), 'ã', 'a'), 'ä', 'a'), 'å', 'a'), 'À', 'a') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Á', 'a'), 'Â', 'a'), 'Ã', 'a'), 'Ä', 'a'), 'Å', 'a'), 'ç', 'c'), 'Ç', 'c') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'è', 'e'), 'é', 'e'), 'ê', 'e'), 'ë', 'e'), 'È', 'e'), 'É', 'e'), 'Ê', 'e') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ë', 'e'), 'ì', 'i'), 'í', 'i'), 'î', 'i'), 'ï', 'i'), 'Ì', 'i'), 'Í', 'i') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Î', 'i'), 'Ï', 'i'), 'ñ', 'n'), 'Ñ', 'n'), 'ò', 'o'), 'ó', 'o'), 'ô', 'o') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'õ', 'o'), 'ö', 'o'), 'ø', 'o'), 'Ò', 'o'), 'Ó', 'o'), 'Ô', 'o'), 'Õ', 'o') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ö', 'o'), 'Ø', 'o'), 'ù', 'u'), 'ú', 'u'), 'û', 'u'), 'ü', 'u'), 'Ù', 'u') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(replace(replace(recherche, 'Ú', 'u'), 'Û', 'u'), 'Ü', 'u'), 'ý', 'y'), 'ÿ', 'y'), 'Ý', 'y'), 'Ÿ', 'y') WHERE id = NEW.id;
  UPDATE structure SET recherche = replace(replace(replace(replace(replace(recherche, 'œ', 'oe'), 'Œ', 'oe'), 'æ', 'ae'), 'Æ', 'ae'), 'ß', 'ss') WHERE id = NEW.id;
END;

-- Those there already: the update triggers fold their names.
UPDATE compte_service SET nom = nom;
UPDATE structure SET nom = nom;
