import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': 'Sécuriser votre compte',
  'account.secure.heading': 'Sécuriser votre compte dauth\u00a0?',
  'account.secure.text':
    'Si vous n’êtes pas à l’origine de la modification signalée par cet e-mail, confirmez ci-dessous. dauth vous déconnectera partout (toutes les applications, tous les appareils), mettra fin à toutes les clés de session, annulera l’ajout d’une passkey ou d’une identité liée et refusera toute connexion jusqu’à ce que vous définissiez un nouveau mot de passe avec un code envoyé par e-mail.',
  'account.secure.confirm': 'Oui, sécuriser mon compte',
  'account.secured.title': 'Compte sécurisé',
  'account.secured.heading': 'Votre compte est sécurisé',
  'account.secured.text':
    'Toutes les sessions, tous les jetons d’application et toutes les clés de session de votre compte dauth ont pris fin, et la modification signalée a été annulée. Pour vous reconnecter, réinitialisez votre mot de passe par e-mail.',
  'account.resetPassword': 'Réinitialiser votre mot de passe',
  'account.linkFailed.title': 'Lien non valide',
  'account.linkFailed.heading': 'Ce lien ne fonctionne pas',
  'account.secureLinkFailed.text':
    'Le lien est inconnu, a expiré ou a déjà été utilisé, et rien n’a été modifié. Si vous pensez que quelqu’un d’autre utilise votre compte, réinitialisez votre mot de passe par e-mail\u00a0: cela ferme toutes les sessions.',
  'account.verify.title': 'Confirmer votre e-mail',
  'account.verify.heading': 'Confirmer votre adresse e-mail\u00a0?',
  'account.verify.text':
    'Confirmez que cette adresse appartient à votre compte dauth. Si vous n’avez pas créé de compte dauth, fermez cette fenêtre\u00a0: il ne se passera rien.',
  'account.verify.confirm': 'Oui, c’est mon adresse',
  'account.verified.title': 'E-mail vérifié',
  'account.verified.heading': 'Adresse e-mail vérifiée',
  'account.verified.text':
    'Merci\u00a0: l’adresse e-mail de votre compte dauth est vérifiée. Vous pouvez fermer cette fenêtre.',
  'account.verifyFailed.title': 'Échec de la vérification',
  'account.verifyLinkFailed.text':
    'Le lien est inconnu, a expiré ou a déjà été utilisé. Connectez-vous et demandez un nouvel e-mail de vérification, ou saisissez le code du plus récent.',
} satisfies Translation<typeof en>;
