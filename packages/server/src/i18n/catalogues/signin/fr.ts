import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'signin.title': 'Connexion',
  'signin.heading': 'Se connecter à dauth',
  'signin.toContinueTo': 'pour continuer vers <app>{name}</app>',
  'signin.unnamedApp': '(application sans nom)',
  'signin.email': 'Adresse e-mail',
  'signin.password': 'Mot de passe',
  'signin.submit': 'Se connecter',
  'signin.usePasskey': 'Utiliser une clé d’accès',
  'signin.continueWith': 'Continuer avec {provider}',
  'signin.createAccount': 'Créer un compte',
  'signin.forgotPassword': 'Mot de passe oublié ?',
  'signin.emailCode': 'Code de l’e-mail envoyé au compte (si vous l’avez)',
  'signin.backToSignIn': 'Retour à la connexion',
  'signin.signup.title': 'Créer un compte dauth',
  'signin.signup.password': 'Mot de passe (au moins {min, plural, one {# caractère} other {# caractères}})',
  'signin.signup.submit': 'Créer le compte',
  'signin.reset.title': 'Réinitialiser votre mot de passe',
  'signin.reset.submit': 'Envoyer le code',
  'signin.resetConfirm.title': 'Choisir un nouveau mot de passe',
  'signin.resetConfirm.code': 'Code reçu par e-mail',
  'signin.resetConfirm.newPassword': 'Nouveau mot de passe',
  'signin.resetConfirm.submit': 'Enregistrer le nouveau mot de passe',
  'signin.notice.resetCodeSent':
    'Si un compte utilise cette adresse, un code est en route. Saisissez-le ci-dessous.',
  'signin.notice.passwordChanged': 'Votre mot de passe a été changé. Connectez-vous avec le nouveau.',
  'signin.notice.stepUp': 'Reconnectez-vous pour ajouter un second facteur à votre compte.',
  'signin.error.wrongPassword': 'Adresse e-mail ou mot de passe incorrect.',
  'signin.error.passkeyRefused': 'Cette clé d’accès n’a pas été acceptée. Réessayez.',
  'signin.error.accountUnderGuessing':
    'Trop de connexions échouées pour ce compte. Saisissez le code envoyé par e-mail à son titulaire, ou reconnectez-vous et laissez ce navigateur terminer sa vérification.',
  'signin.error.emailCodeWrong':
    'Le code de l’e-mail est incorrect, expiré ou épuisé. Saisissez le dernier code envoyé, ou laissez le champ vide et laissez ce navigateur terminer sa vérification.',
  'signin.error.browserCheck':
    'La vérification que ce navigateur est bien réel n’a pas abouti. Réessayez ; si l’échec persiste, rechargez la page.',
  'signin.error.emailTaken':
    'Un compte existe déjà avec cette adresse e-mail. Connectez-vous-y ou réinitialisez son mot de passe.',
  'signin.error.invalidEmail': 'Saisissez une adresse e-mail valide.',
  'signin.error.passwordTooShort':
    'Le mot de passe doit contenir au moins {min, plural, one {# caractère} other {# caractères}}.',
  'signin.error.weakPassword':
    'Ce mot de passe est trop facile à deviner. Choisissez-en un plus long, par exemple quelques mots sans rapport entre eux.',
  'signin.error.commonPassword': 'Ce mot de passe fait partie des plus courants ; choisissez-en un autre.',
  'signin.error.resetCodeWrong':
    'L’adresse e-mail ou le code est incorrect, expiré ou déjà utilisé. Demandez un nouveau code.',
  'signin.error.resetTooManyAttempts':
    'Trop de codes incorrects. Ouvrez le lien de l’e-mail ou demandez un nouveau code.',
  'signin.error.mfaWrongCode':
    'Ce code est incorrect ou a déjà été utilisé. Saisissez le code actuel ou un code de récupération.',
  'signin.error.mfaStepEnded':
    'Trop de codes incorrects, ou la connexion a pris trop de temps. Reconnectez-vous.',
  'signin.error.other': 'Cela n’a pas fonctionné. Vérifiez votre saisie et réessayez.',
  'signin.check.unavailable':
    'La vérification du navigateur n’a pas pu se charger : rechargez la page ou essayez un autre navigateur.',
  'signin.check.verifying': 'Vérification de ce navigateur (quelques secondes)…',
  'signin.check.verified': 'Vérifié : envoi du formulaire…',
  'signin.check.failed': 'La vérification du navigateur a échoué : cochez la case pour réessayer.',
  'signin.check.expired': 'La vérification du navigateur a expiré : cochez la case pour réessayer.',
  'signin.check.label': 'Je ne suis pas un robot',
  'signin.check.loading': 'Chargement…',
  'signin.check.required': 'Cochez d’abord la case.',
  'signin.check.done': 'Vérifié',
  'signin.check.wait': 'Vérification de ce navigateur… veuillez patienter.',
  'signin.check.logo': 'ALTCHA (site officiel)',
  'signin.mfa.title': 'Connexion en deux étapes',
  'signin.mfa.heading': 'Saisissez votre code',
  'signin.mfa.codeLabel': 'Code d’authentification',
  'signin.mfa.codeHelp':
    'Le code à {digits, number} chiffres de votre application d’authentification, ou l’un de vos codes de récupération.',
  'signin.mfa.submit': 'Valider',
  'signin.enrol.heading': 'Ajouter un second facteur',
  'signin.enrol.intro':
    'Cette connexion demande deux facteurs. Scannez le code avec une application d’authentification, puis saisissez le code qu’elle affiche.',
  'signin.enrol.qr': 'QR code du lien de configuration de l’authentificateur',
  'signin.enrol.byHand': 'Ou ajoutez ce lien de configuration à la main :',
  'signin.enrol.codeLabel': 'Code de l’application',
  'signin.enrol.codeHelp':
    'Le code à {digits, number} chiffres que votre application d’authentification affiche maintenant.',
  'signin.enrol.submit': 'Activer',
  'signin.recovery.title': 'Codes de récupération',
  'signin.recovery.heading': 'Conservez vos codes de récupération',
  'signin.recovery.intro':
    'Chacun vous connecte une fois si vous perdez votre authentificateur. Ils ne sont affichés que maintenant : notez-les ou enregistrez-les dans un gestionnaire de mots de passe.',
  'signin.recovery.continue': 'Je les ai conservés, continuer',
  'signin.completion.title': 'Retour à l’application',
  'signin.completion.returning': 'Retour à l’application en cours…',
  'signin.completion.done': 'C’est fait. Vous pouvez fermer cette fenêtre.',
  'signin.completion.continue': 'Continuer',
  'signin.logout.title': 'Déconnexion',
  'signin.logout.heading': 'Se déconnecter de dauth ?',
  'signin.logout.appAsks': '<app>{name}</app> demande à vous déconnecter.',
  'signin.logout.explain':
    'Vous devrez vous reconnecter la prochaine fois qu’une application demandera votre compte dauth.',
  'signin.logout.submit': 'Se déconnecter',
  'signin.loggedOut.title': 'Déconnecté',
  'signin.loggedOut.body': 'Vous êtes déconnecté de dauth. Vous pouvez fermer cette fenêtre.',
} satisfies Translation<typeof en>;
