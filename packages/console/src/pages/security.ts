import { call, currentSession, encode, forgetSession } from '../api.js';
import { button, field, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { encode as qrEncode } from '../vendor/uqr.js';
import { describeError, flash, form, go, onSubmit, page, submit } from '../view.js';
import { codeField } from './auth.js';
import { passkeyName } from './passkeys.js';
import { rich, t } from '../i18n/translator.js';

interface WaysIn {
  password: { set: boolean; last_used_at: string | null };
  passkeys: { id: string; created_at: string; last_used_at: string | null; backed_up: boolean }[];
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
    t('console.security.title'),
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
  /** "Password: last used 2026-11-23 18:02 UTC", "Synced passkey (added …): not used yet". */
  const used = (way: string, at: string | null) =>
    at
      ? t('console.security.ways.used', { way, at: formatTime(at) })
      : t('console.security.ways.unused', { way });
  const rows = [
    ways.password.set
      ? used(t('console.security.ways.password'), ways.password.last_used_at)
      : t('console.security.ways.no_password'),
    ...ways.passkeys.map((p) =>
      used(
        t('console.security.ways.passkey', {
          name: passkeyName(p, ways.passkeys),
          added: formatTime(p.created_at),
        }),
        p.last_used_at,
      ),
    ),
    ...ways.identities.map((i) => used(i.provider_name, i.last_used_at)),
  ];
  return section(
    'ways-in',
    t('console.security.ways.title'),
    h(
      'ul',
      { id: 'ways-in-list' },
      rows.map((r) => h('li', {}, r)),
    ),
    h(
      'p',
      {},
      rich(
        'console.security.ways.manage',
        {},
        {
          password: (words) => h('a', { href: '#/password' }, words),
          passkeys: (words) => h('a', { href: '#/passkeys' }, words),
          account: (words) => h('a', { href: '#/account' }, words),
        },
      ),
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
  svg.setAttribute('aria-label', t('console.security.totp.qr'));
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
      h('div', { class: 'actions' }, submit(t('console.security.totp.remove'), 'totp-remove')),
    );
    f.querySelector('button')?.classList.add('danger');
    onSubmit(f, async () => {
      await call('DELETE', '/v1/dev-user/mfa/totp', { code: code.input.value.trim() });
      flash('ok', t('console.security.totp.removed'));
      go('#/security');
    });
    area.append(
      h('p', { id: 'totp-status' }, t('console.security.totp.on', { left: totp.recovery_codes_left })),
      f,
    );
  } else {
    const start = button(t('console.security.totp.start'), { id: 'totp-start' });
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
      h('p', { id: 'totp-status' }, t('console.security.totp.off')),
      messages,
      h('div', { class: 'actions' }, start),
    );
  }
  return section('totp', t('console.security.totp.title'), area);
}

/** Scan (or type the key), then confirm with a code: the answer is the recovery codes, shown once. */
function enrolmentStep(enrolment: { secret: string; otpauth_uri: string }): HTMLElement {
  const code = codeField('totp-code');
  const f = form(
    'totp-confirm-form',
    code.wrapper,
    h('div', { class: 'actions' }, submit(t('console.security.totp.turn_on'), 'totp-confirm')),
  );
  const box = h(
    'div',
    { id: 'totp-enrolment' },
    h('p', {}, t('console.security.totp.scan')),
    qrCode(enrolment.otpauth_uri),
    h(
      'details',
      { id: 'totp-manual' },
      h('summary', {}, t('console.security.totp.cannot_scan')),
      h('p', {}, t('console.security.totp.key')),
      h('p', {}, h('code', { id: 'totp-secret', class: 'secret' }, enrolment.secret)),
      h('p', {}, t('console.security.totp.uri')),
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
  const done = button(t('console.security.recovery.done'), { id: 'recovery-done' });
  done.addEventListener('click', () => go('#/security'));
  return h(
    'div',
    { id: 'recovery' },
    notice('ok', t('console.security.recovery.on')),
    notice('warning', t('console.security.recovery.once')),
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
          const revoke = button(t('console.security.sessions.revoke'), {
            class: 'danger',
            'data-revoke-session': s.id,
          });
          const messages = h('div', { class: 'messages' });
          revoke.addEventListener('click', () => {
            revoke.disabled = true;
            call('DELETE', `/v1/dev-user/sessions/${encode(s.id)}`)
              .then(() => {
                flash(
                  'ok',
                  s.kind === 'app'
                    ? s.app?.name
                      ? t('console.security.sessions.app_signed_out', { name: s.app.name })
                      : t('console.security.sessions.an_app_signed_out')
                    : t('console.security.sessions.signed_out'),
                );
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
            h(
              'p',
              {},
              s.kind === 'app'
                ? t('console.security.sessions.app', { name: s.app?.name ?? '' })
                : t('console.security.sessions.browser'),
            ),
            h(
              'p',
              {},
              t('console.security.sessions.where', {
                device: s.device ?? t('console.security.sessions.unknown_device'),
                network: s.network ?? t('console.security.sessions.unknown_network'),
              }),
            ),
            h(
              'p',
              {},
              t('console.security.sessions.when', {
                since: formatTime(s.created_at),
                seen: formatTime(s.last_seen_at),
              }),
            ),
            revoke,
            messages,
          );
        }),
      )
    : h('p', { id: 'session-list' }, t('console.security.sessions.none'));
  return section(
    'sessions',
    t('console.security.sessions.title'),
    h('p', {}, t('console.security.sessions.intro')),
    list,
  );
}

function exportSection(): HTMLElement {
  const download = button(t('console.security.export.download'), { id: 'export-account' });
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
    t('console.security.export.title'),
    h('p', {}, t('console.security.export.intro')),
    messages,
    h('div', { class: 'actions' }, download),
  );
}

function deleteSection(): HTMLElement {
  const session = currentSession();
  const confirm = field(
    session?.email ? t('console.security.delete.confirm_email') : t('console.security.delete.confirm_id'),
    { id: 'delete-confirm', name: 'confirm', required: true, maxlength: '320', autocomplete: 'off' },
    session?.email ? session.email : session?.uuid,
  );
  const f = form(
    'delete-account-form',
    confirm.wrapper,
    h('div', { class: 'actions' }, submit(t('console.security.delete.submit'), 'delete-account')),
  );
  f.querySelector('button')?.classList.add('danger');
  onSubmit(f, async () => {
    await call('DELETE', '/v1/dev-user/account', { confirm: confirm.input.value.trim() });
    forgetSession();
    flash('ok', t('console.security.delete.done'));
    go('#/signin');
  });
  return section(
    'delete',
    t('console.security.delete.title'),
    notice('warning', t('console.security.delete.warning')),
    f,
  );
}
