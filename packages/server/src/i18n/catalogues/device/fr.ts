import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': 'Connecter un appareil',
  'device.login.heading': 'Connectez-vous à dauth',
  'device.login.intro': 'pour connecter un appareil (console, téléviseur ou launcher) à votre compte',
  'device.login.wrongPassword': 'L’adresse e-mail ou le mot de passe est incorrect.',
  'device.login.challengeFailed':
    'La vérification qu’une personne se connecte n’a pas abouti. Attendez qu’elle se termine, puis reconnectez-vous.',
  'device.login.accountGuarded':
    'Trop de tentatives de connexion ont échoué pour ce compte. Saisissez avec votre mot de passe le code envoyé par e-mail au compte, ou attendez la fin de la vérification.',
  'device.login.emailCodeWrong':
    'Le code reçu par e-mail est incorrect, a expiré ou a déjà servi. Saisissez le dernier code envoyé au compte.',
  'device.login.stepEnded': 'Trop de codes erronés, ou la connexion a pris trop de temps. Reconnectez-vous.',
  'device.code.heading': 'Connecter un appareil',
  'device.code.intro': 'Saisissez le code affiché par votre console, téléviseur ou launcher.',
  'device.code.label': 'Code',
  'device.code.continue': 'Continuer',
  'device.code.wrong': 'Ce code est incorrect ou a expiré. Vérifiez le code affiché sur votre appareil.',
  'device.confirm.heading': 'Connecter <app>{name}</app>\u00a0?',
  'device.confirm.checkCode': 'Vérifiez que votre appareil affiche le code <shown>{code}</shown>.',
  'device.confirm.receives': '<app>{name}</app> sur cet appareil recevra {items}.',
  'device.confirm.deny': 'Refuser',
  'device.confirm.allow': 'Autoriser',
  'device.confirm.signedInAs': 'Connecté en tant que <email>{account}</email>.',
  'device.done.connected': 'Appareil connecté',
  'device.done.connectedText':
    '<app>{name}</app> se connecte sur votre appareil. Vous pouvez fermer cette page.',
  'device.done.denied': 'Appareil non connecté',
  'device.done.deniedText':
    'Vous avez refusé <app>{name}</app>. Rien n’a été partagé. Vous pouvez fermer cette page.',
} satisfies Translation<typeof en>;
