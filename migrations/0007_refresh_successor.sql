-- Migration number: 0007 	 A rotated refresh token keeps the pair it was exchanged for, sealed with a
-- key only the rotated token itself yields, so that a retry within the grace window gets that same
-- pair back instead of a second, parallel session. Cleared once the grace window is over.
ALTER TABLE refresh_token ADD COLUMN successor TEXT;
