/** English: the source of the errors namespace's keys (docs/i18n.md). */
export default {
  'errors.title': 'Sign-in error',
  'errors.heading': 'This sign-in link does not work',
  'errors.advice':
    'The app that sent you here asked for something dauth cannot do, so you were not sent back to it. Go back to the app and try again; if it keeps happening, tell the app’s developer.',
  'errors.technical': 'Error {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'dauth does not know this app (client_id), or the app did not register the address it asked to return to (redirect_uri).',
  'errors.explanation.invalidRequest': 'The sign-in link is incomplete or malformed.',
  'errors.explanation.rateLimited': 'Too many attempts from this network. Wait a minute, then try again.',
  'errors.explanation.invalidCsrfToken':
    'The form expired or was not sent from the dauth page. Reload the page and try again.',
  'errors.explanation.invalidOrigin':
    'The form was not sent from the dauth page. Open the link from the e-mail again and use its button.',
  'errors.explanation.accountExistsLinkRequired':
    'An account with this e-mail address already exists. Sign in to it with your password or passkey, then link this sign-in method from your account.',
  'errors.explanation.identityInUse':
    'This sign-in method is already linked to another dauth account. Sign in to that account, or unlink it there first.',
  'errors.explanation.flowBrowserMismatch':
    'This sign-in was started in another browser or window. Go back to the app and choose the sign-in method again here.',
  'errors.explanation.linkBrowserMismatch':
    'Linking was asked for in another browser, so nothing was linked. Sign in to your account here and link from its page.',
  'errors.explanation.invalidState':
    'This sign-in has expired or was already used. Go back to the app and start again.',
  'errors.explanation.invalidLinkTicket':
    'This link request has expired or was already used. Start linking again from your account page.',
  'errors.explanation.providerUnavailable':
    'The sign-in provider cannot be reached right now. Try again later, or use another way to sign in.',
  'errors.explanation.upstreamRejected':
    'The sign-in provider’s answer could not be accepted. Go back to the app and try again.',
  'errors.explanation.unknownProvider':
    'This way of signing in is not set up on this dauth. Go back to the app and choose another one.',
  'errors.explanation.unavailable': 'dauth is busy or starting right now. Wait a moment, then try again.',
  'errors.explanation.other': 'dauth could not complete this request. Go back to the app and try again.',
} as const;
