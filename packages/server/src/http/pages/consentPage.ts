import type { MessageKey } from '../../i18n/catalogues/index.js';
import type { TagRenderer, Translator } from '../../i18n/translator.js';
import { displayAppName } from '../../services/oauth/clientService.js';
import type { DisclosedClaim } from '../../services/oidc/scopes.js';
import type { WalletPolicyTerm, WalletPolicyWording } from '../../services/sessionKeys/policyWording.js';
import { hiddenFields, POPUP_MARKER } from './authorizePages.js';
import { html, type SafeHtml } from './html.js';
import { renderPage } from './layout.js';

export interface ConsentPageInput {
  translator: Translator;
  nonce: string;
  clientName: string;
  /** The signed-in account, so a shared browser shows whose account would be used. */
  accountEmail: string;
  redirectOrigin: string;
  dapp: boolean;
  /** What else the app will receive (OpenID Connect scopes). */
  sharedClaims?: readonly DisclosedClaim[] | undefined;
  /**
   * The app's wallet policy (docs/session-keys.md), when it has one: what it may do from the wallet without
   * the PIN once the player grants it (the grant itself asks for the PIN, later).
   */
  walletPolicy?: WalletPolicyWording | undefined;
  csrfToken: string;
  /** The authorization request (with the flow's `ui_locales`, when it has one). */
  fields: Record<string, string>;
}

/** An app's name in a sentence: bold, and isolated so right-to-left text cannot reorder the sentence. */
export const appTag: TagRenderer = (inner) => html`<span class="app"><bdi>${inner}</bdi></span>`;

/** The account's address in a sentence, isolated like the app's name. */
export const emailTag: TagRenderer = (inner) => html`<span class="email"><bdi>${inner}</bdi></span>`;

/** The words of each claim a scope releases (services/oidc/scopes.ts names them, the page words them). */
const CLAIM_WORDS: Readonly<Record<DisclosedClaim, MessageKey>> = {
  email: 'consent.item.email',
  name: 'consent.item.name',
  wallet_address: 'consent.item.walletAddress',
};

/** A list of phrases joined as the locale joins them ("a, b and c", "a、b、c", "a وb وc"). */
export function listOf(tr: Translator, items: readonly string[]): string {
  return new Intl.ListFormat(tr.locale, { type: 'conjunction' }).format(items);
}

/**
 * What the app receives, as one list: the user id, the wallet address for a dApp, the claims of the scopes,
 * and tokens to act for the player.
 */
export function receivedItems(tr: Translator, dapp: boolean, claims: readonly DisclosedClaim[]): string {
  const shared = claims.filter((claim) => !(dapp && claim === 'wallet_address'));
  return listOf(tr, [
    tr.t('consent.item.userId'),
    ...(dapp ? [tr.t('consent.item.walletAddress')] : []),
    ...shared.map((claim) => tr.t(CLAIM_WORDS[claim])),
    tr.t('consent.item.tokens'),
  ]);
}

/** A wallet policy's terms in the player's language, one sentence each (the page lists them). */
export function wordPolicy(tr: Translator, policy: WalletPolicyWording): string[] {
  return policy.terms.map((term) => policyTerm(tr, term, policy.until));
}

/** One term of a wallet policy in the player's language; amounts and the end date formatted by the locale. */
function policyTerm(tr: Translator, term: WalletPolicyTerm, until: Date): string {
  switch (term.kind) {
    case 'token_per_day':
      return tr.t('consent.policy.tokenPerDay', { amount: term.amount, symbol: term.symbol, until });
    case 'token_per_day_base_units':
      return tr.t('consent.policy.tokenPerDayBaseUnits', { amount: term.amount, token: term.token, until });
    case 'ether_per_day':
      return term.perCall === undefined
        ? tr.t('consent.policy.etherPerDay', { perDay: term.perDay, until })
        : tr.t('consent.policy.etherPerDayPerCall', { perDay: term.perDay, perCall: term.perCall, until });
    case 'calls': {
      const functions = term.contracts.map((c) =>
        tr.t('consent.policy.contractFunctions', { count: c.functions, contract: c.contract }),
      );
      return tr.t('consent.policy.calls', { functions: listOf(tr, functions), until });
    }
    case 'within_policy':
      return tr.t('consent.policy.withinPolicy', { until });
  }
}

/**
 * The app's wallet policy in words (docs/session-keys.md) on a consent page; nothing when it has none. The grant
 * itself asks for the PIN later, in the app.
 */
export function walletPolicyBlock(
  tr: Translator,
  clientName: string,
  policy: WalletPolicyWording | undefined,
): SafeHtml | '' {
  if (!policy || policy.terms.length === 0) return '';
  return html`<div class="wallet-policy" id="wallet-policy">
    <p>${tr.rich('consent.policy.intro', { name: displayAppName(clientName) }, { app: appTag })}</p>
    <ul>
      ${wordPolicy(tr, policy).map((sentence) => html`<li>${sentence}</li>`)}
      <li>${tr.t('consent.policy.revocable')}</li>
    </ul>
  </div>`;
}

/**
 * The consent page of the authorize flow, in the flow's language (`ui_locales` in its fields, else the
 * `dauth_locale` cookie, else `Accept-Language`). The language switcher returns to the authorize request.
 */
export function consentPage(input: ConsentPageInput): string {
  const tr = input.translator;
  const app = displayAppName(input.clientName);
  const items = receivedItems(tr, input.dapp, input.sharedClaims ?? []);
  const body = html`<h1>${tr.rich('consent.heading', { name: app }, { app: appTag })}</h1>
    <p>${tr.rich('consent.receives', { name: app, items }, { app: appTag })}</p>
    ${walletPolicyBlock(tr, input.clientName, input.walletPolicy)}
    <p>
      ${tr.rich(
        'consent.redirect',
        { address: input.redirectOrigin },
        { origin: (inner) => html`<span class="origin">${inner}</span>` },
      )}
    </p>
    <form method="post" action="/oauth/authorize/consent">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <div class="actions">
        <button type="submit" name="decision" value="deny" class="secondary" id="deny">
          ${tr.t('consent.deny')}
        </button>
        <button type="submit" name="decision" value="allow" id="allow">${tr.t('consent.allow')}</button>
      </div>
    </form>
    <form method="post" action="/oauth/authorize/logout" class="account">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <p>
        ${tr.rich('consent.signedInAs', { account: input.accountEmail }, { email: emailTag })}
        <button type="submit" class="link" id="sign-out">${tr.t('consent.useAnotherAccount')}</button>
      </p>
    </form>`;
  return renderPage(
    {
      translator: tr,
      nonce: input.nonce,
      title: tr.t('consent.title'),
      // The page's GET address: the authorize request, which shows this page again while the session lasts.
      returnTo: `/oauth/authorize?${new URLSearchParams(input.fields).toString()}`,
      script: POPUP_MARKER,
    },
    body,
  );
}
