import type { Translator } from '../../i18n/translator.js';
import { html } from './html.js';
import { linkPage } from './securePages.js';

/**
 * Where the sign-up mail's link lands: a form that confirms. The GET changes nothing (mail scanners and link
 * previews open links, and a verification is a mailbox proof that purges earlier ways in, docs/accounts.md);
 * the button's POST carries the token, which is the whole capability (so no language switcher: `linkPage`).
 */
export function confirmEmailPage(tr: Translator, nonce: string, token: string, path: string): string {
  const body = html`<h1>${tr.t('account.verify.heading')}</h1>
    <p>${tr.t('account.verify.text')}</p>
    <form method="post" action="${path}">
      <input type="hidden" name="token" value="${token}" />
      <div class="actions"><button type="submit" id="confirm">${tr.t('account.verify.confirm')}</button></div>
    </form>`;
  return linkPage(tr, nonce, tr.t('account.verify.title'), body);
}

/** After the confirm page's button: the address is verified, or the link is no good. */
export function emailVerifiedPage(tr: Translator, nonce: string, verified: boolean): string {
  const body = verified
    ? html`<h1>${tr.t('account.verified.heading')}</h1>
        <p id="status">${tr.t('account.verified.text')}</p>`
    : html`<h1>${tr.t('account.linkFailed.heading')}</h1>
        <p id="status">${tr.t('account.verifyLinkFailed.text')}</p>`;
  return linkPage(
    tr,
    nonce,
    verified ? tr.t('account.verified.title') : tr.t('account.verifyFailed.title'),
    body,
  );
}
