-- Migration number: 0020 	 The catalogue's counts of who may launch each application are kept.
--
-- `nbUtilisateurs` (GET rest/bd/application) counts, per application, the accounts with a current post
-- of a granting function: 0.4 s for the whole catalogue of an organisation of 100 000 users, on every
-- read. Each count is now kept in `utilisateur_liste_total` under `["application", day, id]`, counted
-- by the reading batch when missing. The triggers of migration 0010 already empty the table when a
-- user or a post is written; these do so when what grants an application changes, or when it is
-- switched on or off. The day in the key does the rest: posts start and end with the date.

CREATE TRIGGER liste_total_grant_insert AFTER INSERT ON fonction_application
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_grant_delete AFTER DELETE ON fonction_application
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_grant_update AFTER UPDATE ON fonction_application
BEGIN
  DELETE FROM utilisateur_liste_total;
END;

CREATE TRIGGER liste_total_application_actif AFTER UPDATE OF actif ON application
BEGIN
  DELETE FROM utilisateur_liste_total;
END;
