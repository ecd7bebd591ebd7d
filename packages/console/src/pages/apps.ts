import { ApiError, call, encode } from '../api.js';
import { button, facts, field, h, notice, secretBox, textarea } from '../dom.js';
import { confirmInline, flash, form, go, onSubmit, page, submit } from '../view.js';
import { formatTime } from '../format.js';
import { t } from '../i18n/translator.js';
import { activitySection, loadActivity } from './activity.js';
import { sponsorshipSection } from './sponsorship.js';
import { walletPolicySection } from './walletPolicy.js';
import { webhooksSection } from './webhooks.js';
import { listOrgs, orgChoice, orgSwitcher, pendingInvitation } from './orgs.js';

interface App {
  client_id: string;
  name: string;
  redirect_uris: string[];
  dapp: boolean;
  created_at: string;
  org_id?: string;
}

const listApps = async () => (await call<{ clients: App[] }>('GET', '/v1/dev-user/clients')).clients;
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

export async function appsPage(query: URLSearchParams = new URLSearchParams()): Promise<HTMLElement> {
  const selected = query.get('org') ?? undefined;
  const [all, orgs] = await Promise.all([listApps(), listOrgs()]);
  const apps = selected ? all.filter((app) => app.org_id === selected) : all;
  const list = apps.length
    ? h(
        'ul',
        { class: 'cards', id: 'app-list' },
        apps.map((app) =>
          h(
            'li',
            { class: 'card' },
            h('h2', {}, h('a', { href: `#/apps/${encode(app.client_id)}` }, app.name)),
            facts([
              [t('console.apps.client_id'), h('code', {}, app.client_id)],
              [t('console.apps.redirect_uris'), app.redirect_uris.join(', ')],
              [t('console.apps.created'), formatTime(app.created_at)],
            ]),
          ),
        ),
      )
    : h('p', { id: 'app-list' }, t('console.apps.none'));
  const invited = pendingInvitation();
  return page(
    t('console.apps.title'),
    invited
      ? h(
          'p',
          { class: 'notice warning' },
          h('a', { href: '#/invitations', id: 'pending-invitation' }, t('console.apps.pending_invitation')),
        )
      : null,
    h(
      'p',
      {},
      h(
        'a',
        {
          href: selected ? `#/apps/new?org=${encode(selected)}` : '#/apps/new',
          class: 'button',
          id: 'new-app',
        },
        t('console.apps.register'),
      ),
    ),
    // The switcher, once there is more than one organization to switch between.
    orgs.length > 1 ? orgSwitcher(orgs, selected) : null,
    list,
  );
}

export async function newAppPage(query: URLSearchParams = new URLSearchParams()): Promise<HTMLElement> {
  const org = orgChoice(await listOrgs(), query.get('org') ?? undefined);
  const name = field(t('console.apps.name'), {
    id: 'app-name',
    name: 'name',
    required: true,
    maxlength: '200',
  });
  const uris = textarea(
    t('console.apps.redirect_uris'),
    { id: 'app-redirect-uris', name: 'redirect_uris', required: true },
    '',
    t('console.apps.redirect_uris_hint'),
  );
  const dapp = h('input', { type: 'checkbox', id: 'app-dapp', name: 'dapp' }) as HTMLInputElement;
  const f = form(
    'new-app-form',
    name.wrapper,
    uris.wrapper,
    org.wrapper,
    h('div', { class: 'field check' }, dapp, h('label', { for: 'app-dapp' }, t('console.apps.dapp'))),
    h('div', { class: 'actions' }, submit(t('console.apps.register_submit'), 'new-app-submit')),
  );
  const container = page(t('console.apps.register'), f);
  onSubmit(f, async () => {
    const created = await call<{ client_id: string; client_secret: string }>('POST', '/v1/dev-user/clients', {
      name: name.input.value.trim(),
      redirect_uris: lines(uris.input.value),
      dapp: dapp.checked,
      ...(org.value() ? { org_id: org.value() } : {}),
    });
    // The secret exists only in this page's memory: leaving the page forgets it.
    const shown = h(
      'div',
      { id: 'created-app' },
      notice('warning', t('console.apps.secret_once')),
      facts([[t('console.apps.client_id'), h('code', { id: 'created-client-id' }, created.client_id)]]),
      secretBox(
        t('console.apps.secret'),
        t('console.apps.secret_copy'),
        created.client_secret,
        'created-client-secret',
      ),
      h(
        'p',
        {},
        h(
          'a',
          { href: `#/apps/${encode(created.client_id)}`, id: 'created-continue' },
          t('console.apps.saved_open'),
        ),
      ),
    );
    f.replaceWith(shown);
    shown.querySelector<HTMLElement>('.notice')?.setAttribute('tabindex', '-1');
    shown.querySelector<HTMLElement>('.notice')?.focus();
  });
  return container;
}

export async function appPage(clientId: string): Promise<HTMLElement> {
  const app = (await listApps()).find((a) => a.client_id === clientId);
  if (!app) {
    return page(
      t('console.apps.not_found'),
      h('p', {}, h('a', { href: '#/apps' }, t('console.apps.back_to_apps'))),
    );
  }
  const path = `/v1/dev-user/clients/${encode(app.client_id)}`;
  const activity = await loadActivity(path);
  return page(
    app.name,
    h('p', {}, h('a', { href: '#/apps' }, t('console.apps.all'))),
    facts([
      [t('console.apps.client_id'), h('code', { id: 'app-client-id' }, app.client_id)],
      [t('console.apps.kind'), app.dapp ? t('console.apps.kind_dapp') : t('console.apps.kind_app')],
      [t('console.apps.created'), formatTime(app.created_at)],
    ]),
    app.org_id
      ? h(
          'p',
          {},
          h(
            'a',
            { href: `#/orgs/${encode(app.org_id)}/apps/${encode(app.client_id)}/players`, id: 'app-players' },
            t('console.apps.players_link'),
          ),
        )
      : null,
    activity ? activitySection(activity) : null,
    editSection(app, path),
    rotateSection(path),
    // The report lists the app's cuids: with none, the app has no provider and nothing to ask about it.
    await providerSection(app, activity ? activity.content.length > 0 : undefined),
    await webhooksSection(path),
    walletPolicySection(path),
    await sponsorshipSection(path),
    deleteSection(app, path),
  );
}

function editSection(app: App, path: string): HTMLElement {
  const name = field(t('console.apps.name'), {
    id: 'edit-name',
    name: 'name',
    required: true,
    maxlength: '200',
  });
  name.input.value = app.name;
  const uris = textarea(
    t('console.apps.redirect_uris'),
    { id: 'edit-redirect-uris', name: 'redirect_uris', required: true },
    app.redirect_uris.join('\n'),
    t('console.apps.edit_uris_hint'),
  );
  const f = form(
    'edit-app-form',
    name.wrapper,
    uris.wrapper,
    h('div', { class: 'actions' }, submit(t('console.apps.save'), 'edit-app-submit')),
  );
  onSubmit(f, async () => {
    await call('PATCH', path, { name: name.input.value.trim(), redirect_uris: lines(uris.input.value) });
    return t('console.apps.saved');
  });
  return h(
    'section',
    { 'aria-labelledby': 'edit-h' },
    h('h2', { id: 'edit-h' }, t('console.apps.edit_title')),
    f,
  );
}

function rotateSection(path: string): HTMLElement {
  const trigger = button(t('console.apps.rotate'), { id: 'rotate-secret', class: 'secondary' });
  const result = h('div', { id: 'rotated' });
  const confirm = confirmInline(
    trigger,
    t('console.apps.rotate_question'),
    t('console.apps.rotate_confirm'),
    async () => {
      const rotated = await call<Record<string, unknown>>('POST', `${path}/rotate-secret`);
      const grace = Object.entries(rotated).find(([key]) => /until|expires|grace/i.test(key));
      confirm.hidden = true;
      result.replaceChildren(
        notice(
          'warning',
          grace
            ? t('console.apps.rotated_until', { until: formatGrace(grace[1]) })
            : t('console.apps.rotated_grace'),
        ),
        secretBox(
          t('console.apps.new_secret'),
          t('console.apps.new_secret_copy'),
          String(rotated.client_secret ?? ''),
          'rotated-client-secret',
        ),
      );
    },
    'rotate-confirm',
  );
  return h(
    'section',
    { 'aria-labelledby': 'rotate-h' },
    h('h2', { id: 'rotate-h' }, t('console.apps.secret')),
    h('p', {}, t('console.apps.rotate_intro')),
    trigger,
    confirm,
    result,
  );
}

function formatGrace(value: unknown): string {
  if (typeof value === 'number') {
    return value > 1e11 ? formatTime(value) : t('console.apps.seconds_from_now', { seconds: value });
  }
  return formatTime(String(value));
}

/**
 * `hasProvider`: whether the app has a registered cuid, when the activity report said so. An app without
 * one is not asked for its payload form: the answer would be the expected 404 `provider_not_registered`,
 * which a browser still reports as a failed request in its console.
 */
async function providerSection(app: App, hasProvider?: boolean): Promise<HTMLElement> {
  const cuid = field(
    t('console.apps.provider.cuid'),
    { id: 'provider-cuid', name: 'cuid', required: true, maxlength: '128' },
    t('console.apps.provider.cuid_hint'),
  );
  const releasePer = field(
    t('console.apps.provider.release'),
    {
      id: 'provider-release',
      name: 'release_per',
      type: 'number',
      min: '0',
      max: '100',
      step: '1',
      required: true,
    },
    t('console.apps.provider.release_hint'),
  );
  releasePer.input.value = '100';
  const owner = field(
    t('console.apps.provider.owner'),
    {
      id: 'provider-owner',
      name: 'owner_addr',
      required: true,
      pattern: '^0x[0-9a-fA-F]{40}$',
      autocomplete: 'off',
    },
    t('console.apps.provider.owner_hint'),
  );
  const result = h('div', { id: 'provider-result' });
  const registeredMode = h('span', { id: 'provider-mode' });
  const f = form(
    'provider-form',
    cuid.wrapper,
    releasePer.wrapper,
    owner.wrapper,
    h('div', { class: 'actions' }, submit(t('console.apps.provider.submit'), 'provider-submit')),
  );
  // A new provider starts in the strong mode (decisions §7): authenticated GCM payloads, and the app's
  // client secret on every consumption call. A later cuid of the same app keeps the app's settings.
  let firstRegistration = false;
  onSubmit(f, async () => {
    const registered = await call<{
      tx_hash: string;
      encryption_key?: string;
      encryption_iv?: string;
      gcm_key?: string;
    }>('POST', '/v1/development-api/init_permission_provider', {
      client_id: app.client_id,
      cuid: cuid.input.value.trim(),
      release_per: Number(releasePer.input.value),
      owner_addr: owner.input.value.trim(),
      ...(firstRegistration ? { payload_mode: 'gcm', consume_auth: 'client_secret' } : {}),
    });
    firstRegistration = false;
    result.replaceChildren(
      facts([
        [
          t('console.apps.provider.terms'),
          t('console.apps.provider.terms_text', {
            cuid: cuid.input.value.trim(),
            percent: Number(releasePer.input.value),
            owner: owner.input.value.trim(),
          }),
        ],
        [t('console.apps.provider.transaction'), h('code', {}, registered.tx_hash)],
      ]),
      registered.encryption_key
        ? h(
            'div',
            {},
            notice('warning', t('console.apps.provider.keys_once')),
            secretBox(
              t('console.apps.provider.key'),
              t('console.apps.provider.key_copy'),
              registered.encryption_key,
              'provider-key',
            ),
            secretBox(
              t('console.apps.provider.iv'),
              t('console.apps.provider.iv_copy'),
              registered.encryption_iv ?? '',
              'provider-iv',
            ),
            ...(registered.gcm_key
              ? [
                  notice('warning', t('console.apps.provider.gcm_required')),
                  secretBox(
                    t('console.apps.provider.gcm_key'),
                    t('console.apps.provider.gcm_key_copy'),
                    registered.gcm_key,
                    'provider-gcm-key',
                  ),
                ]
              : []),
          )
        : h('p', {}, t('console.apps.provider.keys_exist')),
    );
    registeredMode.textContent = t('console.apps.provider.mode_registered');
    return t('console.apps.provider.registered');
  });
  let mode = t('console.apps.provider.mode_none');
  if (hasProvider === false) {
    firstRegistration = true;
  } else {
    try {
      const current = await call<{ payload_mode: string; has_gcm_key: boolean }>(
        'GET',
        `/v1/development-api/payload_mode?client_id=${encode(app.client_id)}`,
      );
      mode = current.has_gcm_key
        ? t('console.apps.provider.mode_gcm', { mode: current.payload_mode })
        : current.payload_mode;
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'provider_not_registered')) throw error;
      firstRegistration = true;
    }
  }
  registeredMode.textContent = mode;
  return h(
    'section',
    { 'aria-labelledby': 'provider-h' },
    h('h2', { id: 'provider-h' }, t('console.apps.provider.title')),
    facts([[t('console.apps.provider.mode'), registeredMode]]),
    f,
    result,
  );
}

function deleteSection(app: App, path: string): HTMLElement {
  const trigger = button(t('console.apps.delete'), { id: 'delete-app', class: 'danger' });
  const confirm = confirmInline(
    trigger,
    t('console.apps.delete_question', { name: app.name }),
    t('console.apps.delete_confirm'),
    async () => {
      await call('DELETE', path);
      flash('ok', t('console.apps.deleted', { name: app.name }));
      go('#/apps');
    },
    'delete-confirm',
  );
  return h(
    'section',
    { 'aria-labelledby': 'delete-h', class: 'danger-zone' },
    h('h2', { id: 'delete-h' }, t('console.apps.delete_title')),
    trigger,
    confirm,
  );
}
