-- Migration number: 0051 	 The access told to integrators (issue 65: acces.accorde, acces.retire): each user's
-- applications as the events last said them. Access is derived (DESIGN §4: a current post whose function grants a
-- switched-on application), so it moves with posts written, posts starting and ending, a function's grants and an
-- application switched on, off or deleted. Each of those writes, in its own batch, compares what is granted now with
-- this table for the pairs it may move, tells the difference and keeps the new state here
-- (services/catalogue/access-told.ts).
CREATE TABLE acces_dit (
  utilisateur_id INTEGER NOT NULL REFERENCES utilisateur (id) ON DELETE CASCADE,
  application_id INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  -- The structures of every post that granted it while it was held, as a JSON array of paths: its loss is told to
  -- their sub-trees too, once the post that granted it is gone.
  chemins        TEXT    NOT NULL DEFAULT '[]',
  PRIMARY KEY (utilisateur_id, application_id)
) WITHOUT ROWID;
-- An application switched off or deleted: every holder's access to it.
CREATE INDEX acces_dit_application ON acces_dit (application_id, utilisateur_id);

-- The access of today, as if told already: integrators hear of what changes from now on. Today is the last day the
-- cron told (the organisation's calendar), else UTC's; a registration not complete is nobody's access yet.
INSERT INTO acces_dit (utilisateur_id, application_id, chemins)
SELECT p.utilisateur_id, fa.application_id, json_group_array(DISTINCT s.path)
FROM poste p
JOIN fonction_application fa ON fa.fonction_id = p.fonction_id
JOIN application a ON a.id = fa.application_id AND a.actif = 1
JOIN utilisateur u ON u.id = p.utilisateur_id AND u.registration_state <> 'PENDING'
JOIN structure s ON s.id = p.structure_id
WHERE p.date_debut <= coalesce((SELECT max(jour) FROM evenement_jour), date('now'))
  AND p.date_fin >= coalesce((SELECT max(jour) FROM evenement_jour), date('now'))
GROUP BY p.utilisateur_id, fa.application_id;

-- The day's run finds the posts starting that day as it finds those ending (poste_date_fin); a function's holders of
-- today are read without its past posts.
CREATE INDEX poste_date_debut ON poste (date_debut);
CREATE INDEX poste_fonction_fin ON poste (fonction_id, date_fin);
DROP INDEX poste_fonction;
