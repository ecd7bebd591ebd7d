import { call, createPasskey, currentSession, passkeysSupported, signIn } from '../api.js';
import { button, facts, field, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { t } from '../i18n/translator.js';
import {
  confirmInline,
  describeError,
  flash,
  form,
  go,
  onSubmit,
  page,
  routeMissing,
  submit,
} from '../view.js';

export interface Passkey {
  id: string;
  created_at: string;
  last_used_at: string | null;
  backed_up: boolean;
}

/** The ways in of the signed-in account (`GET /v1/dev-user/ways-in`), as far as this page needs them. */
interface WaysIn {
  password: { set: boolean };
  passkeys: unknown[];
  identities: unknown[];
}

/**
 * A passkey's name on the cards and in the ways in. WebAuthn gives a credential no name and the service
 * keeps none, so the name says what the passkey is, synced through a password manager (`backed_up`) or
 * kept on one device (a security key, this computer), numbered by age when the account has several of a
 * kind: "Synced passkey", "Passkey on one device 2".
 */
export function passkeyName(passkey: Passkey, all: readonly Passkey[]): string {
  const sameKind = all
    .filter((p) => p.backed_up === passkey.backed_up)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
  const number = sameKind.length > 1 ? sameKind.indexOf(passkey) + 1 : 0;
  return passkey.backed_up
    ? t('console.passkeys.name.synced', { number })
    : t('console.passkeys.name.device', { number });
}

/**
 * `#/passkeys` (docs/players.md): the account's passkeys, each under its name, add one with this browser,
 * delete one; and for a guest account only, the upgrade to e-mail and password (same uuid, wallet, slots).
 */
export async function passkeysPage(): Promise<HTMLElement> {
  const [{ passkeys }, guest] = await Promise.all([
    call<{ passkeys: Passkey[] }>('GET', '/v1/dev-user/passkeys'),
    isGuest(),
  ]);
  const list = passkeys.length
    ? h(
        'ul',
        { class: 'cards', id: 'passkey-list' },
        passkeys.map((p) => {
          const name = passkeyName(p, passkeys);
          const trigger = button(t('console.passkeys.delete'), {
            class: 'danger',
            'data-delete-passkey': p.id,
            'aria-label': t('console.passkeys.delete_named', { name }),
          });
          const confirm = confirmInline(
            trigger,
            t('console.passkeys.delete_question', { name }),
            t('console.passkeys.delete_confirm'),
            async () => {
              await call('DELETE', `/v1/dev-user/passkeys/${encodeURIComponent(p.id)}`);
              flash('ok', t('console.passkeys.deleted', { name }));
              go('#/passkeys');
            },
          );
          return h(
            'li',
            { class: 'card passkey', 'data-passkey': p.id },
            h('h2', { class: 'passkey-name' }, name),
            facts([
              [t('console.passkeys.added'), formatTime(p.created_at)],
              [
                t('console.passkeys.last_used'),
                p.last_used_at ? formatTime(p.last_used_at) : t('console.passkeys.not_used'),
              ],
            ]),
            trigger,
            confirm,
          );
        }),
      )
    : h('p', { id: 'passkey-list' }, t('console.passkeys.none'));
  const add = button(t('console.passkeys.add'), { id: 'add-passkey' });
  const messages = h('div', { class: 'messages' });
  add.addEventListener('click', () => {
    add.disabled = true;
    messages.replaceChildren();
    createPasskey()
      .then((response) => call('POST', '/v1/dev-user/passkeys', response))
      .then(() => {
        flash('ok', t('console.passkeys.added_flash'));
        go('#/passkeys');
      })
      .catch((error: unknown) => messages.replaceChildren(notice('error', describeError(error))))
      .finally(() => (add.disabled = false));
  });
  return page(
    t('console.passkeys.title'),
    h('p', {}, t('console.passkeys.intro')),
    messages,
    passkeysSupported()
      ? h('div', { class: 'actions' }, add)
      : notice('warning', t('console.passkeys.unsupported')),
    list,
    guest ? guestUpgrade() : null,
  );
}

/**
 * Whether the signed-in account is a guest: one with no way in of its own (no password, passkey or
 * linked sign-in), which only the game's guest secret opens (docs/players.md). Every other account has
 * one of them (the last cannot be removed), and the service answers 409 `not_guest` to its upgrade.
 */
async function isGuest(): Promise<boolean> {
  try {
    const ways = await call<WaysIn>('GET', '/v1/dev-user/ways-in');
    return !ways.password.set && ways.passkeys.length === 0 && ways.identities.length === 0;
  } catch (error) {
    if (routeMissing(error)) return false;
    throw error;
  }
}

/** The upgrade of a guest account; the service answers 409 `not_guest` for any other account. */
function guestUpgrade(): HTMLElement {
  const email = field(t('console.passkeys.upgrade.email'), {
    id: 'upgrade-email',
    name: 'email',
    type: 'email',
    required: true,
    maxlength: '320',
  });
  const password = field(t('console.passkeys.upgrade.password'), {
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
    h('div', { class: 'actions' }, submit(t('console.passkeys.upgrade.submit'), 'upgrade-submit')),
  );
  onSubmit(f, async () => {
    const body = { email: email.input.value.trim(), password: password.input.value };
    await call('POST', '/v1/dev-user/guest/upgrade', body);
    if (currentSession()) await signIn(body.email, body.password);
    flash('ok', t('console.passkeys.upgrade.done'));
    go('#/account');
  });
  return h(
    'section',
    { id: 'guest-upgrade', 'aria-labelledby': 'guest-upgrade-h' },
    h('h2', { id: 'guest-upgrade-h' }, t('console.passkeys.upgrade.title')),
    h('p', {}, t('console.passkeys.upgrade.intro')),
    f,
  );
}
