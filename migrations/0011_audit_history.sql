-- Migration number: 0011 	 The audit history: who reported an entry, and indexes for reading it by date and scope.
--
-- 1. `log.source`: 'SERVEUR' for the entries the API writes with the action they record (sign-in,
--    sign-out, launches, administration: DESIGN §8), 'CLIENT' for those a client posts (spec §7
--    POST logs/), which the history shows as reported by the client. The entries already there were
--    written before the distinction and count as the server's.
-- 2. The history reads a date range newest first, keeping the entries of the users in the viewer's
--    scope: `log (date, utilisateur_id)` walks the range without reading the rows; the scope's users
--    are gathered from `poste (structure_id, date_fin, utilisateur_id)` and, for those without a live
--    post, `utilisateur (postes_fin, domain)`, each without reading the table. Each replaces the index
--    it extends.

ALTER TABLE log ADD COLUMN source TEXT NOT NULL DEFAULT 'SERVEUR' CHECK (source IN ('SERVEUR', 'CLIENT'));

CREATE INDEX log_date_utilisateur ON log (date, utilisateur_id);
DROP INDEX log_date;

CREATE INDEX poste_structure_utilisateur ON poste (structure_id, date_fin, utilisateur_id);
DROP INDEX poste_structure;

CREATE INDEX utilisateur_postes_fin_domain ON utilisateur (postes_fin, domain);
DROP INDEX utilisateur_postes_fin;

-- 3. The history's totals (`X-Total-Count`) are kept in `utilisateur_liste_total` with the user list's,
--    whose triggers empty it whenever the scope or a user changes; `jusqua` is the last log entry a
--    kept total counted. Entries are only ever added, so a total is brought up to date by counting the
--    few entries after it rather than a month of them again (a tenth of a second for the root's month
--    of 1 000 000 entries). The history also searches mail addresses: a change of address empties it
--    too.
ALTER TABLE utilisateur_liste_total ADD COLUMN jusqua INTEGER;

CREATE TRIGGER liste_total_utilisateur_mail AFTER UPDATE OF mail ON utilisateur
BEGIN
  DELETE FROM utilisateur_liste_total;
END;
