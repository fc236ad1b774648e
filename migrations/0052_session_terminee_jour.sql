-- Migration number: 0052 	 session.terminee routed by the organisation's day (issue 65): the trigger of migration
-- 0049 read the day in UTC, so within an hour or two of midnight in Paris a post that ended the day before still routed
-- the event to its sub-tree. The day is now the one in Paris at the revocation (contract/dates.ts `todayIso`): UTC+2
-- from the last Sunday of March at 01:00 UTC to the last Sunday of October at 01:00 UTC, UTC+1 otherwise (the
-- European Union's rule). The rest of the trigger as it was.
DROP TRIGGER refresh_token_session_event;
CREATE TRIGGER refresh_token_session_event
AFTER UPDATE OF revoked_at ON refresh_token
WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.rotated_at IS NULL AND NEW.kind = 'SESSION'
BEGIN
  INSERT INTO evenement (type, date, acteur, sujet, sujet_cle, data, chemins, domain)
  SELECT
    'session.terminee',
    NEW.revoked_at,
    CASE
      WHEN NEW.revoked_by < 0 THEN json_object('type', 'compte_service', 'id', -NEW.revoked_by,
        'nom', (SELECT c.nom FROM compte_service c WHERE c.id = -NEW.revoked_by))
      WHEN NEW.revoked_by IS NOT NULL THEN json_object('type', 'utilisateur', 'id', NEW.revoked_by,
        'login', (SELECT a.login FROM utilisateur a WHERE a.id = NEW.revoked_by))
      WHEN NEW.revoked_reason = 'ADMINISTRATEUR' THEN json_object('type', 'systeme')
      ELSE json_object('type', 'utilisateur', 'id', u.id, 'login', u.login) END,
    json_object('type', 'utilisateur', 'id', u.id),
    'utilisateur:' || u.id,
    json_object('id', u.id, 'login', u.login, 'session', NEW.family_id, 'motif', NEW.revoked_reason),
    coalesce(
      (SELECT json_group_array(s.path) FROM poste p JOIN structure s ON s.id = p.structure_id
        WHERE p.utilisateur_id = u.id
          AND p.date_fin >= date(NEW.revoked_at, CASE
            WHEN datetime(NEW.revoked_at)
                >= date(strftime('%Y', NEW.revoked_at) || '-03-31', '-6 days', 'weekday 0') || ' 01:00:00'
              AND datetime(NEW.revoked_at)
                < date(strftime('%Y', NEW.revoked_at) || '-10-31', '-6 days', 'weekday 0') || ' 01:00:00'
            THEN '+2 hours' ELSE '+1 hour' END)
        HAVING count(*) > 0),
      (SELECT json_array(r.path) FROM structure r WHERE r.id = u.rattachement_id),
      '[]'),
    u.domain
  FROM utilisateur u
  WHERE u.id = NEW.utilisateur_id;
END;
