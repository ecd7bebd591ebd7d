/** English: the source of the signin namespace's keys (docs/i18n.md). */
export default {
  // The sign-in page (GET /oauth/authorize).
  'signin.title': 'Sign in',
  'signin.heading': 'Sign in to dauth',
  'signin.toContinueTo': 'to continue to <app>{name}</app>',
  'signin.unnamedApp': '(unnamed app)',
  'signin.email': 'E-mail',
  'signin.password': 'Password',
  'signin.submit': 'Sign in',
  'signin.usePasskey': 'Use a passkey',
  'signin.continueWith': 'Continue with {provider}',
  'signin.createAccount': 'Create an account',
  'signin.forgotPassword': 'Forgot your password?',
  'signin.emailCode': 'Code from the e-mail we sent to the account (if you have it)',
  'signin.backToSignIn': 'Back to sign-in',

  // Sign-up, password reset.
  'signin.signup.title': 'Create a dauth account',
  'signin.signup.password': 'Password (at least {min, plural, one {# character} other {# characters}})',
  'signin.signup.submit': 'Create account',
  'signin.reset.title': 'Reset your password',
  'signin.reset.submit': 'Send reset code',
  'signin.resetConfirm.title': 'Set a new password',
  'signin.resetConfirm.code': 'Code from the e-mail',
  'signin.resetConfirm.newPassword': 'New password',
  'signin.resetConfirm.submit': 'Set new password',

  // Notices (role=status).
  'signin.notice.resetCodeSent': 'If an account uses this address, a code is on its way. Enter it below.',
  'signin.notice.passwordChanged': 'Your password was changed. Sign in with the new one.',
  'signin.notice.stepUp': 'Sign in again to add a second factor to your account.',

  // Errors (role=alert).
  'signin.error.wrongPassword': 'E-mail or password is wrong.',
  'signin.error.passkeyRefused': 'That passkey was not accepted. Try again.',
  'signin.error.accountUnderGuessing':
    'Too many failed sign-ins for this account. Enter the code we e-mailed to its owner, or sign in again and let this browser finish its check.',
  'signin.error.emailCodeWrong':
    'The code from the e-mail is wrong, expired or used up. Enter the newest code we sent, or leave the field empty and let this browser finish its check.',
  'signin.error.browserCheck':
    'The check that this is a real browser did not finish. Try again; if it keeps failing, reload the page.',
  'signin.error.emailTaken':
    'An account with this e-mail already exists. Sign in to it, or reset its password.',
  'signin.error.invalidEmail': 'Enter a valid e-mail address.',
  'signin.error.passwordTooShort':
    'The password needs at least {min, plural, one {# character} other {# characters}}.',
  'signin.error.weakPassword':
    'This password is too easy to guess. Choose a longer one, for example a few unrelated words.',
  'signin.error.commonPassword': 'This password is one of the most common passwords; choose another.',
  'signin.error.resetCodeWrong': 'The e-mail or code is wrong, expired or already used. Request a new code.',
  'signin.error.resetTooManyAttempts':
    'Too many wrong codes. Open the link in the e-mail, or request a new code.',
  'signin.error.mfaWrongCode':
    'That code is wrong or was already used. Enter the current code, or a recovery code.',
  'signin.error.mfaStepEnded': 'Too many wrong codes, or the sign-in took too long. Sign in again.',
  'signin.error.other': 'That did not work. Check what you entered and try again.',

  // The browser check (ALTCHA) under the form.
  'signin.check.unavailable':
    'The check that this is a real browser could not load: reload the page, or try another browser.',
  'signin.check.verifying': 'Checking this browser (a few seconds)…',
  'signin.check.verified': 'Checked: sending the form…',
  'signin.check.failed': 'The browser check failed: tick the box to try again.',
  'signin.check.expired': 'The browser check expired: tick the box to try again.',
  'signin.check.label': 'I am not a robot',
  'signin.check.loading': 'Loading…',
  'signin.check.required': 'Tick the box first.',
  'signin.check.done': 'Checked',
  'signin.check.wait': 'Checking this browser… please wait.',
  'signin.check.logo': 'ALTCHA (its website)',

  // The second step (docs/mfa.md "The pages").
  'signin.mfa.title': 'Two-step sign-in',
  'signin.mfa.heading': 'Enter your code',
  'signin.mfa.codeLabel': 'Authentication code',
  'signin.mfa.codeHelp':
    'The {digits, number}-digit code of your authenticator app, or one of your recovery codes.',
  'signin.mfa.submit': 'Verify',
  'signin.enrol.heading': 'Add a second factor',
  'signin.enrol.intro':
    'This sign-in needs two factors. Scan the code with an authenticator app, then enter the code it shows.',
  'signin.enrol.qr': 'QR code of the authenticator setup link',
  'signin.enrol.byHand': 'Or add this setup link by hand:',
  'signin.enrol.codeLabel': 'Code from the app',
  'signin.enrol.codeHelp': 'The {digits, number}-digit code your authenticator app shows now.',
  'signin.enrol.submit': 'Turn on',
  'signin.recovery.title': 'Recovery codes',
  'signin.recovery.heading': 'Save your recovery codes',
  'signin.recovery.intro':
    'Each one signs you in once if you lose your authenticator. They are shown only now: write them down or store them in a password manager.',
  'signin.recovery.continue': 'I saved them, continue',

  // The end of a popup flow.
  'signin.completion.title': 'Back to the app',
  'signin.completion.returning': 'Returning to the app…',
  'signin.completion.done': 'Done. You can close this window.',
  'signin.completion.continue': 'Continue',

  // RP-initiated logout (OpenID Connect).
  'signin.logout.title': 'Sign out',
  'signin.logout.heading': 'Sign out of dauth?',
  'signin.logout.appAsks': '<app>{name}</app> asks to sign you out.',
  'signin.logout.explain': 'You will have to sign in again the next time an app asks for your dauth account.',
  'signin.logout.submit': 'Sign out',
  'signin.loggedOut.title': 'Signed out',
  'signin.loggedOut.body': 'You are signed out of dauth. You can close this window.',
} as const;
