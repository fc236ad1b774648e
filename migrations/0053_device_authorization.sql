-- Migration number: 0053 	 The device authorization grant (RFC 8628, issue 66): a shared handheld or a cab terminal
-- shows a short code, and a user signed in on their own phone approves it on /appareil.
--
-- An OIDC application's client allows the grant or not (off by default: no client changes by this migration).
ALTER TABLE oidc_client ADD COLUMN device_grant INTEGER NOT NULL DEFAULT 0 CHECK (device_grant IN (0, 1));

-- A device's session is a session family of its own (`application_id` set, no parent: it outlives the browser that
-- approved it), named as its approver named it, with the kind of device it was approved from.
ALTER TABLE refresh_token ADD COLUMN appareil TEXT;
ALTER TABLE refresh_token ADD COLUMN appareil_approuve_depuis TEXT;

-- A device's request, from its code to the tokens it got. Both codes are kept as their SHA-256 alone. A request is
-- decided once (`etat` leaves EN_ATTENTE under that very condition) and issues tokens once (EMISE). The device polls
-- no faster than `poll_interval` seconds; a poll too soon adds 5 to it (`slow_down`).
CREATE TABLE device_authorization (
  id                       INTEGER PRIMARY KEY,
  device_code_hash         TEXT    NOT NULL UNIQUE,
  user_code_hash           TEXT    NOT NULL UNIQUE,
  application_id           INTEGER NOT NULL REFERENCES application (id) ON DELETE CASCADE,
  scope                    TEXT    NOT NULL,
  issuer                   TEXT    NOT NULL,
  -- The device as its requests showed it: its browser or library, and its kind and system (`mobile · Android`).
  nom_navigateur           TEXT,
  version_navigateur       TEXT,
  type_appareil            TEXT,
  created_at               TEXT    NOT NULL,
  expires_at               TEXT    NOT NULL,
  poll_interval            INTEGER NOT NULL DEFAULT 5,
  last_polled_at           TEXT,
  -- 1 when the last poll came sooner than the interval allowed (it was answered slow_down).
  trop_tot                 INTEGER NOT NULL DEFAULT 0 CHECK (trop_tot IN (0, 1)),
  etat                     TEXT    NOT NULL DEFAULT 'EN_ATTENTE'
                                   CHECK (etat IN ('EN_ATTENTE', 'APPROUVEE', 'REFUSEE', 'EMISE')),
  -- The decision: who, when, from which portal session and kind of device, and the name given to the device.
  utilisateur_id           INTEGER REFERENCES utilisateur (id) ON DELETE CASCADE,
  decided_at               TEXT,
  approving_family_id      TEXT,
  auth_time                TEXT,
  approuve_depuis          TEXT,
  nom                      TEXT,
  -- The session the tokens opened.
  family_id                TEXT
);
CREATE INDEX device_authorization_expiry ON device_authorization (expires_at);
