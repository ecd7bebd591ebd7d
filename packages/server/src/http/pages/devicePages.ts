import { displayAppName } from '../../services/oauth/clientService.js';
import { ALTCHA_WIDGET, challengeField } from './altchaWidget.js';
import { html } from './html.js';
import { credentialFields, emailCodeField, layout, walletPolicyBlock } from './authorizePages.js';

/** Where the verification page's forms post (`routes/oauth/device/index.ts`). */
export const DEVICE_PAGE_PATH = '/oauth/device';

interface DevicePageBase {
  nonce: string;
  csrfToken: string;
  /** The user code as typed or carried from `verification_uri_complete`. */
  userCode?: string | undefined;
  error?: string | undefined;
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
  const body = html`<h1>Sign in to dauth</h1>
    <p>to connect a device (a console, TV or launcher) to your account</p>
    ${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
    <form method="post" action="${DEVICE_PAGE_PATH}/login" autocomplete="on">
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <input type="hidden" name="user_code" value="${input.userCode ?? ''}" />
      ${input.emailCode ? emailCodeField() : ''}
      ${credentialFields(input.email, input.challenge ? challengeField(input.nonce) : '')}
    </form>`;
  return layout('Connect a device · dauth', input.nonce, body, input.challenge ? ALTCHA_WIDGET : undefined);
}

/** The code the device shows, typed in (any case, with or without the dash). */
export function deviceCodePage(input: DevicePageBase): string {
  const body = html`<h1>Connect a device</h1>
    <p>Enter the code your console, TV or launcher shows.</p>
    ${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
    <form method="get" action="${DEVICE_PAGE_PATH}">
      <label for="user_code">Code</label>
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
        value="${input.userCode ?? ''}"
      />
      <div class="actions"><button type="submit" id="continue">Continue</button></div>
    </form>`;
  return layout('Connect a device · dauth', input.nonce, body);
}

export interface DeviceConfirmPageInput extends DevicePageBase {
  userCode: string;
  clientName: string;
  accountEmail: string;
  dapp: boolean;
  /** What else the app will receive (OpenID Connect scopes), e.g. "your e-mail address". */
  sharedClaims: string[];
  /** The app's wallet policy in words, when it has one (docs/session-keys.md). */
  walletPolicy?: string[] | undefined;
}

/**
 * Confirm and consent in one step: the code (so the player checks it is the one on their screen, RFC
 * 8628 §5.4), the app's name, what it receives, and whose account it is.
 */
export function deviceConfirmPage(input: DeviceConfirmPageInput): string {
  const app = displayAppName(input.clientName);
  const shared = input.sharedClaims.filter((c) => !(input.dapp && c === 'your wallet address'));
  const body = html`<h1>
      Connect <span class="app"><bdi>${app}</bdi></span
      >?
    </h1>
    <p>Check that your device shows the code <strong id="shown-code">${input.userCode}</strong>.</p>
    <p>
      <span class="app"><bdi>${app}</bdi></span> on that device will receive your user
      id${input.dapp ? ' and your wallet address' : ''}${shared.map((c) => `, ${c}`).join('')} and tokens to
      act for you with this app.
    </p>
    ${walletPolicyBlock(input.clientName, input.walletPolicy)}
    <form method="post" action="${DEVICE_PAGE_PATH}/decision">
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <input type="hidden" name="user_code" value="${input.userCode}" />
      <div class="actions">
        <button type="submit" name="decision" value="deny" class="secondary" id="deny">Deny</button>
        <button type="submit" name="decision" value="allow" id="allow">Allow</button>
      </div>
    </form>
    <p class="account">Signed in as <span class="email">${input.accountEmail}</span>.</p>`;
  return layout('Connect a device · dauth', input.nonce, body);
}

/** The end: the device picks its tokens up (or its refusal) on its next poll. */
export function deviceDonePage(input: { nonce: string; clientName: string; approved: boolean }): string {
  const app = displayAppName(input.clientName);
  const body = input.approved
    ? html`<h1 id="done">Device connected</h1>
        <p>
          <span class="app"><bdi>${app}</bdi></span> is signing in on your device. You can close this page.
        </p>`
    : html`<h1 id="done">Device not connected</h1>
        <p>
          You denied <span class="app"><bdi>${app}</bdi></span
          >. Nothing was shared. You can close this page.
        </p>`;
  return layout('Connect a device · dauth', input.nonce, body);
}
