import { renderSVG } from 'uqr';
import { displayAppName } from '../../services/oauth/clientService.js';
import { hiddenFields, layout } from './authorizePages.js';
import { html, SafeHtml } from './html.js';

/** What every second-factor form of the pages carries: where it posts and the flow in hidden fields. */
export interface MfaFormInput {
  nonce: string;
  csrfToken: string;
  /** Where the form posts (`/oauth/authorize/mfa`, `/oauth/device/mfa`, …). */
  action: string;
  /** The flow (authorization request, user code), carried through the step. */
  fields: Record<string, string>;
  /** The app signed in to, when there is one. */
  clientName?: string | undefined;
  error?: string | undefined;
}

/**
 * The code field: a label tied to it, one-time-code autofill, a numeric keyboard, and the error (if
 * any) tied to it by `aria-describedby` so a screen reader reads it with the field. Enter submits.
 */
function codeField(input: MfaFormInput, label: string, help: string): SafeHtml {
  const described = input.error ? 'code-help code-error' : 'code-help';
  return html`<label for="code">${label}</label>
    <p id="code-help" class="help">${help}</p>
    ${input.error ? html`<div class="error" id="code-error" role="alert">${input.error}</div>` : ''}
    <input
      id="code"
      name="code"
      type="text"
      required
      maxlength="40"
      autocomplete="one-time-code"
      inputmode="numeric"
      autocapitalize="off"
      spellcheck="false"
      autofocus
      aria-describedby="${described}"
      ${input.error ? new SafeHtml('aria-invalid="true"') : ''}
    />`;
}

const forApp = (clientName: string | undefined) =>
  clientName === undefined
    ? ''
    : html`<p>
        to continue to <span class="app"><bdi>${displayAppName(clientName)}</bdi></span>
      </p>`;

/** The second step of a sign-in: the authenticator's code or a recovery code (docs/mfa.md). */
export function mfaCodePage(input: MfaFormInput): string {
  const body = html`<h1>Enter your code</h1>
    ${forApp(input.clientName)}
    <form method="post" action="${input.action}" autocomplete="off">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      ${codeField(
        input,
        'Authentication code',
        'The 6-digit code of your authenticator app, or one of your recovery codes.',
      )}
      <div class="actions"><button type="submit" id="verify-code">Verify</button></div>
    </form>`;
  return layout('Two-step sign-in · dauth', input.nonce, body);
}

/**
 * Enrolment asked for by the app (`require_mfa`) or the request (`acr_values=mfa`): the `otpauth://` URI
 * as a QR code (an SVG made here, no outside request) and as text, then a code of it to confirm.
 */
export function mfaEnrolPage(
  input: MfaFormInput & {
    otpauthUri: string;
    /** The marker of the secret shown: the confirmation accepts only this one (docs/mfa.md). */
    enrolment: string;
  },
): string {
  const qr = new SafeHtml(renderSVG(input.otpauthUri, { border: 2 }));
  const body = html`<h1>Add a second factor</h1>
    ${forApp(input.clientName)}
    <p>
      This sign-in needs two factors. Scan the code with an authenticator app, then enter the code it shows.
    </p>
    <div class="qr" role="img" aria-label="QR code of the authenticator setup link">${qr}</div>
    <p>Or add this setup link by hand:</p>
    <p class="uri" id="otpauth-uri">${input.otpauthUri}</p>
    <form method="post" action="${input.action}" autocomplete="off">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <input type="hidden" name="enrolment" value="${input.enrolment}" />
      ${codeField(input, 'Code from the app', 'The 6-digit code your authenticator app shows now.')}
      <div class="actions"><button type="submit" id="confirm-enrolment">Turn on</button></div>
    </form>`;
  return layout('Add a second factor · dauth', input.nonce, body);
}

/** The recovery codes, shown once right after the enrolment, then on to the app. */
export function recoveryCodesPage(input: {
  nonce: string;
  codes: string[];
  /** Where Continue goes: the authorization request again. */
  next: string;
}): string {
  const body = html`<h1>Save your recovery codes</h1>
    <p>
      Each one signs you in once if you lose your authenticator. They are shown only now: write them down or
      store them in a password manager.
    </p>
    <ul class="codes" id="recovery-codes">
      ${input.codes.map((code) => html`<li>${code}</li>`)}
    </ul>
    <p class="links"><a href="${input.next}" id="continue">I saved them, continue</a></p>`;
  return layout('Recovery codes · dauth', input.nonce, body);
}
