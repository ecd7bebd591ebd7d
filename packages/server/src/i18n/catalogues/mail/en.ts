/**
 * English: the source of the mail namespace's keys (docs/i18n.md). Every mail the service sends, one message a
 * paragraph; codes, links and tokens are values or lines of their own, never inside a message's words.
 */
export default {
  // Lines several mails share: where a change or an attempt came from.
  'mail.when': 'When: {at, date, utc}',
  'mail.network': 'Network: {network}',
  'mail.lastNetwork': 'Network of the last attempt: {network}',
  'mail.device': 'Device: {device}',
  'mail.unknown': 'unknown',

  // The code of a sensitive action (`POST /v1/auth/email/send-code`).
  'mail.code.subject': 'Your dauth verification code',
  'mail.code.code': 'Your dauth verification code is {code}.',
  'mail.code.pinRecover':
    'Use it within {minutes, plural, one {# minute} other {# minutes}} to recover your wallet PIN (this gives your wallet a new owner key).',
  'mail.code.notYou': 'If you did not ask for it, ignore this e-mail and change your password.',

  // The account's own address: the sign-up mail and its resends.
  'mail.address.subjectSignup': 'Confirm your dauth e-mail address',
  'mail.address.subjectResend': 'Your dauth e-mail verification code',
  'mail.address.intro':
    'Confirm that this is your e-mail address for dauth: open this link and press its button',
  'mail.address.code': 'or enter the code {code} where you signed up.',
  'mail.address.validity': 'Both work once, for {hours, plural, one {# hour} other {# hours}}.',
  'mail.address.notYou': 'If you did not create a dauth account, ignore this e-mail.',

  // Password reset.
  'mail.reset.subject': 'Reset your dauth password',
  'mail.reset.code': 'Your dauth password reset code is {code}.',
  'mail.reset.enter':
    'Enter it within {minutes, plural, one {# minute} other {# minutes}} on the reset form, or open:',
  'mail.reset.notYou': 'If you did not ask for it, ignore this e-mail: your password stays as it is.',

  // Password guessing against the account.
  'mail.guessing.subject': 'Someone is guessing the password of your dauth account',
  'mail.guessing.intro':
    'Your dauth account had many failed sign-ins in the last minutes, possibly from many places. Until they stop, a sign-in needs this code as well as the password:',
  'mail.guessing.code': 'Your sign-in code is {code}.',
  'mail.guessing.validity':
    'It works for {minutes, plural, one {# minute} other {# minutes}}. Enter it on the sign-in page with your password.',
  'mail.guessing.notYou':
    'If it was not you, nothing is lost: the password alone no longer opens the account.',
  'mail.guessing.weak': 'If your password is weak or used elsewhere, change it after signing in.',

  // Security notices: a change to the ways in, the password or the grants, with a "this wasn't me" link.
  'mail.security.passkeyAdded.subject': 'A passkey was added to your dauth account',
  'mail.security.passkeyAdded.body': 'A passkey was added to your dauth account (credential {credential}…).',
  'mail.security.passkeyRemoved.subject': 'A passkey was removed from your dauth account',
  'mail.security.passkeyRemoved.body':
    'A passkey was removed from your dauth account (credential {credential}…).',
  'mail.security.identityLinked.subject': 'A sign-in identity was linked to your dauth account',
  'mail.security.identityLinked.body':
    'Your {provider} account was linked to your dauth account: it can now sign in to it.',
  'mail.security.identityUnlinked.subject': 'A sign-in identity was unlinked from your dauth account',
  'mail.security.identityUnlinked.body': 'A linked identity was removed from your dauth account.',
  'mail.security.guestUpgraded.subject': 'Your dauth guest account was upgraded',
  'mail.security.guestUpgraded.body':
    'Your guest account was upgraded: its device secret no longer signs in.',
  'mail.security.passwordChanged.subject': 'Your dauth password was changed',
  'mail.security.passwordChanged.body':
    'The password of your dauth account was changed. Every other session was signed out.',
  'mail.security.passwordReset.subject': 'Your dauth password was reset',
  'mail.security.passwordReset.body':
    'The password of your dauth account was reset by e-mail. Every session was signed out.',
  'mail.security.totpEnabled.subject': 'An authenticator app was added to your dauth account',
  'mail.security.totpEnabled.body':
    'Two-step sign-in with an authenticator app (TOTP) was turned on for your dauth account.',
  'mail.security.totpRemoved.subject': 'The authenticator app was removed from your dauth account',
  'mail.security.totpRemoved.body':
    'Two-step sign-in with an authenticator app (TOTP) was turned off for your dauth account.',
  'mail.security.sessionKeyGranted.subject': 'An app was given a session key to your dauth wallet',
  'mail.security.sessionKeyGranted.body':
    'The app {app} was granted a session key: it may now act on your wallet within its policy.',
  'mail.security.waysInRemoved.subject':
    'Your dauth e-mail address is confirmed: earlier sign-in methods were removed',
  'mail.security.waysInRemoved.body':
    'This e-mail address was confirmed for your dauth account for the first time. Every way to sign in that was added before this confirmation was removed, and every session, app token and session key of the account was ended, so that nobody who used the address before you can keep access.',
  'mail.security.waysInRemoved.list': 'Removed:',
  'mail.security.waysInRemoved.nothing': 'Nothing besides the sessions had to be removed.',
  'mail.security.removed.passkey': 'a passkey (credential {credential}…, added {added, date, utc})',
  'mail.security.removed.identity': 'the linked {provider} identity (added {added, date, utc})',
  'mail.security.removed.namedIdentity': 'the linked {provider} identity "{name}" (added {added, date, utc})',
  'mail.security.removed.guestSecret': 'the guest device secret',
  'mail.security.removed.totp': 'the authenticator app (TOTP) and its recovery codes',
  'mail.security.wasYou': 'If this was you, there is nothing to do.',
  'mail.security.notYou':
    'If it was not you, open this link and confirm: it signs you out everywhere, ends every session key, undoes an added passkey or identity, and asks you to set a new password by e-mail.',
  'mail.security.linkValidity': 'The link works once, for {days, plural, one {# day} other {# days}}.',

  // An invitation to an organization (in the invitee's language, else the inviter's).
  'mail.invite.subject': 'You are invited to {org} on dauth',
  'mail.invite.body':
    'You are invited to join the organization "{org}" on dauth as {role, select, admin {admin} developer {developer} viewer {viewer} other {{role}}}.',
  'mail.invite.accept': 'Accept the invitation (signed in with this e-mail address):',
  'mail.invite.token': 'Or paste this invitation token into the console or `dauth org accept`:',
  'mail.invite.expires': 'The invitation expires on {expires, date, utc} and works once.',
  'mail.invite.notYou': 'If you did not expect it, ignore this mail.',
} as const;
