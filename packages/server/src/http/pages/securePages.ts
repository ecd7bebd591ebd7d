import { layout } from './authorizePages.js';
import { html } from './html.js';

/** The console's form that mails a password reset code. */
const RESET_FORM = '/console#/reset';

/**
 * The security mail's "this wasn't me" link, step one: a form that confirms. The GET changes nothing (mail
 * scanners open links); the button's POST carries the token, which is the whole capability.
 */
export function secureConfirmPage(nonce: string, token: string, path: string): string {
  const body = html`<h1>Secure your dauth account?</h1>
    <p>
      If you did not make the change this e-mail told you about, confirm below. dauth will sign you out
      everywhere (every app, every device), end every session key, undo an added passkey or linked identity,
      and refuse every sign-in until you set a new password with a code mailed to you.
    </p>
    <form method="post" action="${path}">
      <input type="hidden" name="token" value="${token}" />
      <div class="actions"><button type="submit" id="secure">Yes, secure my account</button></div>
    </form>`;
  return layout('Secure your account · dauth', nonce, body);
}

/** Step two: what was done, and where to reset the password. */
export function securedPage(nonce: string): string {
  const body = html`<h1>Your account is secured</h1>
    <p id="status">
      Every session, app token and session key of your dauth account has ended, and the reported change was
      undone. To sign in again, reset your password by e-mail.
    </p>
    <p><a id="reset" href="${RESET_FORM}">Reset your password</a></p>`;
  return layout('Account secured · dauth', nonce, body);
}

/** An unknown, expired or used link: nothing was changed. */
export function secureLinkFailedPage(nonce: string): string {
  const body = html`<h1>This link does not work</h1>
    <p id="status">
      The link is unknown, expired or was already used, and nothing was changed. If you think someone else
      uses your account, reset your password by e-mail: that signs out every session.
    </p>
    <p><a href="${RESET_FORM}">Reset your password</a></p>`;
  return layout('Link not valid · dauth', nonce, body);
}
