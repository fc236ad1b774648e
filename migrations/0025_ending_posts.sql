-- Migration number: 0025 	 The posts by their end: the administration home lists those ending within
-- 30 days in the scope. Down `poste_structure_utilisateur` a root administrator's home probed each of
-- the organisation's structures and sorted every match; down this index it reads the month's posts in
-- the order shown and stops after the page.
CREATE INDEX poste_date_fin ON poste (date_fin, structure_id);
