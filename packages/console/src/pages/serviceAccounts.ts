import { call, encode } from '../api.js';
import { button, facts, field, h, notice, secretBox } from '../dom.js';
import { formatTime } from '../format.js';
import { confirmInline, flash, form, go, onSubmit, submit } from '../view.js';

/** An organization's service account (docs/machines.md): a machine client with management scopes. */
interface ServiceAccount {
  client_id: string;
  name: string;
  scopes: string[];
  created_by: string;
  created_at: string;
  last_used_at: string | null;
}

const SCOPES: [string, string][] = [
  ['apps:read', 'read apps, activity, webhooks, wallet policy'],
  ['apps:write', 'change redirect URIs and wallet policy'],
  ['webhooks:write', 'manage webhooks'],
  ['players:read', 'list, search and look up players'],
  ['players:write', 'revoke and pre-generate players'],
];

/**
 * The organization's service accounts, for its admins and owner: list, create (the secret shown once),
 * rotate a secret (shown once), delete. Creating, rotating and deleting need a fresh login (the step-up).
 */
export async function serviceAccountsSection(path: string): Promise<HTMLElement> {
  const { service_accounts: accounts } = await call<{ service_accounts: ServiceAccount[] }>(
    'GET',
    `${path}/service-accounts`,
  );
  const created = h('div', { id: 'created-service-account' });
  const name = field('Name', { id: 'sa-name', name: 'name', required: true, maxlength: '200' });
  const checks = SCOPES.map(([scope, what]) => {
    const id = `sa-scope-${scope.replace(':', '-')}`;
    const input = h('input', { type: 'checkbox', id, name: 'scopes', value: scope }) as HTMLInputElement;
    return {
      input,
      wrapper: h('div', { class: 'field check' }, input, h('label', { for: id }, `${scope} — ${what}`)),
    };
  });
  const f = form(
    'sa-form',
    name.wrapper,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Scopes'),
      checks.map((c) => c.wrapper),
    ),
    h('div', { class: 'actions' }, submit('Create service account', 'sa-submit')),
  );
  onSubmit(f, async () => {
    const scopes = checks.filter((c) => c.input.checked).map((c) => c.input.value);
    const account = await call<ServiceAccount & { client_secret: string }>(
      'POST',
      `${path}/service-accounts`,
      {
        name: name.input.value.trim(),
        scopes,
      },
    );
    // The secret lives only in this page's memory: shown once, above the refreshed list.
    created.replaceChildren(
      notice(
        'warning',
        'Copy the secret now: it is shown only once and cannot be recovered. Rotate it if it is lost.',
      ),
      facts([['Client id', h('code', { id: 'sa-created-id' }, account.client_id)]]),
      secretBox('Client secret', account.client_secret, 'sa-created-secret'),
    );
    name.input.value = '';
    for (const c of checks) c.input.checked = false;
    list.replaceWith((list = listOf(await reload())));
  });
  const reload = async () =>
    (await call<{ service_accounts: ServiceAccount[] }>('GET', `${path}/service-accounts`)).service_accounts;
  const listOf = (items: ServiceAccount[]): HTMLElement =>
    items.length
      ? h(
          'ul',
          { class: 'cards', id: 'sa-list' },
          items.map((account) => accountCard(path, account)),
        )
      : h('p', { id: 'sa-list' }, 'No service accounts.');
  let list = listOf(accounts);
  return h(
    'section',
    { 'aria-labelledby': 'sa-h' },
    h('h2', { id: 'sa-h' }, 'Service accounts'),
    h(
      'p',
      {},
      'Machine clients of this organization (CI, support tools, backends): they get tokens with ',
      h('code', {}, 'grant_type=client_credentials'),
      ' and act within their scopes.',
    ),
    created,
    list,
    h('h3', {}, 'New service account'),
    f,
  );
}

function accountCard(path: string, account: ServiceAccount): HTMLElement {
  const accountPath = `${path}/service-accounts/${encode(account.client_id)}`;
  const rotated = h('div', { class: 'rotated' });
  const rotate = button('Rotate secret…', { class: 'secondary', 'data-rotate': account.client_id });
  const rotateConfirm = confirmInline(
    rotate,
    `Issue a new secret for ${account.name}? The old one keeps working for the grace period.`,
    'Rotate now',
    async () => {
      const answer = await call<{ client_secret: string; old_secret_valid_until: string }>(
        'POST',
        `${accountPath}/rotate-secret`,
      );
      rotateConfirm.hidden = true;
      rotated.replaceChildren(
        notice(
          'warning',
          `Copy the new secret now: it is shown only once. The old secret keeps working until ${formatTime(
            answer.old_secret_valid_until,
          )}.`,
        ),
        secretBox('New client secret', answer.client_secret, `sa-rotated-${account.client_id}`),
      );
    },
  );
  const remove = button('Delete…', { class: 'danger', 'data-delete': account.client_id });
  const removeConfirm = confirmInline(
    remove,
    `Delete ${account.name}? Its secrets and tokens stop working at once.`,
    'Delete for good',
    async () => {
      await call('DELETE', accountPath);
      flash('ok', `${account.name} was deleted.`);
      go(location.hash);
    },
  );
  return h(
    'li',
    { class: 'card', 'data-service-account': account.client_id },
    h('h4', {}, account.name),
    facts([
      ['Client id', h('code', {}, account.client_id)],
      ['Scopes', account.scopes.join(', ') || 'none'],
      ['Created', formatTime(account.created_at)],
      ['Last used', account.last_used_at ? formatTime(account.last_used_at) : 'never'],
    ]),
    h('div', { class: 'actions' }, rotate, remove),
    rotateConfirm,
    removeConfirm,
    rotated,
  );
}
