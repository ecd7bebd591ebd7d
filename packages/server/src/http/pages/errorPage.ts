import { layout } from './authorizePages.js';
import { html } from './html.js';

export interface ErrorPageInput {
  nonce: string;
  status: number;
  /** The machine-readable code an API client would get (`redirect_uri_mismatch`, …). */
  code: string;
  message: string;
}

/** Plain words for the codes a person meets on these pages; the others show the API's own message. */
const EXPLANATIONS: Record<string, string> = {
  redirect_uri_mismatch:
    'dauth does not know this app (client_id), or the app did not register the address it asked to return to (redirect_uri).',
  invalid_request: 'The sign-in link is incomplete or malformed.',
  rate_limited: 'Too many attempts from this network. Wait a minute, then try again.',
  invalid_csrf_token: 'The form expired or was not sent from the dauth page. Reload the page and try again.',
  account_exists_link_required:
    'An account with this e-mail address already exists. Sign in to it with your password or passkey, then link this sign-in method from your account.',
  flow_browser_mismatch:
    'This sign-in was started in another browser or window. Go back to the app and choose the sign-in method again here.',
  invalid_state: 'This sign-in has expired or was already used. Go back to the app and start again.',
  provider_unavailable:
    'The sign-in provider cannot be reached right now. Try again later, or use another way to sign in.',
  upstream_rejected: 'The sign-in provider’s answer could not be accepted. Go back to the app and try again.',
};

/**
 * A browser-facing error of the sign-in pages that cannot be sent back to the app (unknown `client_id`,
 * unregistered `redirect_uri`): sending the user on to an unverified address would make dauth an open
 * redirector, so the page explains instead, in the login page's style, and offers no link.
 */
export function errorPage(input: ErrorPageInput): string {
  const body = html`<h1>This sign-in link does not work</h1>
    <div class="error" id="error-message" role="alert">${EXPLANATIONS[input.code] ?? input.message}</div>
    <p>
      The app that sent you here asked for something dauth cannot do, so you were not sent back to it. Go back
      to the app and try again; if it keeps happening, tell the app's developer.
    </p>
    <p class="origin" id="error-code">Error ${input.status} ${input.code}: ${input.message}</p>`;
  return layout('Sign-in error · dauth', input.nonce, body);
}
