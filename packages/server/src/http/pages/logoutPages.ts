import type { Translator } from '../../i18n/translator.js';
import { shownAppName } from './authorizePages.js';
import { html } from './html.js';
import { renderPage } from './layout.js';

export interface LogoutConfirmPageInput {
  translator: Translator;
  nonce: string;
  csrfToken: string;
  /** The app asking, when it named itself (`client_id`). */
  clientName: string | undefined;
  /** The request's parameters, carried by the form. */
  fields: Record<string, string>;
  /** This page's GET address, for the language switcher. */
  returnTo?: string | undefined;
}

/** RP-initiated logout without `id_token_hint`: the user confirms, so no other site can sign them out. */
export function logoutConfirmPage(input: LogoutConfirmPageInput): string {
  const tr = input.translator;
  const body = html`<h1>${tr.t('signin.logout.heading')}</h1>
    ${
      input.clientName
        ? html`<p>
            ${tr.rich(
              'signin.logout.appAsks',
              { name: shownAppName(tr, input.clientName) },
              { app: (inner) => html`<span class="app"><bdi>${inner}</bdi></span>` },
            )}
          </p>`
        : ''
    }
    <p>${tr.t('signin.logout.explain')}</p>
    <form method="post" action="/oauth/end_session/confirm">
      ${Object.entries(input.fields).map(
        ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
      )}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <div class="actions"><button type="submit" id="sign-out">${tr.t('signin.logout.submit')}</button></div>
    </form>`;
  return renderPage(
    { translator: tr, nonce: input.nonce, title: tr.t('signin.logout.title'), returnTo: input.returnTo },
    body,
  );
}

/** The end of a logout that names no `post_logout_redirect_uri`. */
export function loggedOutPage(translator: Translator, nonce: string): string {
  const tr = translator;
  const body = html`<h1>${tr.t('signin.loggedOut.title')}</h1>
    <p id="status">${tr.t('signin.loggedOut.body')}</p>`;
  return renderPage({ translator: tr, nonce, title: tr.t('signin.loggedOut.title') }, body);
}
