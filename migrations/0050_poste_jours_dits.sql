-- Migration number: 0050 	 A post's start and end told once, whenever the post was written (issue 65): the minute's
-- cron tells the day's starts and yesterday's ends (migration 0047), but a post written after that day's run, to start on
-- it or to have ended the day before, was told only as created or changed. Each post now keeps the start and the end
-- that were told (`debut_dit`, `fin_dit`, set by the trigger below whoever tells them), and a post created or changed
-- after the last day told (`evenement_jour`'s latest: the organisation's calendar, as the run read it) to start on that
-- day, or to have ended the day before, gets its `poste.debut` or `poste.fin` right after its own event, in the same
-- statement, by the portal.
ALTER TABLE poste ADD COLUMN debut_dit TEXT;
ALTER TABLE poste ADD COLUMN fin_dit TEXT;

-- What was told before this migration: the starts and ends passed.
UPDATE poste SET debut_dit = date_debut WHERE date_debut <= (SELECT max(jour) FROM evenement_jour);
UPDATE poste SET fin_dit = date_fin WHERE date_fin < (SELECT max(jour) FROM evenement_jour);

CREATE TRIGGER evenement_poste_jour_dit
AFTER INSERT ON evenement
WHEN NEW.type IN ('poste.debut', 'poste.fin')
BEGIN
  UPDATE poste
  SET debut_dit = iif(NEW.type = 'poste.debut', date_debut, debut_dit),
      fin_dit = iif(NEW.type = 'poste.fin', date_fin, fin_dit)
  WHERE id = json_extract(NEW.sujet, '$.id');
END;

CREATE TRIGGER evenement_poste_jour_tardif
AFTER INSERT ON evenement
WHEN NEW.type IN ('poste.cree', 'poste.modifie')
BEGIN
  -- The end first, as the run tells them: someone leaves one post before taking the next.
  INSERT INTO evenement (type, date, acteur, sujet, sujet_cle, data, chemins, domain)
  SELECT 'poste.fin', NEW.date, json_object('type', 'systeme'), NEW.sujet, NEW.sujet_cle, NEW.data, NEW.chemins,
    NEW.domain
  FROM poste p
  WHERE p.id = json_extract(NEW.sujet, '$.id')
    AND p.fin_dit IS NOT p.date_fin
    AND date(p.date_fin, '+1 day') = (SELECT max(jour) FROM evenement_jour);
  INSERT INTO evenement (type, date, acteur, sujet, sujet_cle, data, chemins, domain)
  SELECT 'poste.debut', NEW.date, json_object('type', 'systeme'), NEW.sujet, NEW.sujet_cle, NEW.data, NEW.chemins,
    NEW.domain
  FROM poste p
  WHERE p.id = json_extract(NEW.sujet, '$.id')
    AND p.debut_dit IS NOT p.date_debut
    AND p.date_debut = (SELECT max(jour) FROM evenement_jour);
END;
