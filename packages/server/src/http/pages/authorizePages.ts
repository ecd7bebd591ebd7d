import type { Translator } from '../../i18n/translator.js';
import { displayAppName } from '../../services/oauth/clientService.js';
import { ALTCHA_WIDGET, challengeField } from './altchaWidget.js';
import { html, SafeHtml, scriptJson } from './html.js';
import { renderPage } from './layout.js';

/** The two values of `from` in the browser messages: one per client generation (spec, Events 2). */
export const POPUP_MESSAGE_SOURCES = ['dauth', 'dauth-v2'] as const;

/** Marks forms as popup flows when the page has an opener, so the service answers with messages. */
export const POPUP_MARKER = `if (window.opener) {
  for (const input of document.querySelectorAll('input[name="display"]')) input.value = 'popup';
}`;

export function hiddenFields(fields: Record<string, string>): SafeHtml {
  const display = fields.display ?? '';
  const rest = Object.entries(fields).filter(([name]) => name !== 'display');
  return html`${rest.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <input type="hidden" name="display" value="${display}" />`;
}

/** The id of a page's error box: the field it concerns names it in `aria-describedby`. */
export const FORM_ERROR_ID = 'form-error';

/** The app's name as the pages show it: invisible and control characters gone, a word when none is left. */
export function shownAppName(tr: Translator, clientName: string): string {
  const shown = displayAppName(clientName);
  return shown === displayAppName('') ? tr.t('signin.unnamedApp') : shown;
}

/** "to continue to <app>": the app's name in the translator's sentence (its word order, its markup). */
export function toContinueTo(tr: Translator, clientName: string): SafeHtml {
  return html`<p>
    ${tr.rich(
      'signin.toContinueTo',
      { name: shownAppName(tr, clientName) },
      { app: (inner) => html`<span class="app"><bdi>${inner}</bdi></span>` },
    )}
  </p>`;
}

/** The page's error (role=alert, `FORM_ERROR_ID`) and notice (role=status), when it has them. */
function messages(error: string | undefined, notice: string | undefined): SafeHtml {
  return html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
  ${error ? html`<div class="error" id="${FORM_ERROR_ID}" role="alert">${error}</div>` : ''}`;
}

/** A field the page's error concerns: marked invalid, the error read with it (`aria-describedby`). */
function invalidAttributes(invalid: boolean): SafeHtml | '' {
  return invalid ? new SafeHtml(`aria-invalid="true" aria-describedby="${FORM_ERROR_ID}"`) : '';
}

export interface LoginPageInput {
  translator: Translator;
  nonce: string;
  clientName: string;
  csrfToken: string;
  fields: Record<string, string>;
  /** This page's GET address, for the language switcher. */
  returnTo?: string | undefined;
  email?: string | undefined;
  error?: string | undefined;
  /** The field the error concerns (`password`, `email_code`), tied to it by `aria-describedby`. */
  errorField?: string | undefined;
  notice?: string | undefined;
  /** Upstream identity providers: a "Continue with …" link each (docs/federation.md). */
  providers?: readonly { id: string; name: string }[] | undefined;
  /** The form carries a proof of work the browser solves on submit (`BOT_CHALLENGE`, or guessing). */
  challenge?: boolean | undefined;
  /** The account is under guessing: a field for the code mailed to its owner. */
  emailCode?: boolean | undefined;
}

/** One input of an account form (sign-up, password reset) of the login page. */
export interface FormInput {
  id: string;
  /** The label, in the page's language. */
  label: string;
  type: 'email' | 'password' | 'text';
  autocomplete: string;
  value?: string | undefined;
  maxlength: number;
}

export interface AccountFormPageInput {
  translator: Translator;
  nonce: string;
  /** The page's title and heading, in its language. */
  title: string;
  clientName: string;
  /** Where the form posts: a path under `/oauth/authorize/`. */
  action: string;
  csrfToken: string;
  /** The authorization request, carried through so the user ends at the app. */
  fields: Record<string, string>;
  inputs: FormInput[];
  /** The submit button: its id and its text in the page's language. */
  submit: { id: string; label: string };
  /** This page's GET address, for the language switcher (none for a page only a POST shows). */
  returnTo?: string | undefined;
  error?: string | undefined;
  /** The input (its id) the error concerns, tied to it by `aria-describedby`. */
  errorField?: string | undefined;
  notice?: string | undefined;
  /** The form carries a proof of work the browser solves on submit (`BOT_CHALLENGE`). */
  challenge?: boolean | undefined;
}

/** The sign-in page's address for an authorization request: where "Back to sign-in" and the switcher go. */
export function authorizeAddress(fields: Record<string, string>): string {
  return `/oauth/authorize?${new URLSearchParams(fields).toString()}`;
}

/**
 * Sign-up and password reset beside the sign-in form: the same CSP, CSRF token and hidden authorization
 * fields, so the user returns to the app's authorize request afterwards.
 */
export function accountFormPage(input: AccountFormPageInput): string {
  const tr = input.translator;
  const body = html`<h1>${input.title}</h1>
    ${toContinueTo(tr, input.clientName)} ${messages(input.error, input.notice)}
    <form method="post" action="${input.action}" autocomplete="on">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      ${input.inputs.map(
        (i) =>
          html`<label for="${i.id}">${i.label}</label>
            <input
              id="${i.id}"
              name="${i.id}"
              type="${i.type}"
              required
              maxlength="${String(i.maxlength)}"
              autocomplete="${i.autocomplete}"
              value="${i.value ?? ''}"
              ${invalidAttributes(input.error !== undefined && input.errorField === i.id)}
            />`,
      )}
      ${input.challenge ? challengeField(input.nonce, input.fields.client_id, tr) : ''}
      <div class="actions"><button type="submit" id="${input.submit.id}">${input.submit.label}</button></div>
    </form>
    <p class="links">
      <a href="${authorizeAddress(input.fields)}" id="back-to-sign-in">${tr.t('signin.backToSignIn')}</a>
    </p>`;
  return renderPage(
    {
      translator: tr,
      nonce: input.nonce,
      title: input.title,
      returnTo: input.returnTo,
      script: input.challenge ? `${POPUP_MARKER}\n${ALTCHA_WIDGET}` : POPUP_MARKER,
    },
    body,
  );
}

export function loginPage(input: LoginPageInput): string {
  const tr = input.translator;
  const query = new URLSearchParams(input.fields).toString();
  const invalid = input.error !== undefined ? input.errorField : undefined;
  const body = html`<h1>${tr.t('signin.heading')}</h1>
    ${toContinueTo(tr, input.clientName)} ${messages(input.error, input.notice)}
    <form method="post" action="/oauth/authorize/login" autocomplete="on">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      ${input.emailCode ? emailCodeField({ translator: tr, invalid: invalid === 'email_code' }) : ''}
      ${credentialFields(
        input.email,
        input.challenge ? challengeField(input.nonce, input.fields.client_id, tr) : '',
        { translator: tr, invalid: invalid === 'email' || invalid === 'password' ? invalid : undefined },
      )}
    </form>
    <form method="post" action="/oauth/authorize/passkey" id="passkey-form">
      ${hiddenFields(input.fields)}
      <input type="hidden" name="csrf_token" value="${input.csrfToken}" />
      <input type="hidden" name="credential" id="passkey-credential" value="" />
      <div class="actions">
        <button type="button" class="secondary" id="passkey-sign-in" hidden>
          ${tr.t('signin.usePasskey')}
        </button>
      </div>
    </form>
    ${federationLinks(tr, input.providers ?? [], input.fields)}
    <p class="links">
      <a href="/oauth/authorize/signup?${query}" id="signup-link">${tr.t('signin.createAccount')}</a>
      <a href="/oauth/authorize/reset?${query}" id="reset-link">${tr.t('signin.forgotPassword')}</a>
    </p>`;
  // Each script is an arrow call: the semicolon keeps the next one from calling its result.
  const script = `${POPUP_MARKER}\n${PASSKEY_SIGN_IN}${input.challenge ? `;\n${ALTCHA_WIDGET}` : ''}`;
  return renderPage(
    { translator: tr, nonce: input.nonce, title: tr.t('signin.title'), returnTo: input.returnTo, script },
    body,
  );
}

/** The code mailed to the owner of an account under guessing (docs/security.md). */
export function emailCodeField(options: { translator: Translator; invalid?: boolean }): SafeHtml {
  const tr = options.translator;
  return html`<label for="email_code">${tr.t('signin.emailCode')}</label>
    <input
      id="email_code"
      name="email_code"
      type="text"
      inputmode="numeric"
      maxlength="20"
      autocomplete="one-time-code"
      ${invalidAttributes(options.invalid === true)}
    />`;
}

/**
 * "Continue with …": plain links (top-level GET navigations) to the flow's start, which returns to this
 * authorize request (`return_to`) once the provider has answered. A request with `max_age` or
 * `prompt=login` asks the provider to sign the person in again (`reauthenticate`): the session keeps the
 * upstream's auth_time, so an answer from the provider's own session would bring the page straight back.
 */
function federationLinks(
  tr: Translator,
  providers: readonly { id: string; name: string }[],
  fields: Record<string, string>,
) {
  if (providers.length === 0) return '';
  const returnTo = authorizeAddress(fields);
  const fresh = fields.max_age !== undefined || (fields.prompt ?? '').split(' ').includes('login');
  const query = new URLSearchParams({ return_to: returnTo, ...(fresh ? { reauthenticate: 'true' } : {}) });
  return html`<div class="federation">
    ${providers.map(
      (p) =>
        html`<a
          class="provider"
          id="federation-${p.id}"
          href="/v1/federation/${encodeURIComponent(p.id)}/start?${query.toString()}"
          >${tr.t('signin.continueWith', { provider: p.name })}</a
        >`,
    )}
  </div>`;
}

/**
 * The passkey button (shown only where the browser can do WebAuthn): a discoverable-credential
 * ceremony with a challenge from the API, its response posted with the page's own form (CSRF token and
 * the authorization request included), so the sign-in ends like the password form's.
 */
const PASSKEY_SIGN_IN = `(() => {
  const button = document.getElementById('passkey-sign-in');
  if (!button || !window.PublicKeyCredential || !PublicKeyCredential.parseRequestOptionsFromJSON) return;
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const answer = await fetch('/v1/dev-user/passkeys/authentication-options', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
      });
      if (!answer.ok) throw new Error('no challenge');
      const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(await answer.json());
      const credential = await navigator.credentials.get({ publicKey });
      document.getElementById('passkey-credential').value = JSON.stringify(credential.toJSON());
      document.getElementById('passkey-form').submit();
    } catch {
      button.disabled = false;
    }
  });
})()`;

export interface CompletionPageInput {
  translator: Translator;
  nonce: string;
  /** The full redirect (with code/state or error), used when there is no opener. */
  redirectUrl: string;
  /** The redirect URI's origin: the only origin the messages are delivered to. */
  targetOrigin: string;
  clientId: string;
  result: { code: string; state?: string | undefined } | { error: string; state?: string | undefined };
}

/**
 * The popup ending: posts the result to the opener twice, once per client generation (`from`
 * = `dauth` and `dauth-v2`), to the redirect URI's origin only, then closes. Without an opener it
 * follows the redirect instead. The script's one visible text comes in the data block, translated.
 */
export function completionPage(input: CompletionPageInput): string {
  const { result, translator: tr } = input;
  const base: Record<string, unknown> =
    'code' in result
      ? { code: result.code, state: result.state }
      : { error: result.error, state: result.state };
  const messages = [
    { from: POPUP_MESSAGE_SOURCES[0], ...base },
    { from: POPUP_MESSAGE_SOURCES[1], type: 'authorization_response', client_id: input.clientId, ...base },
  ];
  const data = {
    messages,
    targetOrigin: input.targetOrigin,
    redirectUrl: input.redirectUrl,
    doneText: tr.t('signin.completion.done'),
  };
  const script = `const data = JSON.parse(document.getElementById('dauth-result').textContent);
if (window.opener && !window.opener.closed) {
  for (const message of data.messages) window.opener.postMessage(message, data.targetOrigin);
  document.getElementById('status').textContent = data.doneText;
  window.close();
} else {
  window.location.replace(data.redirectUrl);
}`;
  const body = html`<h1>dauth</h1>
    <p id="status">${tr.t('signin.completion.returning')}</p>
    <p><a href="${input.redirectUrl}" rel="noreferrer">${tr.t('signin.completion.continue')}</a></p>
    <script type="application/json" id="dauth-result">
      ${new SafeHtml(scriptJson(data))}
    </script>`;
  return renderPage(
    { translator: tr, nonce: input.nonce, title: tr.t('signin.completion.title'), script },
    body,
  );
}

/** The e-mail and password fields and the sign-in button, shared by every sign-in form. */
export function credentialFields(
  email: string | undefined,
  beforeSubmit: SafeHtml | '' = '',
  options: { translator: Translator; invalid?: 'email' | 'password' | undefined },
): SafeHtml {
  const tr = options.translator;
  return html`<label for="email">${tr.t('signin.email')}</label>
    <input
      id="email"
      name="email"
      type="email"
      required
      maxlength="320"
      autocomplete="username"
      value="${email ?? ''}"
      ${invalidAttributes(options.invalid === 'email')}
    />
    <label for="password">${tr.t('signin.password')}</label>
    <input
      id="password"
      name="password"
      type="password"
      required
      maxlength="1024"
      autocomplete="current-password"
      ${invalidAttributes(options.invalid === 'password')}
    />
    ${beforeSubmit}
    <div class="actions"><button type="submit" id="sign-in">${tr.t('signin.submit')}</button></div>`;
}
