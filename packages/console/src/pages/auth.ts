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
import { federationProviders, federationStart } from './identities.js';

const emailField = (id: string, value = '') => {
  const f = field('E-mail', {
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
  const password = passwordField('signin-password', 'Password', 'current-password');
  const f = form(
    'signin-form',
    email.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit('Sign in', 'signin-submit')),
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
    h('div', { class: 'actions' }, submit('Use a passkey', 'signin-passkey')),
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
            `Continue with ${p.name}`,
          ),
        ),
      )
    : null;
  return page(
    'Sign in',
    step,
    passkeysSupported() ? withPasskey : null,
    federation,
    h(
      'p',
      {},
      'New here? ',
      h('a', { href: '#/signup' }, 'Create an account'),
      '. ',
      h('a', { href: '#/reset' }, 'Forgot your password?'),
    ),
  );
}

/** A code input for a sign-in's second step (docs/mfa.md). */
export function codeField(id: string): { wrapper: HTMLElement; input: HTMLInputElement } {
  return field(
    'Code',
    {
      id,
      name: 'code',
      required: true,
      maxlength: '40',
      autocomplete: 'one-time-code',
      inputmode: 'text',
      spellcheck: 'false',
    },
    'The 6-digit code your authenticator app shows, or one of your recovery codes.',
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
    h('p', {}, 'Your password was right. This account also asks for a second step.'),
    code.wrapper,
    h('div', { class: 'actions' }, submit('Verify', 'signin-code-submit')),
  );
  onSubmit(f, async () => {
    try {
      await finishSignIn(challenge, code.input.value.trim());
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_mfa_token') {
        flash('error', 'That sign-in expired or had too many wrong codes: sign in again.');
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
  const nickname = field('Name (optional)', {
    id: 'signup-nickname',
    name: 'nickname',
    maxlength: '100',
    autocomplete: 'nickname',
  });
  const password = passwordField('signup-password', 'Password', 'new-password', 'At least 8 characters.');
  password.input.minLength = 8;
  const f = form(
    'signup-form',
    email.wrapper,
    nickname.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit('Create account', 'signup-submit')),
  );
  onSubmit(f, async () => {
    const body: Record<string, string> = { email: email.input.value.trim(), password: password.input.value };
    if (nickname.input.value.trim()) body.nickname = nickname.input.value.trim();
    await call('POST', '/v1/dev-user/register', body);
    await signIn(body.email!, body.password!);
    flash('ok', 'Account created. You are signed in.');
    go('#/apps');
  });
  return page(
    'Create an account',
    f,
    h('p', {}, 'Already registered? ', h('a', { href: '#/signin' }, 'Sign in'), '.'),
  );
}

export function resetRequestPage(): HTMLElement {
  const email = emailField('reset-email');
  const f = form(
    'reset-request-form',
    email.wrapper,
    h('div', { class: 'actions' }, submit('Send reset code', 'reset-request-submit')),
  );
  onSubmit(f, async () => {
    await call('POST', '/v1/dev-user/password/reset-request', { email: email.input.value.trim() });
    flash('ok', 'If an account uses this address, a code and a link are on their way. Enter the code below.');
    go(`#/reset/confirm?email=${encodeURIComponent(email.input.value.trim())}`);
  });
  return page(
    'Reset your password',
    h('p', {}, 'We e-mail you a one-time code and a link that opens the next step.'),
    f,
    h('p', {}, h('a', { href: '#/reset/confirm' }, 'I already have a code')),
  );
}

export function resetConfirmPage(query: URLSearchParams): HTMLElement {
  const email = emailField('reset-confirm-email', query.get('email') ?? '');
  const code = field('Code from the e-mail', {
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
    'New password',
    'new-password',
    'At least 8 characters.',
  );
  password.input.minLength = 8;
  const f = form(
    'reset-confirm-form',
    email.wrapper,
    code.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit('Set new password', 'reset-confirm-submit')),
  );
  onSubmit(f, async () => {
    await call('POST', '/v1/dev-user/password/reset', {
      email: email.input.value.trim(),
      code: code.input.value.trim(),
      new_password: password.input.value,
    });
    flash('ok', 'Password changed. Sign in with the new one.');
    go('#/signin');
  });
  return page('Choose a new password', f);
}

export function changePasswordPage(): HTMLElement {
  const current = passwordField('current-password', 'Current password', 'current-password');
  current.input.name = 'current_password';
  const next = passwordField(
    'new-password',
    'New password',
    'new-password',
    'At least 8 characters, not easy to guess (the service says why when it refuses one). Other sign-ins end.',
  );
  next.input.minLength = 8;
  const f = form(
    'password-form',
    current.wrapper,
    next.wrapper,
    h('div', { class: 'actions' }, submit('Change password', 'password-submit')),
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
    return 'Password changed. Your other sessions were signed out.';
  });
  return page('Change password', f);
}
