import { call, encode } from '../api.js';
import { button, facts, h, notice } from '../dom.js';
import { confirmInline, describeError, page } from '../view.js';

type Json = Record<string, unknown>;

/** Renders any scalar the API returns as text; nested values as compact JSON. */
const text = (value: unknown): string =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/** `snake_case` keys as readable labels, so new fields show up without a console release. */
const label = (key: string): string => key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

async function section(id: string, title: string, load: () => Promise<Node>): Promise<HTMLElement> {
  let body: Node;
  try {
    body = await load();
  } catch (error) {
    body = notice('error', describeError(error));
  }
  return h('section', { id, 'aria-labelledby': `${id}-h` }, h('h2', { id: `${id}-h` }, title), body);
}

export async function accountPage(): Promise<HTMLElement> {
  const sections = await Promise.all([
    section('wallet', 'Main wallet', async () => {
      const wallet = await call<Json>('GET', '/v1/dev-user/wallet');
      const rows = Object.entries(wallet).filter(([key]) => key !== 'success');
      if (!wallet.address && !wallet.wallet_address)
        return h('p', {}, 'No wallet yet: it is created when you set a PIN in an app.');
      return facts(rows.map(([key, value]) => [label(key), h('code', {}, text(value))]));
    }),
    section('slots', 'Slots', async () => {
      const { slots } = await call<{ slots?: Json[] }>('GET', '/v1/dev-user/slots');
      if (!slots?.length) return h('p', {}, 'No slots yet.');
      return h(
        'ul',
        { class: 'cards' },
        slots.map((slot) =>
          h(
            'li',
            { class: 'card slot' },
            h('h3', {}, text(slot.app_name ?? slot.name ?? slot.client_id)),
            facts(
              Object.entries(slot)
                .filter(([key]) => key !== 'app_name')
                .map(([key, value]) => [label(key), balances(value)]),
            ),
          ),
        ),
      );
    }),
    section('operations', 'Wallet operations', async () => {
      const { operations } = await call<{ operations?: Json[] }>('GET', '/v1/dev-user/operations');
      if (!operations?.length) return h('p', {}, 'No pending or recent operations.');
      return h(
        'ul',
        { class: 'cards' },
        operations.map((operation) =>
          h(
            'li',
            { class: 'card' },
            facts(Object.entries(operation).map(([key, value]) => [label(key), h('code', {}, text(value))])),
          ),
        ),
      );
    }),
    section('consents', 'Apps you approved', async () => {
      const { consents } = await call<{ consents?: Json[] }>('GET', '/v1/dev-user/consents');
      if (!consents?.length) return h('p', {}, 'You have not approved any app.');
      return h('ul', { class: 'cards' }, consents.map(consentCard));
    }),
  ]);
  return page('Your account', ...sections);
}

/** Content balances come as an array of `{cuid, balance, used_balances}` or a map cuid → amount. */
function balances(value: unknown): Node {
  if (Array.isArray(value)) {
    return h(
      'ul',
      { class: 'plain' },
      value.map((entry: unknown) =>
        h(
          'li',
          {},
          typeof entry === 'object' && entry !== null
            ? Object.entries(entry)
                .map(([k, v]) => `${label(k)}: ${text(v)}`)
                .join(', ')
            : text(entry),
        ),
      ),
    );
  }
  if (typeof value === 'object' && value !== null) {
    return h(
      'ul',
      { class: 'plain' },
      Object.entries(value).map(([k, v]) => h('li', {}, `${k}: ${text(v)}`)),
    );
  }
  return h('code', {}, text(value));
}

function consentCard(consent: Json): HTMLElement {
  const name = text(consent.name ?? consent.client_name ?? consent.client_id);
  const clientId = text(consent.client_id);
  const trigger = button(`Revoke ${name}`, { class: 'danger', 'data-revoke': clientId });
  const card = h('li', { class: 'card consent' });
  const confirm = confirmInline(
    trigger,
    `Revoke ${name}? It loses access at once and must ask you again.`,
    'Revoke access',
    async () => {
      await call('DELETE', `/v1/dev-user/consents/${encode(clientId)}`);
      card.replaceChildren(notice('ok', `${name} no longer has access.`));
    },
  );
  card.append(
    h('h3', {}, name),
    facts([
      ['Client id', h('code', {}, clientId)],
      ['Since', consent.since ? new Date(String(consent.since)).toLocaleString() : '—'],
      [
        'Scopes',
        Array.isArray(consent.scopes)
          ? consent.scopes.join(' ') || '—'
          : text(consent.scopes ?? consent.scope),
      ],
    ]),
    trigger,
    confirm,
  );
  return card;
}
