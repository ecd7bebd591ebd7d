import { call, currentSession, encode, forgetSession } from '../api.js';
import { button, field, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { encode as qrEncode } from '../vendor/uqr.js';
import { describeError, flash, form, go, onSubmit, page, submit } from '../view.js';
import { codeField } from './auth.js';

interface WaysIn {
  password: { set: boolean; last_used_at: string | null };
  passkeys: { id: string; created_at: string; last_used_at: string | null }[];
  identities: { id: string; provider_name: string; created_at: string; last_used_at: string | null }[];
  totp: { enabled: boolean; recovery_codes_left: number };
}

interface AccountSession {
  id: string;
  kind: 'browser' | 'app';
  app: { client_id: string; name: string } | null;
  created_at: string;
  last_seen_at: string;
  device: string | null;
  network: string | null;
}

const lastUse = (at: string | null) => (at ? `last used ${formatTime(at)}` : 'not used yet');

/**
 * `#/security` (decisions §9, docs/console.md): the account's ways in with their last use, where it is
 * signed in (each revocable), the authenticator app (TOTP) with its recovery codes, export and deletion.
 * Every change goes through the step-up (`reauthentication_required` → confirm it is you).
 */
export async function securityPage(): Promise<HTMLElement> {
  const [ways, { sessions }] = await Promise.all([
    call<WaysIn>('GET', '/v1/dev-user/ways-in'),
    call<{ sessions: AccountSession[] }>('GET', '/v1/dev-user/sessions'),
  ]);
  return page(
    'Security',
    waysInSection(ways),
    totpSection(ways.totp),
    sessionsSection(sessions),
    exportSection(),
    deleteSection(),
  );
}

function section(id: string, title: string, ...content: (Node | null)[]): HTMLElement {
  return h('section', { id, 'aria-labelledby': `${id}-h` }, h('h2', { id: `${id}-h` }, title), ...content);
}

function waysInSection(ways: WaysIn): HTMLElement {
  const rows = [
    ways.password.set ? `Password: ${lastUse(ways.password.last_used_at)}` : 'No password',
    ...ways.passkeys.map((p) => `Passkey added ${formatTime(p.created_at)}: ${lastUse(p.last_used_at)}`),
    ...ways.identities.map((i) => `${i.provider_name}: ${lastUse(i.last_used_at)}`),
  ];
  return section(
    'ways-in',
    'Ways in',
    h(
      'ul',
      { id: 'ways-in-list' },
      rows.map((r) => h('li', {}, r)),
    ),
    h(
      'p',
      {},
      'Manage them on ',
      h('a', { href: '#/password' }, 'Password'),
      ', ',
      h('a', { href: '#/passkeys' }, 'Passkeys'),
      ' and ',
      h('a', { href: '#/account' }, 'Account'),
      '.',
    ),
  );
}

/** The `otpauth://` URI as a QR code: an SVG drawn from uqr's modules (no markup is parsed). */
function qrCode(uri: string): SVGSVGElement {
  const { data, size } = qrEncode(uri, { ecc: 'M', border: 4 });
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('width', '220');
  svg.setAttribute('height', '220');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'QR code to scan with your authenticator app');
  svg.id = 'totp-qr';
  let d = '';
  data.forEach((row, y) => row.forEach((dark, x) => (d += dark ? `M${x} ${y}h1v1h-1z` : '')));
  const background = document.createElementNS(ns, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  const modules = document.createElementNS(ns, 'path');
  modules.setAttribute('d', d);
  modules.setAttribute('fill', '#000');
  svg.append(background, modules);
  return svg;
}

function totpSection(totp: WaysIn['totp']): HTMLElement {
  const area = h('div', { id: 'totp-area' });
  if (totp.enabled) {
    const code = codeField('totp-remove-code');
    const f = form(
      'totp-remove-form',
      code.wrapper,
      h('div', { class: 'actions' }, submit('Remove the authenticator', 'totp-remove')),
    );
    f.querySelector('button')?.classList.add('danger');
    onSubmit(f, async () => {
      await call('DELETE', '/v1/dev-user/mfa/totp', { code: code.input.value.trim() });
      flash('ok', 'The authenticator app is removed: sign-ins need only one step again.');
      go('#/security');
    });
    area.append(
      h(
        'p',
        { id: 'totp-status' },
        `On: every password or federated sign-in also asks for a code. ${totp.recovery_codes_left} recovery codes left.`,
      ),
      f,
    );
  } else {
    const start = button('Set up an authenticator app', { id: 'totp-start' });
    const messages = h('div', { class: 'messages' });
    start.addEventListener('click', () => {
      start.disabled = true;
      messages.replaceChildren();
      call<{ secret: string; otpauth_uri: string }>('POST', '/v1/dev-user/mfa/totp')
        .then((enrolment) => area.replaceChildren(enrolmentStep(enrolment)))
        .catch((error: unknown) => messages.replaceChildren(notice('error', describeError(error))))
        .finally(() => (start.disabled = false));
    });
    area.append(
      h('p', { id: 'totp-status' }, 'Off. Add an authenticator app so a password alone cannot sign in.'),
      messages,
      h('div', { class: 'actions' }, start),
    );
  }
  return section('totp', 'Authenticator app (two-step sign-in)', area);
}

/** Scan (or type the key), then confirm with a code: the answer is the recovery codes, shown once. */
function enrolmentStep(enrolment: { secret: string; otpauth_uri: string }): HTMLElement {
  const code = codeField('totp-code');
  const f = form(
    'totp-confirm-form',
    code.wrapper,
    h('div', { class: 'actions' }, submit('Turn on', 'totp-confirm')),
  );
  const box = h(
    'div',
    { id: 'totp-enrolment' },
    h('p', {}, 'Scan this code with your authenticator app, then enter the code it shows.'),
    qrCode(enrolment.otpauth_uri),
    h(
      'details',
      { id: 'totp-manual' },
      h('summary', {}, "Can't scan it?"),
      h('p', {}, 'Enter this key in the app (time-based, 6 digits, 30 seconds):'),
      h('p', {}, h('code', { id: 'totp-secret', class: 'secret' }, enrolment.secret)),
      h('p', {}, 'Or open this address with it:'),
      h('p', {}, h('code', { id: 'totp-uri', class: 'secret' }, enrolment.otpauth_uri)),
    ),
    f,
  );
  onSubmit(f, async () => {
    const { recovery_codes } = await call<{ recovery_codes: string[] }>(
      'POST',
      '/v1/dev-user/mfa/totp/confirm',
      { code: code.input.value.trim() },
    );
    box.replaceChildren(recoveryCodes(recovery_codes));
  });
  return box;
}

function recoveryCodes(codes: string[]): HTMLElement {
  const done = button('I have saved them', { id: 'recovery-done' });
  done.addEventListener('click', () => go('#/security'));
  return h(
    'div',
    { id: 'recovery' },
    notice('ok', 'The authenticator app is on.'),
    notice(
      'warning',
      'Save these recovery codes somewhere safe now: they are shown only once. Each signs you in once ' +
        'without the app (if you lose your phone).',
    ),
    h(
      'ul',
      { id: 'recovery-codes', class: 'codes' },
      codes.map((c) => h('li', {}, h('code', {}, c))),
    ),
    h('div', { class: 'actions' }, done),
  );
}

function sessionsSection(sessions: AccountSession[]): HTMLElement {
  const list = sessions.length
    ? h(
        'ul',
        { class: 'cards', id: 'session-list' },
        sessions.map((s) => {
          const revoke = button('Revoke', { class: 'danger', 'data-revoke-session': s.id });
          const messages = h('div', { class: 'messages' });
          revoke.addEventListener('click', () => {
            revoke.disabled = true;
            call('DELETE', `/v1/dev-user/sessions/${encode(s.id)}`)
              .then(() => {
                flash('ok', s.kind === 'app' ? `${s.app?.name ?? 'The app'} is signed out.` : 'Signed out.');
                go('#/security');
              })
              .catch((error: unknown) => {
                messages.replaceChildren(notice('error', describeError(error)));
                revoke.disabled = false;
              });
          });
          return h(
            'li',
            { class: 'card', 'data-session': s.id, 'data-kind': s.kind },
            h('p', {}, s.kind === 'app' ? `App: ${s.app?.name ?? ''}` : 'Sign-in page (browser)'),
            h('p', {}, `${s.device ?? 'Unknown device'} · network ${s.network ?? 'unknown'}`),
            h('p', {}, `Since ${formatTime(s.created_at)} · last seen ${formatTime(s.last_seen_at)}`),
            revoke,
            messages,
          );
        }),
      )
    : h('p', { id: 'session-list' }, 'No app or sign-in page holds a session of yours.');
  return section(
    'sessions',
    'Where you are signed in',
    h(
      'p',
      {},
      "The service's sign-in page in your browsers, and the apps you let in. Revoking one signs it out; " +
        'this console signs out with "Sign out".',
    ),
    list,
  );
}

function exportSection(): HTMLElement {
  const download = button('Download my data (JSON)', { id: 'export-account' });
  const messages = h('div', { class: 'messages' });
  download.addEventListener('click', () => {
    download.disabled = true;
    messages.replaceChildren();
    call('GET', '/v1/dev-user/account/export')
      .then((data) => {
        const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
        const link = h('a', {
          href: URL.createObjectURL(blob),
          download: `dauth-account-${currentSession()?.uuid ?? 'export'}.json`,
        });
        link.click();
        setTimeout(() => URL.revokeObjectURL(link.getAttribute('href')!), 60_000);
      })
      .catch((error: unknown) => messages.replaceChildren(notice('error', describeError(error))))
      .finally(() => (download.disabled = false));
  });
  return section(
    'export',
    'Your data',
    h('p', {}, 'Everything the service keeps about you, without any secret.'),
    messages,
    h('div', { class: 'actions' }, download),
  );
}

function deleteSection(): HTMLElement {
  const session = currentSession();
  const confirm = field(
    session?.email ? 'Type your e-mail to confirm' : 'Type your account id to confirm',
    { id: 'delete-confirm', name: 'confirm', required: true, maxlength: '320', autocomplete: 'off' },
    session?.email ? session.email : session?.uuid,
  );
  const f = form(
    'delete-account-form',
    confirm.wrapper,
    h('div', { class: 'actions' }, submit('Delete my account', 'delete-account')),
  );
  f.querySelector('button')?.classList.add('danger');
  onSubmit(f, async () => {
    await call('DELETE', '/v1/dev-user/account', { confirm: confirm.input.value.trim() });
    forgetSession();
    flash('ok', 'Your account is deleted. You are signed out.');
    go('#/signin');
  });
  return section(
    'delete',
    'Delete your account',
    notice(
      'warning',
      'This cannot be undone. Every sign-in, app and session key ends at once, and your ways in, e-mail ' +
        'and name are erased. Your wallet stays on the chain: from then on only the mnemonic you kept ' +
        'controls it.',
    ),
    f,
  );
}
