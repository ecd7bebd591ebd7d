import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'signin.title': 'Anmelden',
  'signin.heading': 'Bei dauth anmelden',
  'signin.toContinueTo': 'um zu <app>{name}</app> zu gelangen',
  'signin.unnamedApp': '(App ohne Namen)',
  'signin.email': 'E-Mail',
  'signin.password': 'Passwort',
  'signin.submit': 'Anmelden',
  'signin.usePasskey': 'Passkey verwenden',
  'signin.continueWith': 'Weiter mit {provider}',
  'signin.createAccount': 'Konto erstellen',
  'signin.forgotPassword': 'Passwort vergessen?',
  'signin.emailCode': 'Code aus der E-Mail, die wir an das Konto geschickt haben (falls vorhanden)',
  'signin.backToSignIn': 'Zurück zur Anmeldung',
  'signin.signup.title': 'dauth-Konto erstellen',
  'signin.signup.password': 'Passwort (mindestens {min, plural, one {# Zeichen} other {# Zeichen}})',
  'signin.signup.submit': 'Konto anlegen',
  'signin.reset.title': 'Passwort zurücksetzen',
  'signin.reset.submit': 'Code senden',
  'signin.resetConfirm.title': 'Neues Passwort festlegen',
  'signin.resetConfirm.code': 'Code aus der E-Mail',
  'signin.resetConfirm.newPassword': 'Neues Passwort',
  'signin.resetConfirm.submit': 'Neues Passwort speichern',
  'signin.notice.resetCodeSent':
    'Falls ein Konto diese Adresse verwendet, ist ein Code unterwegs. Geben Sie ihn unten ein.',
  'signin.notice.passwordChanged': 'Ihr Passwort wurde geändert. Melden Sie sich mit dem neuen an.',
  'signin.notice.stepUp': 'Melden Sie sich erneut an, um Ihrem Konto einen zweiten Faktor hinzuzufügen.',
  'signin.error.wrongPassword': 'E-Mail oder Passwort ist falsch.',
  'signin.error.passkeyRefused': 'Dieser Passkey wurde nicht akzeptiert. Versuchen Sie es erneut.',
  'signin.error.accountUnderGuessing':
    'Zu viele fehlgeschlagene Anmeldungen für dieses Konto. Geben Sie den Code ein, den wir an die E-Mail-Adresse des Kontos geschickt haben, oder melden Sie sich erneut an und lassen Sie diesen Browser seine Prüfung abschließen.',
  'signin.error.emailCodeWrong':
    'Der Code aus der E-Mail ist falsch, abgelaufen oder aufgebraucht. Geben Sie den neuesten Code ein, den wir geschickt haben, oder lassen Sie das Feld leer und diesen Browser seine Prüfung abschließen.',
  'signin.error.browserCheck':
    'Die Prüfung, ob dies ein echter Browser ist, wurde nicht abgeschlossen. Versuchen Sie es erneut; falls es weiter fehlschlägt, laden Sie die Seite neu.',
  'signin.error.emailTaken':
    'Es gibt bereits ein Konto mit dieser E-Mail-Adresse. Melden Sie sich dort an oder setzen Sie sein Passwort zurück.',
  'signin.error.invalidEmail': 'Geben Sie eine gültige E-Mail-Adresse ein.',
  'signin.error.passwordTooShort':
    'Das Passwort braucht mindestens {min, plural, one {# Zeichen} other {# Zeichen}}.',
  'signin.error.weakPassword':
    'Dieses Passwort ist zu leicht zu erraten. Wählen Sie ein längeres, zum Beispiel ein paar Wörter, die nichts miteinander zu tun haben.',
  'signin.error.commonPassword':
    'Dieses Passwort gehört zu den häufigsten Passwörtern; wählen Sie ein anderes.',
  'signin.error.resetCodeWrong':
    'E-Mail-Adresse oder Code ist falsch, abgelaufen oder schon verwendet. Fordern Sie einen neuen Code an.',
  'signin.error.resetTooManyAttempts':
    'Zu viele falsche Codes. Öffnen Sie den Link in der E-Mail oder fordern Sie einen neuen Code an.',
  'signin.error.mfaWrongCode':
    'Dieser Code ist falsch oder wurde schon verwendet. Geben Sie den aktuellen Code oder einen Wiederherstellungscode ein.',
  'signin.error.mfaStepEnded':
    'Zu viele falsche Codes, oder die Anmeldung hat zu lange gedauert. Melden Sie sich erneut an.',
  'signin.error.other': 'Das hat nicht geklappt. Prüfen Sie Ihre Eingaben und versuchen Sie es erneut.',
  'signin.check.unavailable':
    'Die Prüfung, ob dies ein echter Browser ist, konnte nicht geladen werden: Laden Sie die Seite neu oder versuchen Sie einen anderen Browser.',
  'signin.check.verifying': 'Dieser Browser wird geprüft (ein paar Sekunden)…',
  'signin.check.verified': 'Geprüft: Das Formular wird gesendet…',
  'signin.check.failed':
    'Die Browserprüfung ist fehlgeschlagen: Setzen Sie das Häkchen, um es erneut zu versuchen.',
  'signin.check.expired':
    'Die Browserprüfung ist abgelaufen: Setzen Sie das Häkchen, um es erneut zu versuchen.',
  'signin.check.label': 'Ich bin kein Roboter',
  'signin.check.loading': 'Wird geladen…',
  'signin.check.required': 'Setzen Sie zuerst das Häkchen.',
  'signin.check.done': 'Geprüft',
  'signin.check.wait': 'Dieser Browser wird geprüft… bitte warten.',
  'signin.check.logo': 'ALTCHA (offizielle Website)',
  'signin.mfa.title': 'Anmeldung in zwei Schritten',
  'signin.mfa.heading': 'Code eingeben',
  'signin.mfa.codeLabel': 'Bestätigungscode',
  'signin.mfa.codeHelp':
    'Der {digits, number}-stellige Code Ihrer Authenticator-App oder einer Ihrer Wiederherstellungscodes.',
  'signin.mfa.submit': 'Bestätigen',
  'signin.enrol.heading': 'Zweiten Faktor hinzufügen',
  'signin.enrol.intro':
    'Diese Anmeldung braucht zwei Faktoren. Scannen Sie den Code mit einer Authenticator-App und geben Sie dann den Code ein, den sie anzeigt.',
  'signin.enrol.qr': 'QR-Code des Einrichtungslinks für den Authenticator',
  'signin.enrol.byHand': 'Oder fügen Sie diesen Einrichtungslink von Hand hinzu:',
  'signin.enrol.codeLabel': 'Code aus der App',
  'signin.enrol.codeHelp': 'Der {digits, number}-stellige Code, den Ihre Authenticator-App gerade anzeigt.',
  'signin.enrol.submit': 'Einschalten',
  'signin.recovery.title': 'Wiederherstellungscodes',
  'signin.recovery.heading': 'Wiederherstellungscodes sichern',
  'signin.recovery.intro':
    'Jeder Code meldet Sie einmal an, falls Sie Ihren Authenticator verlieren. Sie werden nur jetzt angezeigt: Schreiben Sie sie auf oder speichern Sie sie in einem Passwortmanager.',
  'signin.recovery.continue': 'Gesichert, weiter',
  'signin.completion.title': 'Zurück zur App',
  'signin.completion.returning': 'Es geht zurück zur App…',
  'signin.completion.done': 'Fertig. Sie können dieses Fenster schließen.',
  'signin.completion.continue': 'Weiter',
  'signin.logout.title': 'Abmelden',
  'signin.logout.heading': 'Von dauth abmelden?',
  'signin.logout.appAsks': '<app>{name}</app> möchte Sie abmelden.',
  'signin.logout.explain':
    'Sie müssen sich erneut anmelden, wenn eine App das nächste Mal nach Ihrem dauth-Konto fragt.',
  'signin.logout.submit': 'Abmelden',
  'signin.loggedOut.title': 'Abgemeldet',
  'signin.loggedOut.body': 'Sie sind von dauth abgemeldet. Sie können dieses Fenster schließen.',
} satisfies Translation<typeof en>;
