-- Migration number: 0047 	 The days whose posts' starts and ends were told (issue 65: poste.debut, poste.fin): a date
-- passing is an event too, told once. `fait_le` names the run that wrote it, whose events are written under its row.
CREATE TABLE evenement_jour (
  jour    TEXT PRIMARY KEY,
  fait_le TEXT NOT NULL
) WITHOUT ROWID;
