-- Migration number: 0005 	 Outbox delivery: a lease so that two senders (the request's waitUntil and
-- the cron) never deliver one mail twice, the provider's message id, and what the mail is for.
ALTER TABLE outbox ADD COLUMN locked_until TEXT;
ALTER TABLE outbox ADD COLUMN provider_message_id TEXT;
ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'OTHER';
DROP INDEX outbox_pending;
-- The cron looks for undelivered mail that is due; delivered mail leaves the index.
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX outbox_created ON outbox (created_at);
