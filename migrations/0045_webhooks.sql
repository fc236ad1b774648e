-- Migration number: 0045 	 Signed webhooks (issue 65): an integrator's subscription to the portal's events, on a
-- structure's sub-tree (the whole tree's at its root), made by an administrator of that sub-tree. Its secret signs
-- each delivery (Standard Webhooks), so the portal must read it back: kept sealed (AES-GCM, WEBHOOK_SECRET_KEY), never
-- answered but once; after a rotation the former one signs beside it until `ancien_secret_expire`.
CREATE TABLE webhook (
  id                   INTEGER PRIMARY KEY,
  url                  TEXT    NOT NULL,
  -- The event types, or families ('utilisateur.*'), as a JSON array, sorted.
  evenements           TEXT    NOT NULL,
  description          TEXT,
  -- The address and description folded (lib/search-text.ts), for the list's search.
  recherche            TEXT    NOT NULL DEFAULT '',
  actif                INTEGER NOT NULL DEFAULT 1 CHECK (actif IN (0, 1)),
  structure_id         INTEGER NOT NULL REFERENCES structure (id),
  cree_par             INTEGER REFERENCES utilisateur (id) ON DELETE SET NULL,
  domain               TEXT    NOT NULL,
  secret_scelle        TEXT    NOT NULL,
  ancien_secret_scelle TEXT,
  ancien_secret_expire TEXT,
  created_at           TEXT    NOT NULL,
  updated_at           TEXT    NOT NULL
);
CREATE INDEX webhook_structure ON webhook (structure_id);
