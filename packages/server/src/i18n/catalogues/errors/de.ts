import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': 'Anmeldefehler',
  'errors.heading': 'Dieser Anmeldelink funktioniert nicht',
  'errors.advice':
    'Die App, die Sie hierher geschickt hat, hat etwas angefragt, das dauth nicht kann, deshalb wurden Sie nicht zu ihr zurückgeleitet. Gehen Sie zurück zur App und versuchen Sie es erneut; wenn das weiter passiert, informieren Sie die Entwickler der App.',
  'errors.technical': 'Fehler {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'dauth kennt diese App nicht (client_id), oder die App hat die Adresse, zu der sie zurückkehren wollte, nicht registriert (redirect_uri).',
  'errors.explanation.invalidRequest': 'Der Anmeldelink ist unvollständig oder fehlerhaft.',
  'errors.explanation.rateLimited':
    'Zu viele Versuche aus diesem Netzwerk. Warten Sie eine Minute und versuchen Sie es dann erneut.',
  'errors.explanation.invalidCsrfToken':
    'Das Formular ist abgelaufen oder wurde nicht von der dauth-Seite gesendet. Laden Sie die Seite neu und versuchen Sie es erneut.',
  'errors.explanation.invalidOrigin':
    'Das Formular wurde nicht von der dauth-Seite gesendet. Öffnen Sie den Link aus der E-Mail erneut und verwenden Sie die Schaltfläche dort.',
  'errors.explanation.accountExistsLinkRequired':
    'Es gibt bereits ein Konto mit dieser E-Mail-Adresse. Melden Sie sich mit Ihrem Passwort oder Passkey dort an und verknüpfen Sie dann diese Anmeldemethode in Ihrem Konto.',
  'errors.explanation.identityInUse':
    'Diese Anmeldemethode ist bereits mit einem anderen dauth-Konto verknüpft. Melden Sie sich bei diesem Konto an oder heben Sie die Verknüpfung dort zuerst auf.',
  'errors.explanation.flowBrowserMismatch':
    'Diese Anmeldung wurde in einem anderen Browser oder Fenster begonnen. Gehen Sie zurück zur App und wählen Sie die Anmeldemethode hier erneut.',
  'errors.explanation.linkBrowserMismatch':
    'Die Verknüpfung wurde in einem anderen Browser angefordert, daher wurde nichts verknüpft. Melden Sie sich hier bei Ihrem Konto an und verknüpfen Sie über dessen Seite.',
  'errors.explanation.invalidState':
    'Diese Anmeldung ist abgelaufen oder wurde bereits verwendet. Gehen Sie zurück zur App und beginnen Sie von vorn.',
  'errors.explanation.invalidLinkTicket':
    'Diese Verknüpfungsanfrage ist abgelaufen oder wurde bereits verwendet. Beginnen Sie die Verknüpfung erneut auf Ihrer Kontoseite.',
  'errors.explanation.providerUnavailable':
    'Der Anmeldeanbieter ist gerade nicht erreichbar. Versuchen Sie es später erneut oder melden Sie sich auf andere Weise an.',
  'errors.explanation.upstreamRejected':
    'Die Antwort des Anmeldeanbieters konnte nicht akzeptiert werden. Gehen Sie zurück zur App und versuchen Sie es erneut.',
  'errors.explanation.unknownProvider':
    'Diese Anmeldemethode ist bei diesem dauth nicht eingerichtet. Gehen Sie zurück zur App und wählen Sie eine andere.',
  'errors.explanation.unavailable':
    'dauth ist gerade ausgelastet oder startet. Warten Sie einen Moment und versuchen Sie es dann erneut.',
  'errors.explanation.other':
    'dauth konnte diese Anfrage nicht abschließen. Gehen Sie zurück zur App und versuchen Sie es erneut.',
} satisfies Translation<typeof en>;
