-- Migration number: 0004 	 Links an application's session to the portal session that launched it,
-- so that signing out of the portal signs out of the applications too (single logout).
ALTER TABLE refresh_token ADD COLUMN parent_family_id TEXT;
CREATE INDEX refresh_token_parent_family ON refresh_token (parent_family_id);
