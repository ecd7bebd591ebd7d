import { layout } from './authorizePages.js';
import { html } from './html.js';

/**
 * Where the sign-up mail's link lands: a form that confirms. The GET changes nothing (mail scanners and link
 * previews open links, and a verification is a mailbox proof that purges earlier ways in, docs/accounts.md);
 * the button's POST carries the token, which is the whole capability.
 */
export function confirmEmailPage(nonce: string, token: string, path: string): string {
  const body = html`<h1>Confirm your e-mail address?</h1>
    <p>
      Confirm that this address belongs to your dauth account. If you did not create a dauth account, close
      this window: nothing happens.
    </p>
    <form method="post" action="${path}">
      <input type="hidden" name="token" value="${token}" />
      <div class="actions"><button type="submit" id="confirm">Yes, this is my address</button></div>
    </form>`;
  return layout('Confirm your e-mail · dauth', nonce, body);
}

/** After the confirm page's button: the address is verified, or the link is no good. */
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
