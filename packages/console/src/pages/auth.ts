import {
  ApiError,
  call,
  currentSession,
  finishSignIn,
  passkeysSupported,
  SecondFactorRequired,
  signIn,
  signInWithPasskey,
  signInWithPrompt,
} from '../api.js';
import { field, h } from '../dom.js';
import { flash, form, go, onSubmit, page, submit } from '../view.js';
import { rich, t } from '../i18n/translator.js';
import { federationProviders, federationStart } from './identities.js';

const emailField = (id: string, value = '') => {
  const f = field(t('console.auth.email'), {
    id,
    name: 'email',
    type: 'email',
    required: true,
    maxlength: '320',
    autocomplete: 'username',
  });
  f.input.value = value;
  return f;
};
const passwordField = (id: string, label: string, autocomplete: string, hint?: string) =>
  field(
    label,
    { id, name: 'password', type: 'password', required: true, maxlength: '1024', autocomplete },
    hint,
  );

export async function signInPage(): Promise<HTMLElement> {
  const email = emailField('signin-email');
  const password = passwordField('signin-password', t('console.auth.password'), 'current-password');
  const f = form(
    'signin-form',
    email.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit(t('console.auth.signin_submit'), 'signin-submit')),
  );
  const step = h('div', { id: 'signin-step' }, f);
  onSubmit(f, async () => {
    try {
      await signIn(email.input.value.trim(), password.input.value);
    } catch (error) {
      if (!(error instanceof SecondFactorRequired)) throw error;
      // The password was right and the account has TOTP: the same page asks for the code.
      step.replaceChildren(secondStepForm(error));
      step.querySelector('input')?.focus();
      return;
    }
    go('#/apps');
  });
  const withPasskey = h(
    'form',
    { id: 'signin-passkey-form' },
    h('div', { class: 'actions' }, submit(t('console.auth.passkey'), 'signin-passkey')),
  ) as HTMLFormElement;
  onSubmit(withPasskey, async () => {
    try {
      await signInWithPasskey();
    } catch (error) {
      if (!(error instanceof SecondFactorRequired)) throw error;
      // A passkey without user verification, of an account with TOTP: the code, as after a password.
      step.replaceChildren(secondStepForm(error));
      step.querySelector('input')?.focus();
      return;
    }
    go('#/apps');
  });
  // "Continue with …" for each upstream provider the service is configured with (none: no buttons).
  const providers = await federationProviders();
  const federation = providers.length
    ? h(
        'div',
        { class: 'actions federation', id: 'signin-federation' },
        providers.map((p) =>
          h(
            'a',
            { class: 'button secondary', href: federationStart(p), 'data-provider': p.id },
            t('console.federation.continue', { provider: p.name }),
          ),
        ),
      )
    : null;
  return page(
    t('console.auth.signin_title'),
    step,
    passkeysSupported() ? withPasskey : null,
    federation,
    h(
      'p',
      {},
      rich(
        'console.auth.signin_links',
        {},
        {
          signup: (words) => h('a', { href: '#/signup' }, words),
          reset: (words) => h('a', { href: '#/reset' }, words),
        },
      ),
    ),
  );
}

/** A code input for a sign-in's second step (docs/mfa.md). */
export function codeField(id: string): { wrapper: HTMLElement; input: HTMLInputElement } {
  return field(
    t('console.auth.code'),
    {
      id,
      name: 'code',
      required: true,
      maxlength: '40',
      autocomplete: 'one-time-code',
      inputmode: 'text',
      spellcheck: 'false',
    },
    t('console.auth.code_hint'),
  );
}

/**
 * The sign-in's second step: the code of the authenticator app (or a recovery code) for the `mfa_token`
 * the password step answered. A dead token (5 wrong codes, expired) goes back to the password.
 */
function secondStepForm(challenge: SecondFactorRequired): HTMLFormElement {
  const code = codeField('signin-code');
  const f = form(
    'signin-code-form',
    h('p', {}, t('console.auth.second_step')),
    code.wrapper,
    h('div', { class: 'actions' }, submit(t('console.mfa.verify'), 'signin-code-submit')),
  );
  onSubmit(f, async () => {
    try {
      await finishSignIn(challenge, code.input.value.trim());
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_mfa_token') {
        flash('error', t('console.auth.second_step_expired'));
        go('#/signin');
        return;
      }
      throw error;
    }
    go('#/apps');
  });
  return f;
}

export function signUpPage(): HTMLElement {
  const email = emailField('signup-email');
  const nickname = field(t('console.auth.nickname'), {
    id: 'signup-nickname',
    name: 'nickname',
    maxlength: '100',
    autocomplete: 'nickname',
  });
  const password = passwordField(
    'signup-password',
    t('console.auth.password'),
    'new-password',
    t('console.auth.password_hint'),
  );
  password.input.minLength = 8;
  const f = form(
    'signup-form',
    email.wrapper,
    nickname.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit(t('console.auth.signup_submit'), 'signup-submit')),
  );
  onSubmit(f, async () => {
    const body: Record<string, string> = { email: email.input.value.trim(), password: password.input.value };
    if (nickname.input.value.trim()) body.nickname = nickname.input.value.trim();
    await call('POST', '/v1/dev-user/register', body);
    await signIn(body.email!, body.password!);
    flash('ok', t('console.auth.signed_up'));
    go('#/apps');
  });
  return page(
    t('console.auth.signup_title'),
    f,
    h(
      'p',
      {},
      rich('console.auth.signup_links', {}, { signin: (words) => h('a', { href: '#/signin' }, words) }),
    ),
  );
}

export function resetRequestPage(): HTMLElement {
  const email = emailField('reset-email');
  const f = form(
    'reset-request-form',
    email.wrapper,
    h('div', { class: 'actions' }, submit(t('console.auth.reset_submit'), 'reset-request-submit')),
  );
  onSubmit(f, async () => {
    await call('POST', '/v1/dev-user/password/reset-request', { email: email.input.value.trim() });
    flash('ok', t('console.auth.reset_sent'));
    go(`#/reset/confirm?email=${encodeURIComponent(email.input.value.trim())}`);
  });
  return page(
    t('console.auth.reset_title'),
    h('p', {}, t('console.auth.reset_intro')),
    f,
    h('p', {}, h('a', { href: '#/reset/confirm' }, t('console.auth.reset_have_code'))),
  );
}

export function resetConfirmPage(query: URLSearchParams): HTMLElement {
  const email = emailField('reset-confirm-email', query.get('email') ?? '');
  const code = field(t('console.auth.reset_code'), {
    id: 'reset-code',
    name: 'code',
    required: true,
    maxlength: '64',
    autocomplete: 'one-time-code',
    inputmode: 'text',
  });
  code.input.value = query.get('code') ?? '';
  const password = passwordField(
    'reset-new-password',
    t('console.auth.new_password'),
    'new-password',
    t('console.auth.password_hint'),
  );
  password.input.minLength = 8;
  const f = form(
    'reset-confirm-form',
    email.wrapper,
    code.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit(t('console.auth.reset_confirm_submit'), 'reset-confirm-submit')),
  );
  onSubmit(f, async () => {
    await call('POST', '/v1/dev-user/password/reset', {
      email: email.input.value.trim(),
      code: code.input.value.trim(),
      new_password: password.input.value,
    });
    flash('ok', t('console.auth.reset_done'));
    go('#/signin');
  });
  return page(t('console.auth.reset_confirm_title'), f);
}

export function changePasswordPage(): HTMLElement {
  const current = passwordField('current-password', t('console.auth.current_password'), 'current-password');
  current.input.name = 'current_password';
  const next = passwordField(
    'new-password',
    t('console.auth.new_password'),
    'new-password',
    t('console.auth.change_hint'),
  );
  next.input.minLength = 8;
  const f = form(
    'password-form',
    current.wrapper,
    next.wrapper,
    h('div', { class: 'actions' }, submit(t('console.auth.change_submit'), 'password-submit')),
  );
  onSubmit(f, async () => {
    const session = currentSession();
    await call('POST', '/v1/dev-user/password', {
      current_password: current.input.value,
      new_password: next.input.value,
    });
    // A password change ends every login JWT; sign in again with the new password.
    if (session) await signInWithPrompt(session.email, next.input.value);
    f.reset();
    return t('console.auth.changed');
  });
  return page(t('console.auth.change_title'), f);
}
