import type { Translator } from '../../i18n/translator.js';
import { html, type SafeHtml } from './html.js';
import { renderPage } from './layout.js';

/** The console's form that mails a password reset code. */
const RESET_FORM = '/console#/reset';

/**
 * The frame of the account pages a mailed link opens (this file and verifyEmailPages.ts), in the language of
 * the `dauth_locale` cookie or `Accept-Language`. No language switcher: the pages' GET address carries the
 * link's token, which is the whole capability, and the switcher would put it in its `return_to` (into a
 * query string, the history and logs); without the token the address shows nothing. The browser's own
 * language, or the cookie set on any other dauth page, chooses instead.
 */
export function linkPage(translator: Translator, nonce: string, title: string, body: SafeHtml): string {
  return renderPage({ translator, nonce, title, returnTo: undefined }, body);
}

/**
 * The security mail's "this wasn't me" link, step one: a form that confirms. The GET changes nothing (mail
 * scanners open links); the button's POST carries the token, which is the whole capability.
 */
export function secureConfirmPage(tr: Translator, nonce: string, token: string, path: string): string {
  const body = html`<h1>${tr.t('account.secure.heading')}</h1>
    <p>${tr.t('account.secure.text')}</p>
    <form method="post" action="${path}">
      <input type="hidden" name="token" value="${token}" />
      <div class="actions"><button type="submit" id="secure">${tr.t('account.secure.confirm')}</button></div>
    </form>`;
  return linkPage(tr, nonce, tr.t('account.secure.title'), body);
}

/** Step two: what was done, and where to reset the password. */
export function securedPage(tr: Translator, nonce: string): string {
  const body = html`<h1>${tr.t('account.secured.heading')}</h1>
    <p id="status">${tr.t('account.secured.text')}</p>
    <p><a id="reset" href="${RESET_FORM}">${tr.t('account.resetPassword')}</a></p>`;
  return linkPage(tr, nonce, tr.t('account.secured.title'), body);
}

/** An unknown, expired or used link: nothing was changed. */
export function secureLinkFailedPage(tr: Translator, nonce: string): string {
  const body = html`<h1>${tr.t('account.linkFailed.heading')}</h1>
    <p id="status">${tr.t('account.secureLinkFailed.text')}</p>
    <p><a href="${RESET_FORM}">${tr.t('account.resetPassword')}</a></p>`;
  return linkPage(tr, nonce, tr.t('account.linkFailed.title'), body);
}
