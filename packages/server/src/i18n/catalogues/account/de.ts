import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': 'Konto schützen',
  'account.secure.heading': 'Ihr dauth-Konto schützen?',
  'account.secure.text':
    'Wenn Sie die Änderung, über die diese E-Mail Sie informiert hat, nicht selbst vorgenommen haben, bestätigen Sie unten. dauth meldet Sie dann überall ab (in jeder App, auf jedem Gerät), beendet alle Sitzungsschlüssel, macht einen hinzugefügten Passkey oder eine verknüpfte Identität rückgängig und lehnt jede Anmeldung ab, bis Sie mit einem per E-Mail gesendeten Code ein neues Passwort festlegen.',
  'account.secure.confirm': 'Ja, mein Konto schützen',
  'account.secured.title': 'Konto geschützt',
  'account.secured.heading': 'Ihr Konto ist geschützt',
  'account.secured.text':
    'Alle Sitzungen, App-Tokens und Sitzungsschlüssel Ihres dauth-Kontos wurden beendet, und die gemeldete Änderung wurde rückgängig gemacht. Um sich wieder anzumelden, setzen Sie Ihr Passwort per E-Mail zurück.',
  'account.resetPassword': 'Passwort zurücksetzen',
  'account.linkFailed.title': 'Link ungültig',
  'account.linkFailed.heading': 'Dieser Link funktioniert nicht',
  'account.secureLinkFailed.text':
    'Der Link ist unbekannt, abgelaufen oder wurde bereits verwendet, und es wurde nichts geändert. Wenn Sie glauben, dass jemand anderes Ihr Konto verwendet, setzen Sie Ihr Passwort per E-Mail zurück: Dadurch werden alle Sitzungen abgemeldet.',
  'account.verify.title': 'E-Mail-Adresse bestätigen',
  'account.verify.heading': 'Ihre E-Mail-Adresse bestätigen?',
  'account.verify.text':
    'Bestätigen Sie, dass diese Adresse zu Ihrem dauth-Konto gehört. Wenn Sie kein dauth-Konto erstellt haben, schließen Sie dieses Fenster: Es passiert nichts.',
  'account.verify.confirm': 'Ja, das ist meine Adresse',
  'account.verified.title': 'E-Mail-Adresse bestätigt',
  'account.verified.heading': 'E-Mail-Adresse bestätigt',
  'account.verified.text':
    'Vielen Dank: Die E-Mail-Adresse Ihres dauth-Kontos ist bestätigt. Sie können dieses Fenster schließen.',
  'account.verifyFailed.title': 'Bestätigung fehlgeschlagen',
  'account.verifyLinkFailed.text':
    'Der Link ist unbekannt, abgelaufen oder wurde bereits verwendet. Melden Sie sich an und fordern Sie eine neue Bestätigungs-E-Mail an, oder geben Sie den Code aus der neuesten ein.',
} satisfies Translation<typeof en>;
