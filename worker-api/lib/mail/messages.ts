/**
 * The words of the mails, in every language of the portal (DESIGN §5: mails are in the user's
 * language). French is the reference; the type makes English carry exactly the same keys.
 * `{{name}}` placeholders are filled (and HTML-escaped) by the renderer.
 */
const fr = {
  signature: "Portail d'accès aux applications",
  automatic: 'Ce message est envoyé automatiquement, merci de ne pas y répondre.',
  greeting: 'Bonjour {{prenom}} {{nom}},',
  linkFallback: 'Si le bouton ne fonctionne pas, copiez cette adresse dans votre navigateur :',
  passwordReset: {
    subject: 'Réinitialisation de votre mot de passe',
    intro: 'Vous avez demandé à changer le mot de passe de votre compte {{login}}.',
    action: 'Choisir un nouveau mot de passe',
    expiry: "Ce lien est valable {{hours}} heures et ne sert qu'une fois.",
    ignore: "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre mot de passe reste inchangé.",
  },
  passwordChanged: {
    subject: 'Votre mot de passe a été modifié',
    intro: "Le mot de passe de votre compte {{login}} vient d'être modifié.",
    warning: "Si vous n'êtes pas à l'origine de ce changement, contactez immédiatement votre administrateur.",
  },
  factorAdded: {
    subject: 'Un second facteur a été ajouté à votre compte',
    intro: "Un second facteur vient d'être ajouté à votre compte {{login}} : {{facteur}}.",
    warning: "Si vous n'êtes pas à l'origine de ce changement, contactez immédiatement votre administrateur.",
  },
  factorRemoved: {
    subject: 'Un second facteur a été retiré de votre compte',
    intro: "Un second facteur vient d'être retiré de votre compte {{login}} : {{facteur}}.",
    warning: "Si vous n'êtes pas à l'origine de ce changement, contactez immédiatement votre administrateur.",
  },
  factorReset: {
    subject: 'Le second facteur de votre compte a été réinitialisé',
    intro:
      "{{admin}} a réinitialisé le second facteur de votre compte {{login}} : vos applications d'authentification, clés d'accès et codes de secours ne servent plus. Vous pouvez en enregistrer de nouveaux depuis votre profil.",
    warning: 'Si vous ne vous attendiez pas à ce changement, contactez votre administrateur.',
  },
  factors: {
    totp: "une application d'authentification (TOTP)",
    passkey: "la clé d'accès « {{nom}} »",
    recoveryCodes: 'de nouveaux codes de secours (les précédents ne servent plus)',
  },
  webhookDisabled: {
    subject: 'Un webhook du portail a été désactivé',
    intro:
      "L'abonnement aux événements du portail qui livre à {{url}} ne reçoit plus rien : {{motif}}. Les événements suivants restent consultables 30 jours par l'API (GET rest/bd/evenements).",
    warning:
      "Corrigez le récepteur, puis réactivez l'abonnement depuis Administration › Webhooks ; son journal permet de renvoyer les livraisons manquées.",
    gone: "son adresse a répondu 410 (Gone), ce qui demande l'arrêt des livraisons",
    failing: "une livraison a échoué pendant plus d'une journée malgré les nouvelles tentatives",
  },
  sessionsEndedByAdmin: {
    subject: 'Vos sessions ont été fermées',
    intro:
      '{{admin}}, administrateur du portail, a fermé toutes les sessions ouvertes de votre compte {{login}}, ainsi que celles des applications lancées depuis le portail. Pour continuer, reconnectez-vous.',
    warning:
      "Si vous ne comprenez pas pourquoi, contactez votre administrateur ; si quelqu'un d'autre a pu utiliser votre compte, changez votre mot de passe.",
  },
  mailChanged: {
    subject: 'Votre adresse e-mail a été modifiée',
    intro: "L'adresse e-mail de votre compte {{login}} est désormais {{mail}}.",
    warning: "Si vous n'êtes pas à l'origine de ce changement, contactez immédiatement votre administrateur.",
  },
  mailChangeConfirm: {
    subject: 'Confirmez votre nouvelle adresse e-mail',
    intro: "Vous avez demandé que l'adresse e-mail de votre compte {{login}} devienne {{mail}}.",
    action: 'Confirmer cette adresse',
    expiry: "Ce lien est valable {{hours}} heures et ne sert qu'une fois. L'adresse ne change qu'une fois confirmée.",
    ignore:
      "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : l'adresse du compte reste inchangée.",
  },
  mailChangeRequested: {
    subject: 'Demande de changement de votre adresse e-mail',
    intro:
      "Une demande a été faite pour que l'adresse e-mail de votre compte {{login}} devienne {{mail}}. Elle ne prendra effet que si le lien envoyé à cette nouvelle adresse est ouvert.",
    warning:
      "Si vous n'êtes pas à l'origine de cette demande, changez votre mot de passe et contactez immédiatement votre administrateur.",
  },
  mailChangeByAdmin: {
    subject: 'Votre administrateur demande à changer votre adresse e-mail',
    intro:
      "{{admin}}, administrateur du portail, a demandé que l'adresse e-mail de votre compte {{login}} devienne {{mail}}. Un lien de confirmation a été envoyé à cette nouvelle adresse.",
    warning:
      "Votre adresse et votre mot de passe ne changent pas tant que cette nouvelle adresse n'a pas été confirmée. Si vous ne la reconnaissez pas, contactez votre administrateur.",
  },
  mailChangeByAdminConfirm: {
    subject: 'Confirmez la nouvelle adresse e-mail de votre compte',
    intro:
      "{{admin}}, administrateur du portail, a demandé que l'adresse e-mail de votre compte {{login}} devienne {{mail}}.",
    action: 'Confirmer cette adresse',
    expiry: "Ce lien est valable {{hours}} heures et ne sert qu'une fois. L'adresse ne change qu'une fois confirmée.",
    ignore: "Si ce compte ne vous concerne pas, ignorez ce message : l'adresse du compte reste inchangée.",
  },
  invitation: {
    subject: 'Votre compte sur le portail',
    intro:
      "{{admin}} vous a créé un compte sur le portail d'accès aux applications. Votre identifiant est {{login}} ; choisissez votre mot de passe pour l'activer.",
    action: 'Choisir mon mot de passe',
    expiry:
      "Ce lien est valable {{days}} jours et ne sert qu'une fois. Passé ce délai, demandez-en un autre à votre administrateur.",
    ignore: "Si vous n'attendiez pas ce compte, ignorez ce message : il restera inutilisable sans mot de passe.",
  },
  registration: {
    subject: 'Votre inscription sur le portail est acceptée',
    intro:
      "Votre demande d'inscription au nom de {{structure}} a été acceptée. Votre identifiant est {{login}} ; choisissez votre mot de passe pour activer votre compte.",
    action: 'Choisir mon mot de passe',
    expiry:
      "Ce lien est valable {{days}} jours et ne sert qu'une fois. Passé ce délai, demandez-en un autre à votre administrateur.",
    ignore:
      "Si vous n'avez pas demandé à vous inscrire, ignorez ce message : le compte restera inutilisable sans mot de passe.",
  },
  accessRequested: {
    subject: "Demande d'accès à {{application}}",
    intro: "{{demandeur}} demande l'accès à {{application}} du {{debut}} au {{fin}}, pour ce motif : « {{motif}} ».",
    action: 'Traiter la demande',
    expiry: 'Sans décision, la demande expire le {{expiration}}.',
  },
  accessRequestWaiting: {
    subject: "Demande d'accès à {{application}} en attente",
    intro:
      "{{demandeur}} attend depuis {{jours}} jours une décision sur sa demande d'accès à {{application}} (du {{debut}} au {{fin}}), pour ce motif : « {{motif}} ».",
    action: 'Traiter la demande',
    expiry: 'Sans décision, la demande expire le {{expiration}}.',
  },
  accessGranted: {
    subject: 'Accès accordé : {{application}}',
    intro:
      "{{admin}} a accordé votre demande d'accès à {{application}} : {{fonction}}, {{structure}}, du {{debut}} au {{fin}}.",
    comment: 'Son commentaire : « {{commentaire}} ».',
    note: "L'application apparaît dans « Mes accès » à partir du {{debut}}.",
  },
  accessRefused: {
    subject: "Demande d'accès refusée : {{application}}",
    intro: "{{admin}} a refusé votre demande d'accès à {{application}}, pour ce motif : « {{commentaire}} ».",
    note: 'Vous pouvez faire une nouvelle demande depuis « Mes accès ».',
  },
  reviewReminder: {
    subject: 'Revue des accès « {{campagne}} » : {{restants}} postes à revoir',
    intro:
      'La campagne de revue des accès « {{campagne}} » attend votre décision sur {{restants}} postes de votre périmètre : confirmez-les, ou terminez ceux qui ne sont plus justifiés.',
    action: 'Revoir les postes',
    due: "Échéance : {{echeance}}. Passé cette date, les postes non revus sont traités comme la campagne l'a prévu.",
  },
  accessExpired: {
    subject: "Demande d'accès expirée : {{application}}",
    intro: "Votre demande d'accès à {{application}} n'a pas reçu de décision en {{jours}} jours : elle a expiré.",
    note: 'Vous pouvez la renouveler depuis « Mes accès ».',
  },
}

type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> }
export type MailWords = Shape<typeof fr>

const en: MailWords = {
  signature: 'Application access portal',
  automatic: 'This message was sent automatically; please do not reply.',
  greeting: 'Hello {{prenom}} {{nom}},',
  linkFallback: 'If the button does not work, copy this address into your browser:',
  passwordReset: {
    subject: 'Resetting your password',
    intro: 'You asked to change the password of your account {{login}}.',
    action: 'Choose a new password',
    expiry: 'This link is valid for {{hours}} hours and works only once.',
    ignore: 'If you did not ask for this, ignore this message: your password stays as it is.',
  },
  passwordChanged: {
    subject: 'Your password has changed',
    intro: 'The password of your account {{login}} has just been changed.',
    warning: 'If you did not make this change, contact your administrator straight away.',
  },
  factorAdded: {
    subject: 'A second factor was added to your account',
    intro: 'A second factor has just been added to your account {{login}}: {{facteur}}.',
    warning: 'If you did not make this change, contact your administrator straight away.',
  },
  factorRemoved: {
    subject: 'A second factor was removed from your account',
    intro: 'A second factor has just been removed from your account {{login}}: {{facteur}}.',
    warning: 'If you did not make this change, contact your administrator straight away.',
  },
  factorReset: {
    subject: 'The second factor of your account was reset',
    intro:
      '{{admin}} reset the second factor of your account {{login}}: your authenticator apps, passkeys and recovery codes no longer work. You can register new ones from your profile.',
    warning: 'If you did not expect this change, contact your administrator.',
  },
  factors: {
    totp: 'an authenticator app (TOTP)',
    passkey: 'the passkey “{{nom}}”',
    recoveryCodes: 'new recovery codes (the former ones no longer work)',
  },
  webhookDisabled: {
    subject: 'A webhook of the portal was disabled',
    intro:
      'The subscription to the portal’s events that delivers to {{url}} no longer receives anything: {{motif}}. The events that follow can still be read for 30 days from the API (GET rest/bd/evenements).',
    warning:
      'Fix the receiver, then switch the subscription on again from Administration › Webhooks; its log lets you send the missed deliveries again.',
    gone: 'its address answered 410 (Gone), which asks for deliveries to stop',
    failing: 'a delivery kept failing for more than a day despite the retries',
  },
  sessionsEndedByAdmin: {
    subject: 'Your sessions were ended',
    intro:
      '{{admin}}, an administrator of the portal, ended every open session of your account {{login}}, and those of the applications launched from the portal. To go on, sign in again.',
    warning:
      'If you do not know why, contact your administrator; if someone else may have used your account, change your password.',
  },
  mailChanged: {
    subject: 'Your e-mail address has changed',
    intro: 'The e-mail address of your account {{login}} is now {{mail}}.',
    warning: 'If you did not make this change, contact your administrator straight away.',
  },
  mailChangeConfirm: {
    subject: 'Confirm your new e-mail address',
    intro: 'You asked for the e-mail address of your account {{login}} to become {{mail}}.',
    action: 'Confirm this address',
    expiry: 'This link is valid for {{hours}} hours and works only once. The address changes only once confirmed.',
    ignore: 'If you did not ask for this, ignore this message: the address of the account stays as it is.',
  },
  mailChangeRequested: {
    subject: 'Request to change your e-mail address',
    intro:
      'Someone asked for the e-mail address of your account {{login}} to become {{mail}}. It takes effect only if the link sent to that new address is opened.',
    warning: 'If you did not ask for this, change your password and contact your administrator straight away.',
  },
  mailChangeByAdmin: {
    subject: 'Your administrator asked to change your e-mail address',
    intro:
      '{{admin}}, an administrator of the portal, asked for the e-mail address of your account {{login}} to become {{mail}}. A confirmation link was sent to that new address.',
    warning:
      'Your address and your password stay as they are until that new address is confirmed. If you do not recognise it, contact your administrator.',
  },
  mailChangeByAdminConfirm: {
    subject: 'Confirm the new e-mail address of your account',
    intro:
      '{{admin}}, an administrator of the portal, asked for the e-mail address of your account {{login}} to become {{mail}}.',
    action: 'Confirm this address',
    expiry: 'This link is valid for {{hours}} hours and works only once. The address changes only once confirmed.',
    ignore: 'If this account is not yours, ignore this message: the address of the account stays as it is.',
  },
  invitation: {
    subject: 'Your account on the portal',
    intro:
      '{{admin}} created an account for you on the application access portal. Your login is {{login}}; choose your password to activate it.',
    action: 'Choose my password',
    expiry:
      'This link is valid for {{days}} days and works only once. After that, ask your administrator for another one.',
    ignore: 'If you did not expect this account, ignore this message: it stays unusable without a password.',
  },
  registration: {
    subject: 'Your registration on the portal is accepted',
    intro:
      'Your request to register for {{structure}} has been accepted. Your login is {{login}}; choose your password to activate your account.',
    action: 'Choose my password',
    expiry:
      'This link is valid for {{days}} days and works only once. After that, ask your administrator for another one.',
    ignore: 'If you did not ask to register, ignore this message: the account stays unusable without a password.',
  },
  accessRequested: {
    subject: 'Access request for {{application}}',
    intro: '{{demandeur}} asks for access to {{application}} from {{debut}} to {{fin}}, for this reason: “{{motif}}”.',
    action: 'Handle the request',
    expiry: 'Without a decision, the request expires on {{expiration}}.',
  },
  accessRequestWaiting: {
    subject: 'Access request for {{application}} still waiting',
    intro:
      '{{demandeur}} has been waiting {{jours}} days for a decision on their request for access to {{application}} (from {{debut}} to {{fin}}), for this reason: “{{motif}}”.',
    action: 'Handle the request',
    expiry: 'Without a decision, the request expires on {{expiration}}.',
  },
  accessGranted: {
    subject: 'Access granted: {{application}}',
    intro:
      '{{admin}} granted your request for access to {{application}}: {{fonction}}, {{structure}}, from {{debut}} to {{fin}}.',
    comment: 'Their comment: “{{commentaire}}”.',
    note: 'The application shows in “My access” from {{debut}}.',
  },
  accessRefused: {
    subject: 'Access request refused: {{application}}',
    intro: '{{admin}} refused your request for access to {{application}}, for this reason: “{{commentaire}}”.',
    note: 'You may make a new request from “My access”.',
  },
  reviewReminder: {
    subject: 'Access review “{{campagne}}”: {{restants}} posts to review',
    intro:
      'The access review campaign “{{campagne}}” waits for your decision on {{restants}} posts of your scope: confirm them, or end those no longer justified.',
    action: 'Review the posts',
    due: 'Due date: {{echeance}}. After it, the posts not reviewed are handled as the campaign planned.',
  },
  accessExpired: {
    subject: 'Access request expired: {{application}}',
    intro: 'Your request for access to {{application}} received no decision within {{jours}} days: it has expired.',
    note: 'You may make it again from “My access”.',
  },
}

export const MAIL_LANGUAGES = { fr, en } as const
export type MailLanguage = keyof typeof MAIL_LANGUAGES
