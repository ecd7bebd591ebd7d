import { call, createPasskey, currentSession, passkeysSupported, signIn } from '../api.js';
import { button, field, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { confirmInline, describeError, flash, form, go, onSubmit, page, submit } from '../view.js';

interface Passkey {
  id: string;
  created_at: string;
  last_used_at: string | null;
  backed_up: boolean;
}

/**
 * `#/passkeys` (docs/players.md): the account's passkeys, add one with this browser, delete one; and
 * for a guest account, the upgrade to e-mail and password or to a passkey (same uuid, wallet, slots).
 */
export async function passkeysPage(): Promise<HTMLElement> {
  const { passkeys } = await call<{ passkeys: Passkey[] }>('GET', '/v1/dev-user/passkeys');
  const list = passkeys.length
    ? h(
        'ul',
        { class: 'cards', id: 'passkey-list' },
        passkeys.map((p) => {
          const trigger = button('Delete', { class: 'danger', 'data-delete-passkey': p.id });
          const confirm = confirmInline(trigger, 'Delete this passkey?', 'Delete passkey', async () => {
            await call('DELETE', `/v1/dev-user/passkeys/${encodeURIComponent(p.id)}`);
            flash('ok', 'Passkey deleted.');
            go('#/passkeys');
          });
          return h(
            'li',
            { class: 'card passkey', 'data-passkey': p.id },
            h('p', {}, `Added ${formatTime(p.created_at)}`),
            h('p', {}, p.last_used_at ? `Last used ${formatTime(p.last_used_at)}` : 'Not used yet'),
            p.backed_up ? h('p', {}, 'Synced across your devices') : null,
            trigger,
            confirm,
          );
        }),
      )
    : h('p', { id: 'passkey-list' }, 'No passkeys yet.');
  const add = button('Add a passkey', { id: 'add-passkey' });
  const messages = h('div', { class: 'messages' });
  add.addEventListener('click', () => {
    add.disabled = true;
    messages.replaceChildren();
    createPasskey()
      .then((response) => call('POST', '/v1/dev-user/passkeys', response))
      .then(() => {
        flash('ok', 'Passkey added.');
        go('#/passkeys');
      })
      .catch((error: unknown) => messages.replaceChildren(notice('error', describeError(error))))
      .finally(() => (add.disabled = false));
  });
  return page(
    'Passkeys',
    h('p', {}, 'Sign in with your device instead of a password.'),
    messages,
    passkeysSupported()
      ? h('div', { class: 'actions' }, add)
      : notice('warning', 'This browser cannot use passkeys.'),
    list,
    guestUpgrade(),
  );
}

/** The upgrade of a guest account; the service answers 409 `not_guest` for any other account. */
function guestUpgrade(): HTMLElement {
  const email = field('E-mail', {
    id: 'upgrade-email',
    name: 'email',
    type: 'email',
    required: true,
    maxlength: '320',
  });
  const password = field('Password', {
    id: 'upgrade-password',
    name: 'password',
    type: 'password',
    required: true,
    minlength: '8',
    maxlength: '1024',
    autocomplete: 'new-password',
  });
  const f = form(
    'guest-upgrade-form',
    email.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit('Keep this account with e-mail and password', 'upgrade-submit')),
  );
  onSubmit(f, async () => {
    const body = { email: email.input.value.trim(), password: password.input.value };
    await call('POST', '/v1/dev-user/guest/upgrade', body);
    if (currentSession()) await signIn(body.email, body.password);
    flash('ok', 'Your guest account is now a full account: same wallet and slots.');
    go('#/account');
  });
  return h(
    'section',
    { id: 'guest-upgrade', 'aria-labelledby': 'guest-upgrade-h' },
    h('h2', { id: 'guest-upgrade-h' }, 'Playing as a guest?'),
    h(
      'p',
      {},
      'Give the account an e-mail and password (or add a passkey above) to keep it for good. ' +
        'A guest without e-mail can recover its PIN only with the mnemonic.',
    ),
    f,
  );
}
