import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': 'Erreur de connexion',
  'errors.heading': 'Ce lien de connexion ne fonctionne pas',
  'errors.advice':
    'L’application qui vous a envoyé ici a demandé quelque chose que dauth ne peut pas faire\u00a0; vous n’y avez donc pas été renvoyé. Retournez dans l’application et réessayez\u00a0; si le problème persiste, prévenez son développeur.',
  'errors.technical': 'Erreur {status} {code}\u00a0: {message}',
  'errors.explanation.redirectUriMismatch':
    'dauth ne connaît pas cette application (client_id), ou l’application n’a pas enregistré l’adresse vers laquelle elle a demandé à revenir (redirect_uri).',
  'errors.explanation.invalidRequest': 'Le lien de connexion est incomplet ou mal formé.',
  'errors.explanation.rateLimited':
    'Trop de tentatives depuis ce réseau. Patientez une minute, puis réessayez.',
  'errors.explanation.invalidCsrfToken':
    'Le formulaire a expiré ou n’a pas été envoyé depuis la page de dauth. Rechargez la page et réessayez.',
  'errors.explanation.invalidOrigin':
    'Le formulaire n’a pas été envoyé depuis la page de dauth. Rouvrez le lien de l’e-mail et utilisez son bouton.',
  'errors.explanation.accountExistsLinkRequired':
    'Un compte existe déjà avec cette adresse e-mail. Connectez-vous-y avec votre mot de passe ou votre passkey, puis liez ce mode de connexion depuis votre compte.',
  'errors.explanation.identityInUse':
    'Ce mode de connexion est déjà lié à un autre compte dauth. Connectez-vous à ce compte, ou commencez par l’en délier.',
  'errors.explanation.flowBrowserMismatch':
    'Cette connexion a commencé dans un autre navigateur ou une autre fenêtre. Retournez dans l’application et choisissez à nouveau le mode de connexion ici.',
  'errors.explanation.linkBrowserMismatch':
    'La liaison a été demandée dans un autre navigateur\u00a0: rien n’a été lié. Connectez-vous ici à votre compte et faites la liaison depuis sa page.',
  'errors.explanation.invalidState':
    'Cette connexion a expiré ou a déjà été utilisée. Retournez dans l’application et recommencez.',
  'errors.explanation.invalidLinkTicket':
    'Cette demande de liaison a expiré ou a déjà été utilisée. Recommencez la liaison depuis la page de votre compte.',
  'errors.explanation.providerUnavailable':
    'Le fournisseur de connexion est injoignable pour le moment. Réessayez plus tard ou utilisez un autre moyen de connexion.',
  'errors.explanation.upstreamRejected':
    'La réponse du fournisseur de connexion n’a pas pu être acceptée. Retournez dans l’application et réessayez.',
  'errors.explanation.unknownProvider':
    'Ce moyen de connexion n’est pas configuré sur ce dauth. Retournez dans l’application et choisissez-en un autre.',
  'errors.explanation.unavailable':
    'dauth est occupé ou en cours de démarrage. Patientez un instant, puis réessayez.',
  'errors.explanation.other':
    'dauth n’a pas pu traiter cette demande. Retournez dans l’application et réessayez.',
} satisfies Translation<typeof en>;
