import { layout } from './authorizePages.js';
import { html } from './html.js';

/** Where the sign-up mail's link lands: the address is verified, or the link is no good. */
export function emailVerifiedPage(nonce: string, verified: boolean): string {
  const body = verified
    ? html`<h1>E-mail address verified</h1>
        <p id="status">Thank you: your dauth e-mail address is verified. You can close this window.</p>`
    : html`<h1>This link does not work</h1>
        <p id="status">
          The link is unknown, expired or already used. Sign in and ask for a new verification mail, or enter
          the code from the newest one.
        </p>`;
  return layout(verified ? 'E-mail verified · dauth' : 'Verification failed · dauth', nonce, body);
}
