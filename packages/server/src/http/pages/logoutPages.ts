import { layout } from './authorizePages.js';
import { html } from './html.js';

export interface LogoutConfirmPageInput {
  nonce: string;
  csrfToken: string;
  /** The app asking, when it named itself (`client_id`). */
  clientName: string | undefined;
  /** The request's parameters, carried by the form. */
  fields: Record<string, string>;
}

/** RP-initiated logout without `id_token_hint`: the user confirms, so no other site can sign them out. */
export function logoutConfirmPage(input: LogoutConfirmPageInput): string {
  const body = html`<h1>Sign out of dauth?</h1>
    <p>
      ${input.clientName ? html`<span class="app">${input.clientName}</span> asks to sign you out.` : ''} You
      will have to sign in again the next time an app asks for your dauth account.
    </p>
    <form method="post" action="/oauth/end_session/confirm">
      ${Object.entries(input.fields).map(
        ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
      )}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <div class="actions"><button type="submit" id="sign-out">Sign out</button></div>
    </form>`;
  return layout('Sign out · dauth', input.nonce, body);
}

/** The end of a logout that names no `post_logout_redirect_uri`. */
export function loggedOutPage(nonce: string): string {
  const body = html`<h1>Signed out</h1>
    <p id="status">You are signed out of dauth. You can close this window.</p>`;
  return layout('Signed out · dauth', nonce, body);
}
