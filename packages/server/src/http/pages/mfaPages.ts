import { renderSVG } from 'uqr';
import type { Translator } from '../../i18n/translator.js';
import { hiddenFields, toContinueTo } from './authorizePages.js';
import { html, SafeHtml } from './html.js';
import { renderPage } from './layout.js';

/** How many digits an authenticator's code has (RFC 6238 as dauth uses it, docs/mfa.md). */
const CODE_DIGITS = 6;

/** What every second-factor form of the pages carries: where it posts and the flow in hidden fields. */
export interface MfaFormInput {
  /** The page's language. */
  translator: Translator;
  nonce: string;
  csrfToken: string;
  /** Where the form posts (`/oauth/authorize/mfa`, `/oauth/device/mfa`, …). */
  action: string;
  /** The flow (authorization request, user code), carried through the step. */
  fields: Record<string, string>;
  /** The app signed in to, when there is one. */
  clientName?: string | undefined;
  error?: string | undefined;
  /** This page's GET address, for the language switcher (only where a GET shows this step again). */
  returnTo?: string | undefined;
}

const translatorOf = (input: { translator: Translator }) => input.translator;

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

const forApp = (tr: Translator, clientName: string | undefined) =>
  clientName === undefined ? '' : toContinueTo(tr, clientName);

/** The second step of a sign-in: the authenticator's code or a recovery code (docs/mfa.md). */
export function mfaCodePage(input: MfaFormInput): string {
  const tr = translatorOf(input);
  const body = html`<h1>${tr.t('signin.mfa.heading')}</h1>
    ${forApp(tr, input.clientName)}
    <form method="post" action="${input.action}" autocomplete="off">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      ${codeField(input, tr.t('signin.mfa.codeLabel'), tr.t('signin.mfa.codeHelp', { digits: CODE_DIGITS }))}
      <div class="actions"><button type="submit" id="verify-code">${tr.t('signin.mfa.submit')}</button></div>
    </form>`;
  return renderPage(
    { translator: tr, nonce: input.nonce, title: tr.t('signin.mfa.title'), returnTo: input.returnTo },
    body,
  );
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
  const tr = translatorOf(input);
  const qr = new SafeHtml(renderSVG(input.otpauthUri, { border: 2 }));
  const body = html`<h1>${tr.t('signin.enrol.heading')}</h1>
    ${forApp(tr, input.clientName)}
    <p>${tr.t('signin.enrol.intro')}</p>
    <div class="qr" role="img" aria-label="${tr.t('signin.enrol.qr')}">${qr}</div>
    <p>${tr.t('signin.enrol.byHand')}</p>
    <p class="uri" id="otpauth-uri">${input.otpauthUri}</p>
    <form method="post" action="${input.action}" autocomplete="off">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <input type="hidden" name="enrolment" value="${input.enrolment}" />
      ${codeField(
        input,
        tr.t('signin.enrol.codeLabel'),
        tr.t('signin.enrol.codeHelp', { digits: CODE_DIGITS }),
      )}
      <div class="actions">
        <button type="submit" id="confirm-enrolment">${tr.t('signin.enrol.submit')}</button>
      </div>
    </form>`;
  return renderPage(
    { translator: tr, nonce: input.nonce, title: tr.t('signin.enrol.heading'), returnTo: input.returnTo },
    body,
  );
}

/** The recovery codes, shown once right after the enrolment, then on to the app (no switcher: shown once). */
export function recoveryCodesPage(input: {
  translator: Translator;
  nonce: string;
  codes: string[];
  /** Where Continue goes: the authorization request again. */
  next: string;
}): string {
  const tr = input.translator;
  const body = html`<h1>${tr.t('signin.recovery.heading')}</h1>
    <p>${tr.t('signin.recovery.intro')}</p>
    <ul class="codes" id="recovery-codes">
      ${input.codes.map((code) => html`<li>${code}</li>`)}
    </ul>
    <p class="links"><a href="${input.next}" id="continue">${tr.t('signin.recovery.continue')}</a></p>`;
  return renderPage({ translator: tr, nonce: input.nonce, title: tr.t('signin.recovery.title') }, body);
}
