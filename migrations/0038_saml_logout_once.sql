-- An application's logout request is acted on once (issue 62): its ID is kept, per application, with the sequence it
-- started (30 days, longer than the 6 minutes it may be presented), and the same request presented again is refused.
CREATE UNIQUE INDEX saml_deconnexion_asked_once ON saml_deconnexion (application_id, request_id)
  WHERE statut = 'INITIATRICE';
