/** English: the source of the account namespace's keys (docs/i18n.md). */
export default {
  'account.secure.title': 'Secure your account',
  'account.secure.heading': 'Secure your dauth account?',
  'account.secure.text':
    'If you did not make the change this e-mail told you about, confirm below. dauth will sign you out everywhere (every app, every device), end every session key, undo an added passkey or linked identity, and refuse every sign-in until you set a new password with a code mailed to you.',
  'account.secure.confirm': 'Yes, secure my account',
  'account.secured.title': 'Account secured',
  'account.secured.heading': 'Your account is secured',
  'account.secured.text':
    'Every session, app token and session key of your dauth account has ended, and the reported change was undone. To sign in again, reset your password by e-mail.',
  'account.resetPassword': 'Reset your password',
  'account.linkFailed.title': 'Link not valid',
  'account.linkFailed.heading': 'This link does not work',
  'account.secureLinkFailed.text':
    'The link is unknown, expired or was already used, and nothing was changed. If you think someone else uses your account, reset your password by e-mail: that signs out every session.',
  'account.verify.title': 'Confirm your e-mail',
  'account.verify.heading': 'Confirm your e-mail address?',
  'account.verify.text':
    'Confirm that this address belongs to your dauth account. If you did not create a dauth account, close this window: nothing happens.',
  'account.verify.confirm': 'Yes, this is my address',
  'account.verified.title': 'E-mail verified',
  'account.verified.heading': 'E-mail address verified',
  'account.verified.text': 'Thank you: your dauth e-mail address is verified. You can close this window.',
  'account.verifyFailed.title': 'Verification failed',
  'account.verifyLinkFailed.text':
    'The link is unknown, expired or already used. Sign in and ask for a new verification mail, or enter the code from the newest one.',
} as const;
