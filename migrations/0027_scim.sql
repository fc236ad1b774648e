-- Migration number: 0027 	 SCIM 2.0 provisioning: the id an HR system knows a user by, and the
-- version of a user's SCIM representation (its weak ETag).
--
-- `external_id`: SCIM's `externalId`, the provisioning client's own id (case-exact, not unique: two
-- clients may use the same ids).
-- `version`: one more at each change of what SCIM shows of a user (names, mail, login, flags, posts),
-- kept by triggers whatever made the change (the screens, the REST API or SCIM), so that `If-Match`
-- is checked inside the write that it guards (`where version = ?`); an update that changes nothing
-- leaves it.
ALTER TABLE utilisateur ADD COLUMN external_id TEXT;
ALTER TABLE utilisateur ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
CREATE INDEX utilisateur_external_id ON utilisateur (external_id) WHERE external_id IS NOT NULL;

CREATE TRIGGER version_utilisateur AFTER UPDATE OF login, nom, prenom, mail, actif, supprime, admin, external_id
  ON utilisateur
  WHEN OLD.login IS NOT NEW.login OR OLD.nom IS NOT NEW.nom OR OLD.prenom IS NOT NEW.prenom
    OR OLD.mail IS NOT NEW.mail OR OLD.actif IS NOT NEW.actif OR OLD.supprime IS NOT NEW.supprime
    OR OLD.admin IS NOT NEW.admin OR OLD.external_id IS NOT NEW.external_id
BEGIN
  UPDATE utilisateur SET version = version + 1 WHERE id = NEW.id;
END;

CREATE TRIGGER version_poste_insert AFTER INSERT ON poste
BEGIN
  UPDATE utilisateur SET version = version + 1 WHERE id = NEW.utilisateur_id;
END;

CREATE TRIGGER version_poste_update AFTER UPDATE ON poste
  WHEN OLD.utilisateur_id IS NOT NEW.utilisateur_id OR OLD.structure_id IS NOT NEW.structure_id
    OR OLD.fonction_id IS NOT NEW.fonction_id OR OLD.date_debut IS NOT NEW.date_debut
    OR OLD.date_fin IS NOT NEW.date_fin
BEGIN
  UPDATE utilisateur SET version = version + 1 WHERE id IN (OLD.utilisateur_id, NEW.utilisateur_id);
END;

CREATE TRIGGER version_poste_delete AFTER DELETE ON poste
BEGIN
  UPDATE utilisateur SET version = version + 1 WHERE id = OLD.utilisateur_id;
END;
