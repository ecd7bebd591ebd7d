import type { MessageKey } from '../../i18n/catalogues/index.js';
import type { Translator } from '../../i18n/translator.js';
import { displayAppName } from '../../services/oauth/clientService.js';
import type { DisclosedClaim } from '../../services/oidc/scopes.js';
import type { WalletPolicyWording } from '../../services/sessionKeys/policyWording.js';
import { ALTCHA_WIDGET, challengeField } from './altchaWidget.js';
import { credentialFields, emailCodeField } from './authorizePages.js';
import { appTag, emailTag, receivedItems, walletPolicyBlock } from './consentPage.js';
import { html, SafeHtml } from './html.js';
import { renderPage } from './layout.js';

/** Where the verification page's forms post (`routes/oauth/device/index.ts`). */
export const DEVICE_PAGE_PATH = '/oauth/device';

/**
 * The verification page's GET address: the user code (when there is one) and the flow's `ui_locales` (when
 * `GET /device` brought one), so a redirect back to the page or the language switcher keeps both.
 */
export function devicePageAddress(userCode?: string | undefined, uiLocales?: string | undefined): string {
  const query = new URLSearchParams();
  if (userCode) query.set('user_code', userCode);
  if (uiLocales) query.set('ui_locales', uiLocales);
  const search = query.toString();
  return search ? `${DEVICE_PAGE_PATH}?${search}` : DEVICE_PAGE_PATH;
}

interface DevicePageBase {
  translator: Translator;
  nonce: string;
  csrfToken: string;
  /** The user code as typed or carried from `verification_uri_complete`. */
  userCode?: string | undefined;
  /** The flow's `ui_locales` (from `GET /device`), kept in every form of the page. */
  uiLocales?: string | undefined;
  error?: MessageKey | undefined;
}

/** The flow's language in a hidden field of each form, when it has one (decisions §9). */
function localeField(uiLocales: string | undefined): SafeHtml | '' {
  return uiLocales ? html`<input type="hidden" name="ui_locales" value="${uiLocales}" />` : '';
}

/** The page's error, read by screen readers as it appears and with the control it is about. */
function errorAlert(tr: Translator, id: string, error: MessageKey | undefined): SafeHtml | '' {
  return error ? html`<div class="error" id="${id}" role="alert">${tr.t(error)}</div>` : '';
}

function frame(input: DevicePageBase, returnTo: string | undefined, script?: string) {
  return {
    translator: input.translator,
    nonce: input.nonce,
    title: input.translator.t('device.title'),
    returnTo,
    script,
  };
}

/** Sign-in before a device is connected: the login page's form, posting to the device page. */
export function deviceLoginPage(
  input: DevicePageBase & {
    email?: string | undefined;
    /** The form carries a proof of work (`BOT_CHALLENGE` with `login`, or the account is under guessing). */
    challenge?: boolean | undefined;
    /** The account is under guessing: a field for the code mailed to its owner. */
    emailCode?: boolean | undefined;
  },
): string {
  const tr = input.translator;
  // The error is about the whole form (which of e-mail and password is wrong is never said).
  const body = html`<h1>${tr.t('device.login.heading')}</h1>
    <p>${tr.t('device.login.intro')}</p>
    ${errorAlert(tr, 'login-error', input.error)}
    <form
      method="post"
      action="${DEVICE_PAGE_PATH}/login"
      autocomplete="on"
      ${input.error ? new SafeHtml('aria-describedby="login-error"') : ''}
    >
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <input type="hidden" name="user_code" value="${input.userCode ?? ''}" />
      ${localeField(input.uiLocales)} ${input.emailCode ? emailCodeField({ translator: tr }) : ''}
      ${credentialFields(input.email, input.challenge ? challengeField(input.nonce, undefined, tr) : '', {
        translator: tr,
      })}
    </form>`;
  return renderPage(
    frame(
      input,
      devicePageAddress(input.userCode, input.uiLocales),
      input.challenge ? ALTCHA_WIDGET : undefined,
    ),
    body,
  );
}

/** The code the device shows, typed in (any case, with or without the dash). */
export function deviceCodePage(input: DevicePageBase): string {
  const tr = input.translator;
  const body = html`<h1>${tr.t('device.code.heading')}</h1>
    <p id="user-code-help">${tr.t('device.code.intro')}</p>
    ${errorAlert(tr, 'user-code-error', input.error)}
    <form method="get" action="${DEVICE_PAGE_PATH}">
      ${localeField(input.uiLocales)}
      <label for="user_code">${tr.t('device.code.label')}</label>
      <input
        id="user_code"
        name="user_code"
        type="text"
        required
        maxlength="32"
        autocomplete="off"
        autocapitalize="characters"
        spellcheck="false"
        placeholder="XXXX-XXXX"
        dir="ltr"
        aria-describedby="${input.error ? 'user-code-help user-code-error' : 'user-code-help'}"
        ${input.error ? new SafeHtml('aria-invalid="true"') : ''}
        value="${input.userCode ?? ''}"
      />
      <div class="actions"><button type="submit" id="continue">${tr.t('device.code.continue')}</button></div>
    </form>`;
  // Back to the empty form: switching the language must not submit a wrong code again (it would count).
  return renderPage(frame(input, devicePageAddress(undefined, input.uiLocales)), body);
}

export interface DeviceConfirmPageInput extends DevicePageBase {
  userCode: string;
  clientName: string;
  accountEmail: string;
  dapp: boolean;
  /** What else the app will receive (OpenID Connect scopes). */
  sharedClaims: readonly DisclosedClaim[];
  /** The app's wallet policy, when it has one (docs/session-keys.md). */
  walletPolicy?: WalletPolicyWording | undefined;
}

/**
 * Confirm and consent in one step: the code (so the player checks it is the one on their screen, RFC
 * 8628 §5.4), the app's name, what it receives, and whose account it is.
 */
export function deviceConfirmPage(input: DeviceConfirmPageInput): string {
  const tr = input.translator;
  const app = displayAppName(input.clientName);
  const items = receivedItems(tr, input.dapp, input.sharedClaims);
  const body = html`<h1>${tr.rich('device.confirm.heading', { name: app }, { app: appTag })}</h1>
    <p>
      ${tr.rich(
        'device.confirm.checkCode',
        { code: input.userCode },
        { shown: (inner) => html`<strong id="shown-code"><bdi>${inner}</bdi></strong>` },
      )}
    </p>
    <p>${tr.rich('device.confirm.receives', { name: app, items }, { app: appTag })}</p>
    ${walletPolicyBlock(tr, input.clientName, input.walletPolicy)}
    <form method="post" action="${DEVICE_PAGE_PATH}/decision">
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <input type="hidden" name="user_code" value="${input.userCode}" />
      ${localeField(input.uiLocales)}
      <div class="actions">
        <button type="submit" name="decision" value="deny" class="secondary" id="deny">
          ${tr.t('device.confirm.deny')}
        </button>
        <button type="submit" name="decision" value="allow" id="allow">
          ${tr.t('device.confirm.allow')}
        </button>
      </div>
    </form>
    <p class="account">
      ${tr.rich('device.confirm.signedInAs', { account: input.accountEmail }, { email: emailTag })}
    </p>`;
  return renderPage(frame(input, devicePageAddress(input.userCode, input.uiLocales)), body);
}

/** The end: the device picks its tokens up (or its refusal) on its next poll. */
export function deviceDonePage(input: {
  translator: Translator;
  nonce: string;
  clientName: string;
  approved: boolean;
}): string {
  const tr = input.translator;
  const app = displayAppName(input.clientName);
  const body = input.approved
    ? html`<h1 id="done">${tr.t('device.done.connected')}</h1>
        <p>${tr.rich('device.done.connectedText', { name: app }, { app: appTag })}</p>`
    : html`<h1 id="done">${tr.t('device.done.denied')}</h1>
        <p>${tr.rich('device.done.deniedText', { name: app }, { app: appTag })}</p>`;
  // No switcher: the page answers the decision's POST, and its GET address would show the code as used.
  return renderPage(
    { translator: tr, nonce: input.nonce, title: tr.t('device.title'), returnTo: undefined },
    body,
  );
}
