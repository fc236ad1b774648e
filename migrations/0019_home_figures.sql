-- Migration number: 0019 	 The administration home counts the history's sign-ins and launches by type.
--
-- The home (GET rest/bd/accueil) counts the last 30 days' entries of one type (CONNEXION) or of the
-- launch types, by the users of the viewer's scope: `log (type_log, date, utilisateur_id)` walks just
-- those entries of the range and gives their user without reading the table (the root's month holds
-- about 40 000 entries of every type in the large organisation).

CREATE INDEX log_type_date ON log (type_log, date, utilisateur_id);
