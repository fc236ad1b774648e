-- Accounts the browser tests need beyond the demo data.
-- 'ailleurs' is bound to another domain. The domain check comes after the password check, so it
-- reuses agent's password hash (password Agent1234).
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 900, 'ailleurs', 'Ailleurs', 'Alex', 'alex.ailleurs@autre.example', password_hash, 'https://autre.example.org'
FROM utilisateur WHERE login = 'agent';

-- Accounts the self-service tests change (their own, so the other tests keep theirs): password
-- Agent1234, bound to the demo domain, one per test and mode.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 901, 'oubli1', 'Oubli', 'Odile', 'odile.oubli@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 902, 'oubli2', 'Oubli', 'Octave', 'octave.oubli@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 903, 'profil1', 'Profil', 'Pauline', 'pauline.profil@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 904, 'profil2', 'Profil', 'Pierre', 'pierre.profil@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 905, 'secret1', 'Secret', 'Sarah', 'sarah.secret@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 906, 'secret2', 'Secret', 'Simon', 'simon.secret@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';

-- Reset links whose raw tokens the tests know (only the SHA-256 is stored): one expired (agent), one
-- for an account disabled since (inactif).
INSERT OR IGNORE INTO mail_token (token_hash, utilisateur_id, purpose, expires_at, used_at)
SELECT '4a659395ac400d417b065a219631b180e53b24f9af6c5143cba654a24e2400b1', id, 'PASSWORD_RESET',
       '2020-01-01T00:00:00.000Z', NULL
FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO mail_token (token_hash, utilisateur_id, purpose, expires_at, used_at)
SELECT '2fd50fba7cce189779ccd964485477b19451da978ff1457317beb56d783e6a7e', id, 'PASSWORD_RESET',
       '2099-01-01T00:00:00.000Z', NULL
FROM utilisateur WHERE login = 'inactif';

-- A pending change of address whose link the tests know (accessibility of the confirmation page):
-- 'adresse' asked to move to ada.nouvelle@portail.example.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 907, 'adresse', 'Dresse', 'Ada', 'ada.dresse@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO mail_token (token_hash, utilisateur_id, purpose, new_mail, expires_at, used_at)
VALUES ('2fa7dc1a18024963a370e3f5cf8f0dd7fec1af7c6bd088f3dc86c497e3db6320', 907, 'MAIL_CHANGE',
        'ada.nouvelle@portail.example', '2099-01-01T00:00:00.000Z', NULL);

-- The organisation tests: two users without any post to give one (one per mode), and enough carriers
-- below Agence Marseille for the structure list to need a second page.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 910, 'recrue1', 'Recrue', 'Rachel', 'rachel.recrue@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 911, 'recrue2', 'Recrue', 'Romain', 'romain.recrue@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
INSERT OR IGNORE INTO structure (id, nom, type_id, parent_id, path)
SELECT 949 + i, printf('Transports du Sud %02d', i), 4, 6, printf('/1/3/6/%d/', 949 + i) FROM n;

-- The structure choice: forty relay directions below the root, so that the root's scope holds more
-- structures than a form lists (50, by name) and 'Transports Martin' is among those found by searching.
-- Their paths come last: the tree's first pages are as before.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT OR IGNORE INTO structure (id, nom, type_id, parent_id, path)
SELECT 9000 + i, printf('Relais %02d', i), 2, 1, printf('/1/%d/', 9000 + i) FROM n;

-- The user administration tests: one user per mode to deactivate, delete and restore (a dock agent in
-- Agence Rouen, password Agent1234), and one with an accented name for the search.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 920, 'gestion1', 'Gestion', 'Gaëlle', 'gaelle.gestion@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 921, 'gestion2', 'Gestion', 'Gérard', 'gerard.gestion@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 922, 'accent', 'Lefèvre', 'Zoé', 'zoe.lefevre@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES
  (920, 920, 5, 9, '2024-01-01', '2035-12-31'),
  (921, 921, 5, 9, '2024-01-01', '2035-12-31'),
  (922, 922, 5, 9, '2024-01-01', '2035-12-31');

-- The phone-width tests: the longest address the forms accept (50 characters) on a carrier's
-- registration waiting in the queue, and on a user whose actions fill the history, one with a comment
-- that names the other address.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain, registration_state,
                                   registration_structure_id)
VALUES (930, 'jean-baptiste.delacroix-monfort@logistique.example', 'Delacroix-Monfort', 'Jean-Baptiste',
        'jean-baptiste.delacroix-monfort@logistique.example', NULL, 'http://localhost:8787', 'PENDING', 950);
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 931, 'fontaine', 'Fontaine-Durand', 'Marie-Christine', 'marie-christine.fontaine-durand@transports.example',
       password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES
  (931, 931, 5, 9, '2024-01-01', '2035-12-31');
INSERT INTO log (date, utilisateur_id, type_log, nom_log, commentaire, nom_navigateur, version_navigateur)
VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 931, 'CONNEXION', 'CONNEXION', NULL, 'Chrome', '131.0.0.0'),
       (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 931, 'ADMINISTRATION', 'UTILISATEUR_CREATION',
        'jean-baptiste.delacroix-monfort@logistique.example', 'Chrome', '131.0.0.0'),
       -- A launch, so that the home's launches (their chart and its table) are on the screens' checks.
       (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 931, 'APPLICATION', 'Planification des rendez-vous de quai',
        NULL, 'Chrome', '131.0.0.0');

-- The post deletion tests: one user per mode with two current posts in Agence Rouen.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 924, 'double1', 'Double', 'Denise', 'denise.double@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 925, 'double2', 'Double', 'Damien', 'damien.double@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES
  (924, 924, 5, 8, '2024-01-01', '2035-12-31'),
  (925, 924, 5, 9, '2024-01-01', '2035-12-31'),
  (926, 925, 5, 8, '2024-01-01', '2035-12-31'),
  (927, 925, 5, 9, '2024-01-01', '2035-12-31');

-- Applications the catalogue tests switch off and delete (granted to nobody: no other test's launcher
-- changes), one per mode.
INSERT OR IGNORE INTO application (id, libelle, icone, url) VALUES
  (901, 'Essai catalogue avec JS', 'warehouse', 'https://essai.example.test/js'),
  (902, 'Essai catalogue sans JS', 'warehouse', 'https://essai.example.test/nojs');
-- SAML applications (issue 62), one per mode, granted to nobody: their service provider shown on their page and kept
-- when it is saved. The certificate is a public one made for this file (its key was not kept).
INSERT OR IGNORE INTO application (id, libelle, icone, url, protocole) VALUES
  (903, 'Paie SAML avec JS', 'receipt', 'https://paie.example.test/js', 'SAML'),
  (904, 'Paie SAML sans JS', 'receipt', 'https://paie.example.test/nojs', 'SAML');
INSERT OR IGNORE INTO saml_sp (application_id, entity_id, acs, slo_url, slo_binding, certificats, requetes_signees,
  format_name_id, signer_reponse, signer_assertion, attributs) VALUES
  (903, 'https://paie.example.test/js/mellon/metadata', '[{"url":"https://paie.example.test/js/mellon/postResponse","index":0}]',
   'https://paie.example.test/js/mellon/logout', 'HTTP-Redirect', '["MIICyzCCAbOgAwIBAgIJf/YsJCU/Dl2LMA0GCSqGSIb3DQEBCwUAMBsxGTAXBgNVBAMMEEVSUCBQYWllIChkw6ltbykwHhcNMjYxMjAyMjMyNDUxWhcNMzYxMTI5MjMyNDUxWjAbMRkwFwYDVQQDDBBFUlAgUGFpZSAoZMOpbW8pMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAkYgv+SBtnxO8MQp8UitqRMhkulP+CVjJALwprhLKTbGdSTI9SYjc3q3pFZtmz1CgfPOzRZ3EsFG7w33Ic2sA7IIzms+4Uh5VpUgVOEWiuISYlnBy3a8U6D+mtNBAlUMoz3aodR/06bauq6U/r5ZLa9oTveS0dQDH0PPMlNuVFWu1NwYRayf3IjcdDvyp5jkvE4kABOx/EGVVJxivZMcMgHpcAV3tMTNFjw1gcLK6tBBrRuV/Muox5Ob9v2V7G43kvtVCVyUz5Yb+5oWhRyhXUyjfgO5PO1ULeaBAtnh0jGI2J3oAKLp3+VmWrA01pCKzLDOMpJ18DmzG5Ce9kaxNHwIDAQABoxIwEDAOBgNVHQ8BAf8EBAMCB4AwDQYJKoZIhvcNAQELBQADggEBAC9uH/x0tuYnx2FUPcnjmmLWuZigx2XBPlrZOYR0C8v9okFOOWup/CgdVHg6Vy1RNcHbuwMMNj9Z7NKsK2tr2RV7766oBbLAJXAUCL2Dy8QRe+SqSZyFpfkuYcb6I7L40nATGGeWS7gy6doXHHtsnKSgyYQl6xAfWrS5yW5t45PxzdPXCZAecfef8pe5HdAsnF7eoZ5VHuYCqfmXM1+kwfFqXP5NXX0mM2y3o9Y5G0GO2LQWpshoHB/hwbKnnuCd2Qo9O1+lTGsVhVMfFnNPGcBgtkPXPnZieUPAMDlG1vSMdmhMwR9ai+DtolhPv55RVqWnETczu5lsZL4VkQsTUCI="]', 1, 'persistent', 0, 1,
   '[{"source":"mail","nom":"mail"},{"source":"postes","nom":"postes"}]'),
  (904, 'https://paie.example.test/nojs/mellon/metadata', '[{"url":"https://paie.example.test/nojs/mellon/postResponse","index":0}]',
   'https://paie.example.test/nojs/mellon/logout', 'HTTP-Redirect', '["MIICyzCCAbOgAwIBAgIJf/YsJCU/Dl2LMA0GCSqGSIb3DQEBCwUAMBsxGTAXBgNVBAMMEEVSUCBQYWllIChkw6ltbykwHhcNMjYxMjAyMjMyNDUxWhcNMzYxMTI5MjMyNDUxWjAbMRkwFwYDVQQDDBBFUlAgUGFpZSAoZMOpbW8pMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAkYgv+SBtnxO8MQp8UitqRMhkulP+CVjJALwprhLKTbGdSTI9SYjc3q3pFZtmz1CgfPOzRZ3EsFG7w33Ic2sA7IIzms+4Uh5VpUgVOEWiuISYlnBy3a8U6D+mtNBAlUMoz3aodR/06bauq6U/r5ZLa9oTveS0dQDH0PPMlNuVFWu1NwYRayf3IjcdDvyp5jkvE4kABOx/EGVVJxivZMcMgHpcAV3tMTNFjw1gcLK6tBBrRuV/Muox5Ob9v2V7G43kvtVCVyUz5Yb+5oWhRyhXUyjfgO5PO1ULeaBAtnh0jGI2J3oAKLp3+VmWrA01pCKzLDOMpJ18DmzG5Ce9kaxNHwIDAQABoxIwEDAOBgNVHQ8BAf8EBAMCB4AwDQYJKoZIhvcNAQELBQADggEBAC9uH/x0tuYnx2FUPcnjmmLWuZigx2XBPlrZOYR0C8v9okFOOWup/CgdVHg6Vy1RNcHbuwMMNj9Z7NKsK2tr2RV7766oBbLAJXAUCL2Dy8QRe+SqSZyFpfkuYcb6I7L40nATGGeWS7gy6doXHHtsnKSgyYQl6xAfWrS5yW5t45PxzdPXCZAecfef8pe5HdAsnF7eoZ5VHuYCqfmXM1+kwfFqXP5NXX0mM2y3o9Y5G0GO2LQWpshoHB/hwbKnnuCd2Qo9O1+lTGsVhVMfFnNPGcBgtkPXPnZieUPAMDlG1vSMdmhMwR9ai+DtolhPv55RVqWnETczu5lsZL4VkQsTUCI="]', 1, 'persistent', 0, 1,
   '[{"source":"mail","nom":"mail"},{"source":"postes","nom":"postes"}]');
-- Each is granted by 60 functions no post holds, ten in each of six carrier companies: more than the
-- 50 one save may name, as in an organisation whose templates copied a function into every structure.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59)
INSERT OR IGNORE INTO fonction (id, libelle, structure_id)
SELECT 9000 + i, printf('Quai %02d', i % 10), 955 + i / 10 FROM n;
INSERT OR IGNORE INTO fonction_application (fonction_id, application_id)
SELECT f.id, a.id FROM fonction f, application a WHERE f.id BETWEEN 9000 AND 9059 AND a.id IN (901, 902);

-- Posts ending in ten days in Agence Marseille (Direction Sud), for the administration home: one
-- extended by each mode of its test, one the screens' checks open the extension of.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 960, 'fin1', 'Finet', 'Florence', 'florence.finet@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 961, 'fin2', 'Finet', 'Fabien', 'fabien.finet@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 962, 'fin3', 'Finet', 'Frida', 'frida.finet@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
VALUES (9100, 960, 6, 11, date('now', '-100 days'), date('now', '+10 days')),
       (9101, 961, 6, 11, date('now', '-100 days'), date('now', '+10 days')),
       (9102, 962, 6, 11, date('now', '-100 days'), date('now', '+12 days'));

-- The sessions tests: their own accounts, whose sessions they open and end (a dock agent in Agence
-- Rouen, password Agent1234): one per mode for one's own list, one per mode for an administrator's
-- end of every session, one for the accessibility checks.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 970, 'sessions1', 'Session', 'Salomé', 'salome.session@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 971, 'sessions2', 'Session', 'Samuel', 'samuel.session@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 972, 'fermees1', 'Fermé', 'Fanny', 'fanny.ferme@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 973, 'fermees2', 'Fermé', 'Félix', 'felix.ferme@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 974, 'appareils', 'Appareil', 'Aurore', 'aurore.appareil@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES
  (970, 970, 5, 9, '2024-01-01', '2035-12-31'),
  (971, 971, 5, 9, '2024-01-01', '2035-12-31'),
  (972, 972, 5, 9, '2024-01-01', '2035-12-31'),
  (973, 973, 5, 9, '2024-01-01', '2035-12-31'),
  (974, 974, 5, 9, '2024-01-01', '2035-12-31');

-- The second factor's tests: their own accounts (password Agent1234 unless said, bound to the demo
-- domain). mfa1 and mfa2 enrol an authenticator app, sign in with it and turn it off (one per mode);
-- mfaracine1 and mfaracine2 are root administrators (password Admin1234) who turn the requirement of a
-- second factor on and off again; mfadeleg is a delegated administrator of Direction Sud (password
-- Adminsud1) who never has one.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 980, 'mfa1', 'Facteur', 'Fabienne', 'fabienne.facteur@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 981, 'mfa2', 'Facteur', 'Florian', 'florian.facteur@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain, admin)
SELECT 982, 'mfaracine1', 'Racine', 'Rose', 'rose.racine@portail.example', password_hash, 'http://localhost:8787', 1 FROM utilisateur WHERE login = 'admin';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain, admin)
SELECT 983, 'mfaracine2', 'Racine', 'Raoul', 'raoul.racine@portail.example', password_hash, 'http://localhost:8787', 1 FROM utilisateur WHERE login = 'admin';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain, admin)
SELECT 984, 'mfadeleg', 'Délégué', 'Denis', 'denis.delegue@portail.example', password_hash, 'http://localhost:8787', 1 FROM utilisateur WHERE login = 'adminsud';
-- Accounts whose authenticator app is already on, with a secret and four recovery codes the tests
-- know (the secret is the base32 of '12345678901234567890'; the codes are code-0<id>-000<n>-test,
-- stored as the SHA-256 of their lowercase letters and digits): one for the keyboard test, one per
-- language for the accessibility checks, one per mode for the widths checks.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 985, 'mfaclavier', 'Clavier', 'Claude', 'claude.clavier@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 986, 'mfaecran1', 'Écran', 'Élise', 'elise.ecran@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 987, 'mfaecran2', 'Écran', 'Étienne', 'etienne.ecran@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 988, 'mfalargeur1', 'Largeur', 'Léa', 'lea.largeur@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 989, 'mfalargeur2', 'Largeur', 'Louis', 'louis.largeur@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
-- The administrators' posts (the others have none: no other test's list of a structure changes).
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES
  (982, 982, 1, 2, '2024-01-01', '2035-12-31'),
  (983, 983, 1, 2, '2024-01-01', '2035-12-31'),
  (984, 984, 3, 4, '2024-01-01', '2035-12-31');
INSERT OR IGNORE INTO mfa_totp (utilisateur_id, secret, confirmed_at, last_step)
SELECT id, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', '2025-01-01T00:00:00.000Z', 0 FROM utilisateur WHERE id BETWEEN 985 AND 989;
INSERT OR IGNORE INTO mfa_recovery_code (utilisateur_id, code_hash) VALUES
  (985, '7630c6c3079d0d3784577dff46f7388a85eb18f43e3a060d606c3fde248e190a'),
  (985, '20c910fab1de3fb0afc1290ab329ebc1a5425f6f69437d7eba92e34c208e3274'),
  (985, 'e373a0be5442b524f7a015bcab990ed4274679160c83cfa96822418e4399bbae'),
  (985, '68984d281bb94dc0357d45d27bcde13f60b46fbfec96de7417561a7011eccd9f'),
  (986, 'ef85808a0b1b1c28562ca341f659a78369d1403f2e3f1f033d54c64c040a7e26'),
  (986, '617fb6b2a79623f589523fc578340daeb60bc160125eca58d6db0d8ec6928c64'),
  (986, 'd8717bfdc8111cffe77b0058ed3c8d2cf8b91a286e5e26119ea054fe1abb576d'),
  (986, '8de12f8b4dd576805068d07a17b2b7025a11bcf68f18d83fa14ba5147ea7106d'),
  (987, 'c56c902489117c6bea8693b8f0c15eacaf0284c06ad10540e4b10b2c205f5b0e'),
  (987, '189eec069c3468d2a24326ee657a087f65d3cdc5f1b43ceb7a227a1851ac2fb8'),
  (987, 'abbb8d801bd286ed8fba6b39eb0aeaf084b6c851cc9741f86184886a53aa2c65'),
  (987, '9eb1ce54813f16e85615f7550a40972212a66a5e24bb431b27382a0a8fb5a345'),
  (988, '3f5059dae5e348b55731bf8c58451a24f8d1b9d9a73363098be656c98798b851'),
  (988, 'f62c5b55bf1241db334294024a5deadcd18f22e7ad7709040c1de2eb541b16e2'),
  (988, '6cb9c5d2a7949229e4060aecc3dd6b8d674a48e06140330c380bfee04b4384ec'),
  (988, '53fe8f0cfc25d0842129be893a1fb5a6e41b97a4d77b73389f3dfd1b27f5c0b6'),
  (989, '44294ae86579a509d15d51f9c5295327d56ff0fadc0d85fc5aa9c0ee2a660f58'),
  (989, 'e05dded5c65eddc25762590894be350a1057f509d789a5735c0cd5fc9737a66c'),
  (989, '9ba69c59966c6ab28791347ecc34f806a38df9fea0a26cf90d33177f46a4fab7'),
  (989, 'b365dac236d876d2949f3b3f136c116fb399fe6e66fb5fc9688aa03090ce508e');
-- The accounts of the first four (the accessibility and widths checks) also have a passkey on the
-- list (a public key no authenticator holds: listed, never used to sign in).
INSERT OR IGNORE INTO passkey (id, utilisateur_id, nom, public_key, counter, rp_id, created_at, last_used_at)
SELECT 'cle-fictive-' || id, id, 'Clé USB', 'AAAA', 0, 'localhost', '2025-01-01T00:00:00.000Z',
  '2025-02-01T08:30:00.000Z' FROM utilisateur WHERE id BETWEEN 986 AND 989;

-- The passkeys' tests (password Agent1234, no factor at first): cles registers one with Chromium's
-- virtual authenticator and signs in with it; clessansjs is the page without JavaScript.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 990, 'cles', 'Clé', 'Camille', 'camille.cle@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 991, 'clessansjs', 'Clé', 'Corentin', 'corentin.cle@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';

-- Service accounts the screens' checks open, which no test changes: an administrator account of
-- Direction Sud with a secret (its renewal asks for the proof), its former secret still valid, and a
-- read-only account of Agence Lille that signs with a public key (no secret to renew). The first one's
-- entry in the history is read there as "Compte de service Synchronisation paie". Both act for the root
-- administrator (`admin`), who administers their structures.
INSERT OR IGNORE INTO compte_service (id, nom, description, structure_id, admin, scopes, client_id, secret_hash,
  ancien_secret_hash, ancien_secret_expire, jwks, domain, cree_par)
VALUES
  (901, 'Synchronisation paie', 'Envoie les arrivées et les départs au logiciel de paie', 3, 1, 'api logs',
   'cs-fixture-synchronisation-paie', 'cc202def29277b0eb78b148a6a24034f3cf257549c1cbe21bc8adca74a743197',
   'cc202def29277b0eb78b148a6a24034f3cf257549c1cbe21bc8adca74a743198', '2035-12-31T12:00:00.000Z', NULL,
   'http://localhost:8787', (SELECT id FROM utilisateur WHERE login = 'admin')),
  (902, 'Lecture des registres', NULL, 4, 0, 'logs', 'cs-fixture-lecture-registres', NULL, NULL, NULL,
   '{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}',
   'http://localhost:8787', (SELECT id FROM utilisateur WHERE login = 'admin'));
INSERT INTO log (date, utilisateur_id, compte_service_id, type_log, nom_log, commentaire)
VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), NULL, 901, 'ADMINISTRATION', 'STRUCTURE_MODIFICATION',
        'Agence Marseille');

-- Imports of the administrator (`admin`) for the screens' checks: a preview kept with an error of its
-- rows, and an import done.
INSERT OR IGNORE INTO import (id, type, etat, auteur_id, fichier, domaine, origine, lignes, lots, creees,
                              modifiees, inchangees, lignes_erreur, erreurs, created_at, updated_at,
                              started_at, finished_at)
SELECT 950, 'utilisateurs', 'APERCU', id, 'rh-novembre.csv', 'http://localhost:8787', 'http://localhost:8787', 3, 1,
       1, 0, 1, 1, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), NULL, NULL
FROM utilisateur WHERE login = 'admin';
INSERT OR IGNORE INTO import (id, type, etat, auteur_id, fichier, domaine, origine, lignes, lots, creees,
                              modifiees, inchangees, lignes_erreur, erreurs, created_at, updated_at,
                              started_at, finished_at)
SELECT 951, 'structures', 'TERMINE', id, 'agences-est.csv', 'http://localhost:8787', 'http://localhost:8787', 12, 1,
       10, 1, 0, 1, 1, '2026-11-02T08:00:00.000Z', '2026-11-02T08:00:03.000Z', '2026-11-02T08:00:01.000Z',
       '2026-11-02T08:00:03.000Z'
FROM utilisateur WHERE login = 'admin';
INSERT INTO import_erreur (import_id, ligne, colonne, code, valeurs)
VALUES (950, 3, 'fonction', 'FONCTION_INCONNUE',
        '{"valeur":"Cariste","structure":"Agence Lille","connues":"Agent de quai, Chef de quai"}'),
       (951, 9, 'parent', 'STRUCTURE_INCONNUE', '{"valeur":"Direction Est / Agence Metz"}');

-- An access request waiting for the administrators of Agence Lille's sub-tree (`admin` among them), for the screens'
-- checks: the driver of Transports Martin asks for Yard dangereux, with a long reason.
INSERT OR IGNORE INTO demande_acces (id, utilisateur_id, application_id, motif, date_debut, date_fin, created_at)
SELECT 960, id, 1,
       'Remplacement du chef de quai pendant ses congés : contrôle des matières dangereuses à l’entrée du site de Lille-Lesquin',
       date('now'), date('now', '+29 days'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM utilisateur WHERE login = 'chauffeur';

-- An access review campaign over Direction Nord, open, for the screens' checks: its items written as the queue would
-- (every current post of the sub-tree), and their counts per structure.
INSERT OR IGNORE INTO revue (id, nom, structure_id, structure_nom, chemin, echeance, si_non_revu, etat, auteur_id,
                             domaine, created_at, updated_at, curseur, dernier_poste, elements)
SELECT 970, 'Revue annuelle de la Direction Nord', 2, 'Direction Nord', '/1/2/', date('now', '+30 days'), 'CONSERVER',
       'OUVERTE', id, 'http://localhost:8787', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0, 0, 0
FROM utilisateur WHERE login = 'admin';
INSERT OR IGNORE INTO revue_element (revue_id, poste_id, utilisateur_id, structure_id, chemin, login, nom, prenom,
                                     structure_nom, fonction_libelle, date_debut, date_fin)
SELECT 970, p.id, u.id, s.id, s.path, u.login, u.nom, u.prenom, s.nom, f.libelle, p.date_debut, p.date_fin
FROM poste p JOIN structure s ON s.id = p.structure_id JOIN utilisateur u ON u.id = p.utilisateur_id
JOIN fonction f ON f.id = p.fonction_id
WHERE s.path >= '/1/2/' AND s.path < '/1/2/:' AND p.date_debut <= date('now') AND p.date_fin >= date('now')
  AND u.supprime = 0;
INSERT OR IGNORE INTO revue_progression (revue_id, structure_id, chemin, nom, total)
SELECT 970, structure_id, chemin, structure_nom, count(*) FROM revue_element WHERE revue_id = 970
GROUP BY structure_id, chemin, structure_nom;

-- The SAML tests (tests/e2e/saml.test.mjs): the one user of a function of its own in Relais 40 (password Agent1234), to
-- which the application behind mod_auth_mellon is granted; no other launcher shows it.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 9985, 'intranet', 'Intranet', 'Irène', 'irene.intranet@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO fonction (id, libelle, structure_id) VALUES (9985, 'Agent intranet', 9040);
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES
  (9985, 9985, 9040, 9985, '2024-01-01', '2035-12-31');

-- The history's archive (tests/e2e/history-archive.test.mjs): a user whose twelve entries are of thirty months ago,
-- archived to R2 when the test fires the hourly cron, then searched there.
INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain)
SELECT 9986, 'archivee', 'Archivée', 'Odile', 'odile.archivee@portail.example', password_hash, 'http://localhost:8787' FROM utilisateur WHERE login = 'agent';
INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES
  (9986, 9986, 5, 9, '2020-01-01', '2035-12-31');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
INSERT INTO log (date, utilisateur_id, type_log, nom_log, commentaire, nom_navigateur, version_navigateur)
SELECT strftime('%Y-%m', 'now', 'start of month', '-30 months') || '-' || printf('%02d', 1 + i) || 'T10:00:00.000Z',
  9986, 'CONNEXION', 'CONNEXION', 'Entrée archivée ' || i, 'Firefox', '128'
FROM n;

-- The webhooks' screens (tests/e2e/support.mjs ADMIN_SCREENS): a subscription of Direction Nord the portal stopped after
-- a day of failures (so that nothing is ever sent to its address), with a delivery log of each state.
INSERT OR IGNORE INTO webhook (id, url, evenements, description, recherche, actif, structure_id, cree_par, domain,
                               secret_scelle, created_at, updated_at, desactive_motif, desactive_le)
SELECT 980, 'https://rh.transports.example/portail/evenements', '["poste.fin","utilisateur.*"]', 'SIRH de la Direction Nord',
  'https://rh.transports.example/portail/evenements sirh de la direction nord', 0, 2, id, 'http://localhost:8787',
  'fixture-not-a-sealed-secret', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-3 days'),
  strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days'), 'ECHECS', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days')
FROM utilisateur WHERE login = 'admin';
INSERT OR IGNORE INTO evenement (id, type, date, acteur, sujet, sujet_cle, data, chemins, domain) VALUES
  (980, 'utilisateur.modifie', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-3 days'), '{"type":"systeme"}',
   '{"type":"utilisateur","id":2}', 'utilisateur:2', '{}', '["/1/2/4/"]', 'http://localhost:8787'),
  (981, 'poste.fin', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-2 days'), '{"type":"systeme"}',
   '{"type":"poste","id":2}', 'utilisateur:2', '{}', '["/1/2/4/"]', 'http://localhost:8787'),
  (982, 'utilisateur.desactive', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days'), '{"type":"systeme"}',
   '{"type":"utilisateur","id":3}', 'utilisateur:3', '{}', '["/1/2/4/"]', 'http://localhost:8787');
INSERT OR IGNORE INTO webhook_livraison (id, webhook_id, evenement_id, sujet_cle, created_at, attempts, next_attempt_at,
                                         last_attempt_at, last_status, last_error, sent_at, abandoned_at) VALUES
  (980, 980, 980, 'utilisateur:2', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-3 days'), 1,
   strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-3 days'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-3 days'), 204, NULL,
   strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-3 days'), NULL),
  (981, 980, 981, 'utilisateur:2', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-2 days'), 8,
   strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days'), 503,
   'Service Unavailable', NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days')),
  (982, 980, 982, 'utilisateur:3', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days'), 0,
   strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days'), NULL, NULL, NULL, NULL, NULL);
