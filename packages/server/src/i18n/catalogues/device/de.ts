import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': 'Gerät verbinden',
  'device.login.heading': 'Bei dauth anmelden',
  'device.login.intro':
    'um ein Gerät (eine Konsole, einen Fernseher oder einen Launcher) mit Ihrem Konto zu verbinden',
  'device.login.wrongPassword': 'E-Mail-Adresse oder Passwort ist falsch.',
  'device.login.challengeFailed':
    'Die Prüfung, dass sich ein Mensch anmeldet, wurde nicht abgeschlossen. Warten Sie, bis sie fertig ist, und melden Sie sich dann erneut an.',
  'device.login.accountGuarded':
    'Zu viele fehlgeschlagene Anmeldungen für dieses Konto. Geben Sie mit Ihrem Passwort den Code ein, den wir an das Konto gesendet haben, oder warten Sie, bis die Prüfung abgeschlossen ist.',
  'device.login.emailCodeWrong':
    'Der per E-Mail gesendete Code ist falsch, abgelaufen oder verbraucht. Geben Sie den neuesten Code ein, den wir an das Konto gesendet haben.',
  'device.login.stepEnded':
    'Zu viele falsche Codes, oder die Anmeldung hat zu lange gedauert. Melden Sie sich erneut an.',
  'device.code.heading': 'Gerät verbinden',
  'device.code.intro': 'Geben Sie den Code ein, den Ihre Konsole, Ihr Fernseher oder Ihr Launcher anzeigt.',
  'device.code.label': 'Code',
  'device.code.continue': 'Weiter',
  'device.code.wrong': 'Dieser Code ist falsch oder abgelaufen. Prüfen Sie den Code auf Ihrem Gerät.',
  'device.confirm.heading': '<app>{name}</app> verbinden?',
  'device.confirm.checkCode': 'Prüfen Sie, ob Ihr Gerät den Code <shown>{code}</shown> anzeigt.',
  'device.confirm.receives': '<app>{name}</app> auf diesem Gerät erhält {items}.',
  'device.confirm.deny': 'Ablehnen',
  'device.confirm.allow': 'Erlauben',
  'device.confirm.signedInAs': 'Angemeldet als <email>{account}</email>.',
  'device.done.connected': 'Gerät verbunden',
  'device.done.connectedText':
    '<app>{name}</app> meldet sich auf Ihrem Gerät an. Sie können diese Seite schließen.',
  'device.done.denied': 'Gerät nicht verbunden',
  'device.done.deniedText':
    'Sie haben <app>{name}</app> abgelehnt. Es wurde nichts geteilt. Sie können diese Seite schließen.',
} satisfies Translation<typeof en>;
