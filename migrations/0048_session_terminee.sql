-- Migration number: 0048 	 session.terminee (issue 65): a portal session that ends, whatever ends it (a sign-out, the
-- user from another device, an administrator, a deactivation, a deletion, a password changed, a token replayed), is an
-- event, written by this trigger in the ending batch as migration 0022's is. Once a family per session: its live token
-- (not yet rotated) is the one revoked last. `motif`: AUTRE_APPAREIL, ADMINISTRATEUR, or null (a sign-out, a replay…).
-- The structures it concerns follow lib/scope.ts `userPathsJson` (current and future posts, else the user's structure),
-- the day read in UTC here: within an hour of midnight in Paris, a post ending that day may still route it or not.
CREATE TRIGGER refresh_token_session_event
AFTER UPDATE OF revoked_at ON refresh_token
WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.rotated_at IS NULL AND NEW.kind = 'SESSION'
BEGIN
  INSERT INTO evenement (type, date, acteur, sujet, sujet_cle, data, chemins, domain)
  SELECT
    'session.terminee',
    NEW.revoked_at,
    CASE WHEN NEW.revoked_reason = 'ADMINISTRATEUR' THEN json_object('type', 'systeme')
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
