import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': 'Zeitpunkt: {at, date, utc}',
  'mail.network': 'Netzwerk: {network}',
  'mail.lastNetwork': 'Netzwerk des letzten Versuchs: {network}',
  'mail.device': 'Gerät: {device}',
  'mail.unknown': 'unbekannt',

  'mail.code.subject': 'Dein dauth-Bestätigungscode',
  'mail.code.code': 'Dein dauth-Bestätigungscode lautet {code}.',
  'mail.code.pinRecover':
    'Verwende ihn innerhalb von {minutes, plural, one {# Minute} other {# Minuten}}, um die PIN deiner Wallet wiederherzustellen (dadurch erhält deine Wallet einen neuen Eigentümerschlüssel).',
  'mail.code.notYou': 'Wenn du ihn nicht angefordert hast, ignoriere diese E-Mail und ändere dein Passwort.',

  'mail.address.subjectSignup': 'Bestätige deine E-Mail-Adresse bei dauth',
  'mail.address.subjectResend': 'Dein dauth-Code zur Bestätigung der E-Mail-Adresse',
  'mail.address.intro':
    'Bestätige, dass dies deine E-Mail-Adresse für dauth ist: Öffne diesen Link und drücke dort auf die Schaltfläche',
  'mail.address.code': 'oder gib den Code {code} dort ein, wo du dich registriert hast.',
  'mail.address.validity':
    'Beide funktionieren einmal, {hours, plural, one {# Stunde} other {# Stunden}} lang.',
  'mail.address.notYou': 'Wenn du kein dauth-Konto erstellt hast, ignoriere diese E-Mail.',

  'mail.reset.subject': 'Setze dein dauth-Passwort zurück',
  'mail.reset.code': 'Dein Code zum Zurücksetzen des dauth-Passworts lautet {code}.',
  'mail.reset.enter':
    'Gib ihn innerhalb von {minutes, plural, one {# Minute} other {# Minuten}} im Formular zum Zurücksetzen ein oder öffne:',
  'mail.reset.notYou':
    'Wenn du das nicht angefordert hast, ignoriere diese E-Mail: Dein Passwort bleibt unverändert.',

  'mail.guessing.subject': 'Jemand versucht, das Passwort deines dauth-Kontos zu erraten',
  'mail.guessing.intro':
    'Bei deinem dauth-Konto gab es in den letzten Minuten viele fehlgeschlagene Anmeldungen, möglicherweise von vielen Orten aus. Solange sie anhalten, braucht eine Anmeldung neben dem Passwort auch diesen Code:',
  'mail.guessing.code': 'Dein Anmeldecode lautet {code}.',
  'mail.guessing.validity':
    'Er gilt {minutes, plural, one {# Minute} other {# Minuten}} lang. Gib ihn auf der Anmeldeseite zusammen mit deinem Passwort ein.',
  'mail.guessing.notYou':
    'Wenn du das nicht warst, ist nichts verloren: Das Passwort allein öffnet das Konto nicht mehr.',
  'mail.guessing.weak':
    'Wenn dein Passwort schwach ist oder auch anderswo verwendet wird, ändere es nach der Anmeldung.',

  'mail.security.passkeyAdded.subject': 'Deinem dauth-Konto wurde ein Passkey hinzugefügt',
  'mail.security.passkeyAdded.body':
    'Deinem dauth-Konto wurde ein Passkey hinzugefügt (Anmeldedaten {credential}…).',
  'mail.security.passkeyRemoved.subject': 'Ein Passkey wurde aus deinem dauth-Konto entfernt',
  'mail.security.passkeyRemoved.body':
    'Ein Passkey wurde aus deinem dauth-Konto entfernt (Anmeldedaten {credential}…).',
  'mail.security.identityLinked.subject': 'Eine Anmeldeidentität wurde mit deinem dauth-Konto verknüpft',
  'mail.security.identityLinked.body':
    'Dein {provider}-Konto wurde mit deinem dauth-Konto verknüpft: Damit ist jetzt eine Anmeldung bei deinem dauth-Konto möglich.',
  'mail.security.identityUnlinked.subject':
    'Die Verknüpfung einer Anmeldeidentität mit deinem dauth-Konto wurde aufgehoben',
  'mail.security.identityUnlinked.body': 'Eine verknüpfte Identität wurde aus deinem dauth-Konto entfernt.',
  'mail.security.guestUpgraded.subject': 'Dein dauth-Gastkonto wurde in ein vollständiges Konto umgewandelt',
  'mail.security.guestUpgraded.body':
    'Dein Gastkonto wurde in ein vollständiges Konto umgewandelt: Mit seinem Geräte-Geheimnis ist keine Anmeldung mehr möglich.',
  'mail.security.passwordChanged.subject': 'Dein dauth-Passwort wurde geändert',
  'mail.security.passwordChanged.body':
    'Das Passwort deines dauth-Kontos wurde geändert. Alle anderen Sitzungen wurden abgemeldet.',
  'mail.security.passwordReset.subject': 'Dein dauth-Passwort wurde zurückgesetzt',
  'mail.security.passwordReset.body':
    'Das Passwort deines dauth-Kontos wurde per E-Mail zurückgesetzt. Alle Sitzungen wurden abgemeldet.',
  'mail.security.totpEnabled.subject': 'Deinem dauth-Konto wurde eine Authentifizierungs-App hinzugefügt',
  'mail.security.totpEnabled.body':
    'Die Anmeldung in zwei Schritten mit einer Authentifizierungs-App (TOTP) wurde für dein dauth-Konto aktiviert.',
  'mail.security.totpRemoved.subject': 'Die Authentifizierungs-App wurde aus deinem dauth-Konto entfernt',
  'mail.security.totpRemoved.body':
    'Die Anmeldung in zwei Schritten mit einer Authentifizierungs-App (TOTP) wurde für dein dauth-Konto deaktiviert.',
  'mail.security.sessionKeyGranted.subject':
    'Eine App hat einen Sitzungsschlüssel für deine dauth-Wallet erhalten',
  'mail.security.sessionKeyGranted.body':
    'Die App {app} hat einen Sitzungsschlüssel erhalten: Sie darf jetzt im Rahmen ihrer Richtlinie mit deiner Wallet handeln.',
  'mail.security.waysInRemoved.subject':
    'Deine dauth-E-Mail-Adresse ist bestätigt: Frühere Anmeldemethoden wurden entfernt',
  'mail.security.waysInRemoved.body':
    'Diese E-Mail-Adresse wurde zum ersten Mal für dein dauth-Konto bestätigt. Jede Anmeldemöglichkeit, die vor dieser Bestätigung hinzugefügt wurde, wurde entfernt, und alle Sitzungen, App-Tokens und Sitzungsschlüssel des Kontos wurden beendet, damit niemand, der die Adresse vor dir verwendet hat, den Zugang behalten kann.',
  'mail.security.waysInRemoved.list': 'Entfernt:',
  'mail.security.waysInRemoved.nothing': 'Außer den Sitzungen musste nichts entfernt werden.',
  'mail.security.removed.passkey':
    'ein Passkey (Anmeldedaten {credential}…, hinzugefügt am {added, date, utc})',
  'mail.security.removed.identity': 'die verknüpfte {provider}-Identität (hinzugefügt am {added, date, utc})',
  'mail.security.removed.namedIdentity':
    'die verknüpfte {provider}-Identität „{name}“ (hinzugefügt am {added, date, utc})',
  'mail.security.removed.guestSecret': 'das Geräte-Geheimnis des Gastkontos',
  'mail.security.removed.totp': 'die Authentifizierungs-App (TOTP) und ihre Wiederherstellungscodes',
  'mail.security.wasYou': 'Wenn du das warst, musst du nichts tun.',
  'mail.security.notYou':
    'Wenn du das nicht warst, öffne diesen Link und bestätige: Damit wirst du überall abgemeldet, alle Sitzungsschlüssel werden beendet, ein hinzugefügter Passkey oder eine hinzugefügte Identität wird rückgängig gemacht, und du wirst gebeten, per E-Mail ein neues Passwort festzulegen.',
  'mail.security.linkValidity':
    'Der Link funktioniert einmal, {days, plural, one {# Tag} other {# Tage}} lang.',

  'mail.invite.subject': 'Du bist zu {org} auf dauth eingeladen',
  'mail.invite.body':
    'Du bist eingeladen, der Organisation „{org}“ auf dauth als {role, select, admin {Admin} developer {Entwickler} viewer {Betrachter} other {{role}}} beizutreten.',
  'mail.invite.accept': 'Nimm die Einladung an (angemeldet mit dieser E-Mail-Adresse):',
  'mail.invite.token': 'Oder füge dieses Einladungstoken in der Konsole oder bei `dauth org accept` ein:',
  'mail.invite.expires': 'Die Einladung läuft am {expires, date, utc} ab und funktioniert einmal.',
  'mail.invite.notYou': 'Wenn du sie nicht erwartet hast, ignoriere diese E-Mail.',
} satisfies Translation<typeof en>;
