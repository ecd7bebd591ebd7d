import type { MessageKey } from '../../i18n/catalogues/index.js';
import type { Translator } from '../../i18n/translator.js';
import { html } from './html.js';
import { renderPage } from './layout.js';

export interface ErrorPageInput {
  translator: Translator;
  nonce: string;
  status: number;
  /** The machine-readable code an API client would get (`redirect_uri_mismatch`, …). */
  code: string;
  /** The API's message (English, for developers): shown only on the technical line. */
  message: string;
}

/**
 * Plain words for the codes a person meets on the pages, in the page's language; any other code gets the
 * general one. The API's own message stays on the technical line for the app's developer.
 */
const EXPLANATIONS = {
  redirect_uri_mismatch: 'errors.explanation.redirectUriMismatch',
  invalid_request: 'errors.explanation.invalidRequest',
  rate_limited: 'errors.explanation.rateLimited',
  invalid_csrf_token: 'errors.explanation.invalidCsrfToken',
  invalid_origin: 'errors.explanation.invalidOrigin',
  account_exists_link_required: 'errors.explanation.accountExistsLinkRequired',
  identity_in_use: 'errors.explanation.identityInUse',
  flow_browser_mismatch: 'errors.explanation.flowBrowserMismatch',
  link_browser_mismatch: 'errors.explanation.linkBrowserMismatch',
  invalid_state: 'errors.explanation.invalidState',
  invalid_link_ticket: 'errors.explanation.invalidLinkTicket',
  provider_unavailable: 'errors.explanation.providerUnavailable',
  upstream_rejected: 'errors.explanation.upstreamRejected',
  unknown_provider: 'errors.explanation.unknownProvider',
  overloaded: 'errors.explanation.unavailable',
  service_starting: 'errors.explanation.unavailable',
  database_unavailable: 'errors.explanation.unavailable',
  chain_unavailable: 'errors.explanation.unavailable',
} as const satisfies Readonly<Record<string, MessageKey>>;

export type ExplainedErrorCode = keyof typeof EXPLANATIONS;

function explanationOf(code: string): MessageKey {
  return Object.hasOwn(EXPLANATIONS, code)
    ? EXPLANATIONS[code as ExplainedErrorCode]
    : 'errors.explanation.other';
}

/**
 * A browser-facing error of the sign-in pages that cannot be sent back to the app (unknown `client_id`,
 * unregistered `redirect_uri`): sending the user on to an unverified address would make dauth an open
 * redirector, so the page explains instead, in the login page's style and language, and offers no link.
 */
export function errorPage(input: ErrorPageInput): string {
  const tr = input.translator;
  const technical = tr.t('errors.technical', {
    status: String(input.status),
    code: input.code,
    message: input.message,
  });
  const body = html`<h1>${tr.t('errors.heading')}</h1>
    <div class="error" id="error-message" role="alert">${tr.t(explanationOf(input.code))}</div>
    <p>${tr.t('errors.advice')}</p>
    <p class="origin" id="error-code">${technical}</p>`;
  // No language switcher: its return address would be the failed request's, whose parameters (an
  // unregistered redirect_uri, a provider's callback code, a mailed link's token) the page must not reflect.
  // The language comes from the flow's ui_locales, the dauth_locale cookie or Accept-Language instead.
  return renderPage({ translator: tr, nonce: input.nonce, title: tr.t('errors.title') }, body);
}
