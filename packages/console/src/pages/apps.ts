import { ApiError, call, encode } from '../api.js';
import { button, facts, field, h, notice, secretBox, textarea } from '../dom.js';
import { confirmInline, flash, form, go, onSubmit, page, submit } from '../view.js';
import { formatTime } from '../format.js';
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
              ['Client id', h('code', {}, app.client_id)],
              ['Redirect URIs', app.redirect_uris.join(', ')],
              ['Created', formatTime(app.created_at)],
            ]),
          ),
        ),
      )
    : h('p', { id: 'app-list' }, 'You have no apps yet.');
  const invited = pendingInvitation();
  return page(
    'Your apps',
    invited
      ? h(
          'p',
          { class: 'notice warning' },
          h(
            'a',
            { href: '#/invitations', id: 'pending-invitation' },
            'You have an organization invitation to accept.',
          ),
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
        'Register an app',
      ),
    ),
    // The switcher, once there is more than one organization to switch between.
    orgs.length > 1 ? orgSwitcher(orgs, selected) : null,
    list,
  );
}

export async function newAppPage(query: URLSearchParams = new URLSearchParams()): Promise<HTMLElement> {
  const org = orgChoice(await listOrgs(), query.get('org') ?? undefined);
  const name = field('App name', { id: 'app-name', name: 'name', required: true, maxlength: '200' });
  const uris = textarea(
    'Redirect URIs',
    { id: 'app-redirect-uris', name: 'redirect_uris', required: true },
    '',
    'One per line, exactly as your app sends them (https, or http on localhost).',
  );
  const dapp = h('input', { type: 'checkbox', id: 'app-dapp', name: 'dapp' }) as HTMLInputElement;
  const f = form(
    'new-app-form',
    name.wrapper,
    uris.wrapper,
    org.wrapper,
    h(
      'div',
      { class: 'field check' },
      dapp,
      h('label', { for: 'app-dapp' }, 'Decentralised app (gets the user’s wallet address)'),
    ),
    h('div', { class: 'actions' }, submit('Register app', 'new-app-submit')),
  );
  const container = page('Register an app', f);
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
      notice(
        'warning',
        'Copy the client secret now: it is shown only once and cannot be recovered. Rotate it if it is lost.',
      ),
      facts([['Client id', h('code', { id: 'created-client-id' }, created.client_id)]]),
      secretBox('Client secret', created.client_secret, 'created-client-secret'),
      h(
        'p',
        {},
        h(
          'a',
          { href: `#/apps/${encode(created.client_id)}`, id: 'created-continue' },
          'I saved it: open the app',
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
  if (!app) return page('App not found', h('p', {}, h('a', { href: '#/apps' }, 'Back to your apps')));
  const path = `/v1/dev-user/clients/${encode(app.client_id)}`;
  const activity = await loadActivity(path);
  return page(
    app.name,
    h('p', {}, h('a', { href: '#/apps' }, '← All apps')),
    facts([
      ['Client id', h('code', { id: 'app-client-id' }, app.client_id)],
      ['Kind', app.dapp ? 'Decentralised app' : 'App'],
      ['Created', formatTime(app.created_at)],
    ]),
    app.org_id
      ? h(
          'p',
          {},
          h(
            'a',
            { href: `#/orgs/${encode(app.org_id)}/apps/${encode(app.client_id)}/players`, id: 'app-players' },
            'Players: search, details, revoke',
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
  const name = field('App name', { id: 'edit-name', name: 'name', required: true, maxlength: '200' });
  name.input.value = app.name;
  const uris = textarea(
    'Redirect URIs',
    { id: 'edit-redirect-uris', name: 'redirect_uris', required: true },
    app.redirect_uris.join('\n'),
    'One per line. A URI you remove is refused from then on.',
  );
  const f = form(
    'edit-app-form',
    name.wrapper,
    uris.wrapper,
    h('div', { class: 'actions' }, submit('Save changes', 'edit-app-submit')),
  );
  onSubmit(f, async () => {
    await call('PATCH', path, { name: name.input.value.trim(), redirect_uris: lines(uris.input.value) });
    return 'Saved.';
  });
  return h(
    'section',
    { 'aria-labelledby': 'edit-h' },
    h('h2', { id: 'edit-h' }, 'Name and redirect URIs'),
    f,
  );
}

function rotateSection(path: string): HTMLElement {
  const trigger = button('Rotate secret…', { id: 'rotate-secret', class: 'secondary' });
  const result = h('div', { id: 'rotated' });
  const confirm = confirmInline(
    trigger,
    'Issue a new client secret? You need to confirm your password.',
    'Rotate now',
    async () => {
      const rotated = await call<Record<string, unknown>>('POST', `${path}/rotate-secret`);
      const grace = Object.entries(rotated).find(([key]) => /until|expires|grace/i.test(key));
      confirm.hidden = true;
      result.replaceChildren(
        notice(
          'warning',
          `Copy the new secret now: it is shown only once. The old secret keeps working ${
            grace ? `until ${formatGrace(grace[1])}` : 'for the grace period (24 hours by default)'
          }, so deploy the new one before then.`,
        ),
        secretBox('New client secret', String(rotated.client_secret ?? ''), 'rotated-client-secret'),
      );
    },
    'rotate-confirm',
  );
  return h(
    'section',
    { 'aria-labelledby': 'rotate-h' },
    h('h2', { id: 'rotate-h' }, 'Client secret'),
    h('p', {}, 'The secret was shown once when the app was created. Rotate it if it leaked or was lost.'),
    trigger,
    confirm,
    result,
  );
}

function formatGrace(value: unknown): string {
  if (typeof value === 'number') return value > 1e11 ? formatTime(value) : `${value} seconds from now`;
  return formatTime(String(value));
}

/**
 * `hasProvider`: whether the app has a registered cuid, when the activity report said so. An app without
 * one is not asked for its payload form: the answer would be the expected 404 `provider_not_registered`,
 * which a browser still reports as a failed request in its console.
 */
async function providerSection(app: App, hasProvider?: boolean): Promise<HTMLElement> {
  const cuid = field(
    'Content id (cuid)',
    { id: 'provider-cuid', name: 'cuid', required: true, maxlength: '128' },
    'One per game or content.',
  );
  const releasePer = field(
    'Settlement ratio (%)',
    {
      id: 'provider-release',
      name: 'release_per',
      type: 'number',
      min: '0',
      max: '100',
      step: '1',
      required: true,
    },
    'Share of used balances released to you, 0–100.',
  );
  releasePer.input.value = '100';
  const owner = field(
    'Provider wallet address',
    {
      id: 'provider-owner',
      name: 'owner_addr',
      required: true,
      pattern: '^0x[0-9a-fA-F]{40}$',
      autocomplete: 'off',
    },
    'Receives the 85% revenue share and the releases.',
  );
  const result = h('div', { id: 'provider-result' });
  const registeredMode = h('span', { id: 'provider-mode' });
  const f = form(
    'provider-form',
    cuid.wrapper,
    releasePer.wrapper,
    owner.wrapper,
    h('div', { class: 'actions' }, submit('Register content provider', 'provider-submit')),
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
          'Terms',
          `cuid ${cuid.input.value.trim()}, ${releasePer.input.value}% released, paid to ${owner.input.value.trim()}`,
        ],
        ['Transaction', h('code', {}, registered.tx_hash)],
      ]),
      registered.encryption_key
        ? h(
            'div',
            {},
            notice(
              'warning',
              'Copy the encryption key and IV now: your backend encrypts consumption records with them, and they are shown only on the app’s first registration.',
            ),
            secretBox('Encryption key', registered.encryption_key, 'provider-key'),
            secretBox('Encryption IV', registered.encryption_iv ?? '', 'provider-iv'),
            ...(registered.gcm_key
              ? [
                  notice(
                    'warning',
                    'This app requires AES-256-GCM payloads and its client secret (HTTP Basic) on every consumption call; the SDKs’ content consumer does both.',
                  ),
                  secretBox('AES-256-GCM key', registered.gcm_key, 'provider-gcm-key'),
                ]
              : []),
          )
        : h(
            'p',
            {},
            'This app already has its key and IV (shown at its first registration); they apply to this cuid too.',
          ),
    );
    registeredMode.textContent = 'registered (reload to see its payload form)';
    return 'Content provider registered.';
  });
  let mode = 'none yet: register a cuid below';
  if (hasProvider === false) {
    firstRegistration = true;
  } else {
    try {
      const current = await call<{ payload_mode: string; has_gcm_key: boolean }>(
        'GET',
        `/v1/development-api/payload_mode?client_id=${encode(app.client_id)}`,
      );
      mode = `${current.payload_mode}${current.has_gcm_key ? ' (GCM key issued)' : ''}`;
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'provider_not_registered')) throw error;
      firstRegistration = true;
    }
  }
  registeredMode.textContent = mode;
  return h(
    'section',
    { 'aria-labelledby': 'provider-h' },
    h('h2', { id: 'provider-h' }, 'Content providers'),
    facts([['Registered provider (payload form)', registeredMode]]),
    f,
    result,
  );
}

function deleteSection(app: App, path: string): HTMLElement {
  const trigger = button('Delete app…', { id: 'delete-app', class: 'danger' });
  const confirm = confirmInline(
    trigger,
    `Delete “${app.name}”? Every token it holds stops working at once. This cannot be undone.`,
    'Delete for good',
    async () => {
      await call('DELETE', path);
      flash('ok', `“${app.name}” was deleted.`);
      go('#/apps');
    },
    'delete-confirm',
  );
  return h(
    'section',
    { 'aria-labelledby': 'delete-h', class: 'danger-zone' },
    h('h2', { id: 'delete-h' }, 'Delete'),
    trigger,
    confirm,
  );
}
