import { call, encode } from '../api.js';
import { button, facts, field, h, notice, secretBox } from '../dom.js';
import { formatTime } from '../format.js';
import { confirmInline, flash, form, go, onSubmit, submit } from '../view.js';
import type { MessageKey } from '../i18n/catalogues/index.js';
import { rich, t } from '../i18n/translator.js';

/** An organization's service account (docs/machines.md): a machine client with management scopes. */
interface ServiceAccount {
  client_id: string;
  name: string;
  scopes: string[];
  created_by: string;
  created_at: string;
  last_used_at: string | null;
}

const SCOPES: [string, MessageKey][] = [
  ['apps:read', 'console.sa.scope.apps_read'],
  ['apps:write', 'console.sa.scope.apps_write'],
  ['webhooks:write', 'console.sa.scope.webhooks_write'],
  ['players:read', 'console.sa.scope.players_read'],
  ['players:write', 'console.sa.scope.players_write'],
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
  const name = field(t('console.sa.name'), { id: 'sa-name', name: 'name', required: true, maxlength: '200' });
  const checks = SCOPES.map(([scope, what]) => {
    const id = `sa-scope-${scope.replace(':', '-')}`;
    const input = h('input', { type: 'checkbox', id, name: 'scopes', value: scope }) as HTMLInputElement;
    return {
      input,
      wrapper: h(
        'div',
        { class: 'field check' },
        input,
        h('label', { for: id }, t('console.sa.scope', { scope, what: t(what) })),
      ),
    };
  });
  const f = form(
    'sa-form',
    name.wrapper,
    h(
      'fieldset',
      {},
      h('legend', {}, t('console.sa.scopes')),
      checks.map((c) => c.wrapper),
    ),
    h('div', { class: 'actions' }, submit(t('console.sa.create'), 'sa-submit')),
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
      notice('warning', t('console.sa.secret_once')),
      facts([[t('console.sa.client_id'), h('code', { id: 'sa-created-id' }, account.client_id)]]),
      secretBox(
        t('console.sa.secret'),
        t('console.sa.secret_copy'),
        account.client_secret,
        'sa-created-secret',
      ),
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
      : h('p', { id: 'sa-list' }, t('console.sa.none'));
  let list = listOf(accounts);
  return h(
    'section',
    { 'aria-labelledby': 'sa-h' },
    h('h2', { id: 'sa-h' }, t('console.sa.title')),
    h('p', {}, rich('console.sa.intro', { grant: h('code', {}, 'grant_type=client_credentials') })),
    created,
    list,
    h('h3', {}, t('console.sa.new')),
    f,
  );
}

function accountCard(path: string, account: ServiceAccount): HTMLElement {
  const accountPath = `${path}/service-accounts/${encode(account.client_id)}`;
  const rotated = h('div', { class: 'rotated' });
  const rotate = button(t('console.sa.rotate'), { class: 'secondary', 'data-rotate': account.client_id });
  const rotateConfirm = confirmInline(
    rotate,
    t('console.sa.rotate_question', { name: account.name }),
    t('console.sa.rotate_confirm'),
    async () => {
      const answer = await call<{ client_secret: string; old_secret_valid_until: string }>(
        'POST',
        `${accountPath}/rotate-secret`,
      );
      rotateConfirm.hidden = true;
      rotated.replaceChildren(
        notice('warning', t('console.sa.rotated', { until: formatTime(answer.old_secret_valid_until) })),
        secretBox(
          t('console.sa.new_secret'),
          t('console.sa.new_secret_copy'),
          answer.client_secret,
          `sa-rotated-${account.client_id}`,
        ),
      );
    },
  );
  const remove = button(t('console.sa.delete'), { class: 'danger', 'data-delete': account.client_id });
  const removeConfirm = confirmInline(
    remove,
    t('console.sa.delete_question', { name: account.name }),
    t('console.sa.delete_confirm'),
    async () => {
      await call('DELETE', accountPath);
      flash('ok', t('console.sa.deleted', { name: account.name }));
      go(location.hash);
    },
  );
  return h(
    'li',
    { class: 'card', 'data-service-account': account.client_id },
    h('h4', {}, account.name),
    facts([
      [t('console.sa.client_id'), h('code', {}, account.client_id)],
      [t('console.sa.scopes'), account.scopes.join(', ') || t('console.sa.no_scopes')],
      [t('console.sa.created'), formatTime(account.created_at)],
      [
        t('console.sa.last_used'),
        account.last_used_at ? formatTime(account.last_used_at) : t('console.sa.never'),
      ],
    ]),
    h('div', { class: 'actions' }, rotate, remove),
    rotateConfirm,
    removeConfirm,
    rotated,
  );
}
