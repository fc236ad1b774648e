-- Accounts the browser tests need beyond the demo data.
-- 'ailleurs' is bound to another domain. The domain check comes after the password check, so it
-- reuses agent's password hash (password Agent1234).
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 900, 'ailleurs', 'Ailleurs', 'Alex', 'alex.ailleurs@autre.example', password_hash, 'https://autre.example.org'
FROM utilisateur WHERE login = 'agent';
