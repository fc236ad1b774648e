-- Migration number: 0015 	 A company typed at registration is created when an administrator authorises it.
--
-- Until now a company name typed by an anonymous visitor on the registration form became a structure
-- at once: listed publicly before any approval and holding its name against the administrators. From
-- now on a pending registration holds either
--   - `registration_structure_id`: the existing carrier company it chose (as before), or
--   - `registration_structure_nom`: the name of a company it typed, with no structure, waiting in the
--     scope of the structure the company will be created under (`rattachement_id`, the carriers'
--     parent at registration time) until an administrator authorises it; the company is then created
--     (or the carrier of that name joined) and the registration points to it by id, its name cleared.
-- `registration_structure_nom` used to mark the registrations that had created their company; that
-- use ends here.
--
-- 1. Setting `registration_structure_id` no longer clears the structure a user waits in when it is set
--    to NULL (a typed registration keeps the structure it waits under).
-- 2. The companies registrations created that no administrator has approved yet (no registration on
--    them authorised or completed, no other user, post, function or child structure) go; their
--    registrations keep the typed name and wait under the company's parent.
-- 3. Every other registration keeps its company; the marker is cleared.

PRAGMA defer_foreign_keys = on;

DROP TRIGGER rattachement_utilisateur_registration;

CREATE TRIGGER rattachement_utilisateur_registration AFTER UPDATE OF registration_structure_id ON utilisateur
WHEN NEW.registration_structure_id IS NOT NULL
BEGIN
  UPDATE utilisateur
     SET rattachement_id = coalesce(
           (SELECT structure_id FROM poste WHERE poste.utilisateur_id = utilisateur.id
             ORDER BY date_fin DESC, date_debut DESC, id DESC LIMIT 1),
           registration_structure_id)
   WHERE id = NEW.id;
END;

-- 2. The registrations of an unapproved company wait under its parent...
UPDATE utilisateur
   SET rattachement_id = (SELECT parent_id FROM structure WHERE structure.id = utilisateur.registration_structure_id)
 WHERE registration_structure_id IN (
         SELECT company.id FROM structure AS company
          WHERE EXISTS (SELECT 1 FROM utilisateur AS creator
                         WHERE creator.registration_structure_id = company.id
                           AND creator.registration_structure_nom IS NOT NULL
                           AND creator.registration_state = 'PENDING')
            AND NOT EXISTS (SELECT 1 FROM utilisateur AS approved
                             WHERE approved.registration_structure_id = company.id
                               AND (approved.registration_state <> 'PENDING' OR approved.actif = 1
                                    OR approved.token_register_expires_at IS NOT NULL))
            AND NOT EXISTS (SELECT 1 FROM poste WHERE poste.structure_id = company.id)
            AND NOT EXISTS (SELECT 1 FROM fonction WHERE fonction.structure_id = company.id)
            AND NOT EXISTS (SELECT 1 FROM structure AS child WHERE child.parent_id = company.id));

-- ...the company goes (the same companies: nothing above changed what selects them)...
DELETE FROM structure
 WHERE id IN (
         SELECT company.id FROM structure AS company
          WHERE EXISTS (SELECT 1 FROM utilisateur AS creator
                         WHERE creator.registration_structure_id = company.id
                           AND creator.registration_structure_nom IS NOT NULL
                           AND creator.registration_state = 'PENDING')
            AND NOT EXISTS (SELECT 1 FROM utilisateur AS approved
                             WHERE approved.registration_structure_id = company.id
                               AND (approved.registration_state <> 'PENDING' OR approved.actif = 1
                                    OR approved.token_register_expires_at IS NOT NULL))
            AND NOT EXISTS (SELECT 1 FROM poste WHERE poste.structure_id = company.id)
            AND NOT EXISTS (SELECT 1 FROM fonction WHERE fonction.structure_id = company.id)
            AND NOT EXISTS (SELECT 1 FROM structure AS child WHERE child.parent_id = company.id));

-- ...and its registrations keep only its name (stored with them when they registered).
UPDATE utilisateur
   SET registration_structure_id = NULL
 WHERE registration_structure_id IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM structure WHERE structure.id = utilisateur.registration_structure_id);

-- 3. A registration with a company holds no typed name.
UPDATE utilisateur
   SET registration_structure_nom = NULL
 WHERE registration_structure_id IS NOT NULL AND registration_structure_nom IS NOT NULL;
