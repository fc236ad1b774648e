-- Migration number: 0049 	 session.terminee names who ended a session (issue 65): `revoked_by` is the administrator (a
-- user's id) or the program (a service account's, negative: lib/scope.ts) that ended it; null when the session's own
-- user did (a sign-out, another device) or the portal (a replayed token). The trigger of migration 0048, rewritten to
-- say so; the rest of it as it was.
ALTER TABLE refresh_token ADD COLUMN revoked_by INTEGER;

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
        WHERE p.utilisateur_id = u.id AND p.date_fin >= strftime('%Y-%m-%d', 'now') HAVING count(*) > 0),
      (SELECT json_array(r.path) FROM structure r WHERE r.id = u.rattachement_id),
      '[]'),
    u.domain
  FROM utilisateur u
  WHERE u.id = NEW.utilisateur_id;
END;
