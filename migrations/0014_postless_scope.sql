-- Migration number: 0014 	 A user without a live post belongs to the scope of the post that ended last (DESIGN §4).
--
-- 1. `utilisateur.rattachement_id`: the structure a user belongs to when they hold no current or
--    future post — that of their post that ended last (latest end, then latest start, then latest
--    written), else, for a carrier who never held one, the company they registered with; NULL for a
--    user who never had either (or whose structure is gone). Kept by the triggers below whatever
--    writes a post or a registration's company, as `postes_fin` (migration 0010) is.
--    A delegated administrator reaches a postless user through it (lib/scope.ts); those with NULL are
--    the whole tree's administrators' only.
-- 2. `utilisateur (rattachement_id, postes_fin, domain)`: the postless users of a scope are gathered
--    from the scope's structure ids (and the unattached ones of a domain from NULL) without reading
--    the table.

ALTER TABLE utilisateur ADD COLUMN rattachement_id INTEGER REFERENCES structure (id) ON DELETE SET NULL;

UPDATE utilisateur
   SET rattachement_id = coalesce(
         (SELECT structure_id FROM poste WHERE poste.utilisateur_id = utilisateur.id
           ORDER BY date_fin DESC, date_debut DESC, id DESC LIMIT 1),
         registration_structure_id);

CREATE INDEX utilisateur_rattachement ON utilisateur (rattachement_id, postes_fin, domain);

CREATE TRIGGER rattachement_poste_insert AFTER INSERT ON poste
BEGIN
  UPDATE utilisateur
     SET rattachement_id = coalesce(
           (SELECT structure_id FROM poste WHERE poste.utilisateur_id = utilisateur.id
             ORDER BY date_fin DESC, date_debut DESC, id DESC LIMIT 1),
           registration_structure_id)
   WHERE id = NEW.utilisateur_id;
END;

CREATE TRIGGER rattachement_poste_update AFTER UPDATE OF utilisateur_id, structure_id, date_debut, date_fin ON poste
BEGIN
  UPDATE utilisateur
     SET rattachement_id = coalesce(
           (SELECT structure_id FROM poste WHERE poste.utilisateur_id = utilisateur.id
             ORDER BY date_fin DESC, date_debut DESC, id DESC LIMIT 1),
           registration_structure_id)
   WHERE id IN (OLD.utilisateur_id, NEW.utilisateur_id);
END;

CREATE TRIGGER rattachement_poste_delete AFTER DELETE ON poste
BEGIN
  UPDATE utilisateur
     SET rattachement_id = coalesce(
           (SELECT structure_id FROM poste WHERE poste.utilisateur_id = utilisateur.id
             ORDER BY date_fin DESC, date_debut DESC, id DESC LIMIT 1),
           registration_structure_id)
   WHERE id = OLD.utilisateur_id;
END;

CREATE TRIGGER rattachement_utilisateur_insert AFTER INSERT ON utilisateur
WHEN NEW.registration_structure_id IS NOT NULL
BEGIN
  UPDATE utilisateur SET rattachement_id = NEW.registration_structure_id WHERE id = NEW.id;
END;

CREATE TRIGGER rattachement_utilisateur_registration AFTER UPDATE OF registration_structure_id ON utilisateur
BEGIN
  UPDATE utilisateur
     SET rattachement_id = coalesce(
           (SELECT structure_id FROM poste WHERE poste.utilisateur_id = utilisateur.id
             ORDER BY date_fin DESC, date_debut DESC, id DESC LIMIT 1),
           registration_structure_id)
   WHERE id = NEW.id;
END;

-- The user list's kept totals (migration 0010) depend on whose a postless user is.
CREATE TRIGGER liste_total_utilisateur_rattachement AFTER UPDATE OF rattachement_id ON utilisateur
BEGIN
  DELETE FROM utilisateur_liste_total;
END;
