-- Migration number: 0046 	 The portal's events (issue 65): what changed, kept 30 days for the programs that pull them
-- (GET rest/bd/evenements), and delivered to the subscriptions that name them (migration 0045), one row each, written
-- in the change's own batch by the trigger below: an outbox, as mail's.
CREATE TABLE evenement (
  -- AUTOINCREMENT: an id is never given twice, even once the newest are purged, since a program resumes after one.
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  type      TEXT NOT NULL,
  date      TEXT NOT NULL,
  -- {type: 'utilisateur', id, login} | {type: 'compte_service', id, nom} | {type: 'systeme'}, as JSON.
  acteur    TEXT NOT NULL,
  -- {type, id}: what the event is about, as JSON.
  sujet     TEXT NOT NULL,
  -- The person the event is about ('utilisateur:42'): a subscription receives each one's events in order.
  sujet_cle TEXT NOT NULL,
  -- What the subject was once changed (never a secret nor a password's hash), as JSON.
  data      TEXT NOT NULL,
  -- The paths of the structures the subject belongs to (lib/scope.ts), as a JSON array: which sub-trees it concerns.
  chemins   TEXT NOT NULL DEFAULT '[]',
  -- The subject's domain: one that belongs to no structure concerns the whole tree's administrators of it alone.
  domain    TEXT NOT NULL DEFAULT ''
);

-- A subscription no longer served since `desactive_le`: its address answered 410 Gone, or failed a whole day.
ALTER TABLE webhook ADD COLUMN desactive_motif TEXT CHECK (desactive_motif IN ('GONE', 'ECHECS'));
ALTER TABLE webhook ADD COLUMN desactive_le TEXT;

-- One event's delivery to one subscription: tried, retried with growing delays, leased by whoever sends it.
CREATE TABLE webhook_livraison (
  id              INTEGER PRIMARY KEY,
  webhook_id      INTEGER NOT NULL REFERENCES webhook (id) ON DELETE CASCADE,
  evenement_id    INTEGER NOT NULL REFERENCES evenement (id) ON DELETE CASCADE,
  sujet_cle       TEXT    NOT NULL,
  created_at      TEXT    NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT    NOT NULL,
  locked_until    TEXT,
  last_attempt_at TEXT,
  last_status     INTEGER,
  last_error      TEXT,
  sent_at         TEXT,
  abandoned_at    TEXT,
  UNIQUE (webhook_id, evenement_id)
);
-- What is due, and what waits before a subject's next one: only the deliveries not yet settled.
CREATE INDEX webhook_livraison_due ON webhook_livraison (next_attempt_at)
  WHERE sent_at IS NULL AND abandoned_at IS NULL;
CREATE INDEX webhook_livraison_sujet ON webhook_livraison (webhook_id, sujet_cle, evenement_id)
  WHERE sent_at IS NULL AND abandoned_at IS NULL;
-- A subscription's delivery log, newest first; and the purge's cascade from an event.
CREATE INDEX webhook_livraison_journal ON webhook_livraison (webhook_id, id);
CREATE INDEX webhook_livraison_evenement ON webhook_livraison (evenement_id);

-- An event is due at once to every active subscription that names its type or its family and whose sub-tree holds
-- one of its structures; one about someone of no structure, to the whole tree's subscriptions of their domain.
CREATE TRIGGER evenement_webhooks
AFTER INSERT ON evenement
BEGIN
  INSERT INTO webhook_livraison (webhook_id, evenement_id, sujet_cle, created_at, next_attempt_at)
  SELECT w.id, NEW.id, NEW.sujet_cle, NEW.date, NEW.date
  FROM webhook w
  JOIN structure s ON s.id = w.structure_id
  WHERE w.actif = 1
    AND EXISTS (
      SELECT 1 FROM json_each(w.evenements) e
      WHERE e.value = NEW.type OR e.value = substr(NEW.type, 1, instr(NEW.type, '.')) || '*'
    )
    AND (
      EXISTS (SELECT 1 FROM json_each(NEW.chemins) c WHERE c.value >= s.path AND c.value < s.path || ':')
      OR (NEW.chemins = '[]' AND s.parent_id IS NULL AND lower(w.domain) = lower(NEW.domain))
    );
END;
