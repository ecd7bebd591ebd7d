/** What a `#federation_error=<code>` (decisions §8) means for the person who just tried to sign in. */
const MESSAGES: Record<string, string> = {
  account_exists_link_required:
    'An account with this e-mail already exists. Sign in with it, then link this provider on your account page.',
  access_denied: 'The sign-in was cancelled at the provider.',
  identity_in_use: 'This identity is already linked to another account.',
  invalid_link_ticket:
    'The link request expired or was already used: link the provider again from your account page.',
  flow_browser_mismatch:
    'The sign-in was finished in another browser than the one that started it: start again here.',
};

export function formatError(code: string): string {
  return MESSAGES[code] ?? `The sign-in with the provider did not complete (${code || 'unknown error'}).`;
}
