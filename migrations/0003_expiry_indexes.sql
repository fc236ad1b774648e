-- Migration number: 0003 	 Indexes for the hourly pruning of expired rows.
CREATE INDEX captcha_used_expires ON captcha_used (expires_at);
CREATE INDEX refresh_token_family_expires ON refresh_token (family_expires_at);
CREATE INDEX login_attempt_last_failure ON login_attempt (last_failure_at);
CREATE INDEX rate_limit_window ON rate_limit (window_start);
CREATE INDEX mail_token_expires ON mail_token (expires_at);
