import { call, encode } from '../api.js';
import { button, type Child, facts, h, notice } from '../dom.js';
import { amount, type AmountKind, formatTime, groupDigits } from '../format.js';
import { confirmInline, describeError, page } from '../view.js';
import { identitiesSection } from './identities.js';
import { sessionKeysSection } from './sessionKeys.js';

interface Wallet {
  address: string | null;
  native_balance: string | null;
  token_balance: string | null;
}

interface Slot {
  slot_id: string;
  client_id: string;
  app_name: string | null;
  content_address: string;
  balances: { cuid: string; balance: string; used: string }[];
}

interface Operation {
  at: string;
  action: string;
  outcome: string;
  status: number;
  /** The app the operation was made for or through (a session operation's app). */
  client_id: string | null;
  details: Record<string, unknown>;
}

interface Consent {
  client_id: string;
  name: string;
  since: string;
  scopes: string[];
}

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
      const wallet = await call<Wallet>('GET', '/v1/dev-user/wallet');
      if (!wallet.address) return h('p', {}, 'No wallet yet: it is created when you set a PIN in an app.');
      return facts([
        ['Address', h('code', {}, wallet.address)],
        ['Balance', wallet.native_balance === null ? 'Unknown' : amount(wallet.native_balance, 'ether')],
        [
          'Platform tokens',
          wallet.token_balance === null ? 'Unknown' : amount(wallet.token_balance, 'token'),
        ],
      ]);
    }),
    section('slots', 'Slots', async () => {
      const { slots } = await call<{ slots: Slot[] }>('GET', '/v1/dev-user/slots');
      if (!slots.length) return h('p', {}, 'No slots yet.');
      return h('ul', { class: 'cards' }, slots.map(slotCard));
    }),
    section('operations', 'Wallet operations', async () => {
      const { operations } = await call<{ operations: Operation[] }>('GET', '/v1/dev-user/operations');
      if (!operations.length) return h('p', {}, 'No pending or recent operations.');
      return h('ul', { class: 'cards' }, operations.map(operationCard));
    }),
    section('consents', 'Apps you approved', async () => {
      const { consents } = await call<{ consents: Consent[] }>('GET', '/v1/dev-user/consents');
      if (!consents.length) return h('p', {}, 'You have not approved any app.');
      return h('ul', { class: 'cards' }, consents.map(consentCard));
    }),
    // Sections over endpoints a service may not have yet: absent (null) when it answers 404.
    sessionKeysSection(),
    identitiesSection(),
  ]);
  return page('Your account', ...sections);
}

function slotCard(slot: Slot): HTMLElement {
  return h(
    'li',
    { class: 'card slot', 'data-slot': slot.slot_id },
    h('h3', {}, slot.app_name ?? `App ${slot.client_id}`),
    facts([
      ['Slot id', h('code', {}, slot.slot_id)],
      ['App (client id)', h('code', {}, slot.client_id)],
      ['Content wallet', h('code', {}, slot.content_address)],
      [
        'Content balances',
        slot.balances.length
          ? h(
              'ul',
              { class: 'plain' },
              slot.balances.map((b) =>
                h(
                  'li',
                  { 'data-cuid': b.cuid },
                  h('code', {}, b.cuid),
                  ': ',
                  amount(b.balance, 'units'),
                  ' left, ',
                  amount(b.used, 'units'),
                  ' used',
                ),
              ),
            )
          : 'No content bought yet',
      ],
    ]),
  );
}

/** What each audited wallet action is called on the page. */
const ACTIONS: Record<string, string> = {
  'pin.register': 'Wallet created (PIN set)',
  'pin.verify': 'Wallet operation confirmed with the PIN',
  'pin.reset': 'PIN changed',
  'pin.recover': 'PIN recovered',
  'token.transfer': 'Token transfer',
  'slot.transfer': 'Slot transfer',
  'market.purchase': 'Marketplace purchase',
  'content.purchase': 'Content purchase',
  'content.release': 'Content release',
  'session_key.grant': 'App granted a session key',
  'session_key.operation': 'Operation by an app’s session key',
  'session_key.revoke': 'Session key revoked',
};

const OUTCOMES: Record<string, string> = { success: 'Done', denied: 'Refused', failure: 'Failed' };

/** Labels of the operation fields the audit trail keeps (docs/accounts.md); others get their key spelt out. */
const FIELDS: Record<string, string> = {
  client_id: 'App (client id)',
  cuid: 'Content (cuid)',
  cu_id: 'Content (cuid)',
  user_dbkey: 'Slot id',
  slot_id: 'Slot id',
  slot: 'Slot',
  amount: 'Amount',
  price: 'Price',
  address: 'Wallet',
  from_address: 'From',
  to_address: 'To',
  contract_address: 'Token contract',
  tx_hash: 'Transaction',
  transaction_hash: 'Transaction',
  user_op_hash: 'User operation',
  listing_id: 'Listing',
  from_uuid: 'From account',
  to_uuid: 'To account',
  meta_idx: 'Slot index',
  calls: 'Calls',
  session_key: 'Session key',
  valid_until: 'Valid until',
};

const label = (key: string): string =>
  FIELDS[key] ?? key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** The unit of an operation's `amount`: content units for content, the platform token for transfers. */
function amountKind(action: string, details: Record<string, unknown>): AmountKind | undefined {
  if (action.startsWith('content.')) return 'units';
  if (action === 'token.transfer' && details.contract_address === undefined) return 'token';
  return undefined;
}

function fieldValue(action: string, key: string, value: unknown, details: Record<string, unknown>): Child {
  if (value === null || value === undefined || value === '') return null;
  if (key === 'calls' && Array.isArray(value)) {
    if (!value.length) return null;
    return h(
      'ol',
      { class: 'plain' },
      value.map((c: unknown) => {
        const entry = (c ?? {}) as { to?: unknown; value?: unknown; selector?: unknown };
        return h(
          'li',
          {},
          'To ',
          h('code', {}, String(entry.to ?? '')),
          ', ',
          amount(String(entry.value ?? '0'), 'ether'),
          entry.selector ? [', function ', h('code', {}, String(entry.selector))] : null,
        );
      }),
    );
  }
  const text = String(value);
  if ((key === 'amount' || key === 'price') && /^\d+$/.test(text)) {
    const kind = key === 'price' ? 'ether' : amountKind(action, details);
    return kind ? amount(text, kind) : h('code', { title: `${text} base units` }, groupDigits(text));
  }
  if (typeof value === 'object') {
    const rows = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== null && v !== undefined,
    );
    return rows.length ? facts(rows.map(([k, v]) => [label(k), String(v)])) : null;
  }
  return h('code', {}, text);
}

/** An operation as fields: what, when, the outcome, and each detail with its label and unit. */
function operationCard(operation: Operation): HTMLElement {
  const rows: [string, string | Node][] = [
    ['When', formatTime(operation.at)],
    [
      'Outcome',
      `${OUTCOMES[operation.outcome] ?? operation.outcome}${operation.outcome === 'success' ? '' : ` (HTTP ${operation.status})`}`,
    ],
  ];
  if (operation.client_id && operation.details.client_id === undefined) {
    rows.push([label('client_id'), operation.client_id]);
  }
  for (const [key, value] of Object.entries(operation.details)) {
    const shown = fieldValue(operation.action, key, value, operation.details);
    if (shown) rows.push([label(key), shown as string | Node]);
  }
  return h(
    'li',
    { class: 'card operation', 'data-action': operation.action },
    h('h3', {}, ACTIONS[operation.action] ?? operation.action),
    facts(rows),
  );
}

function consentCard(consent: Consent): HTMLElement {
  const name = consent.name || `App ${consent.client_id}`;
  const trigger = button(`Revoke ${name}`, { class: 'danger', 'data-revoke': consent.client_id });
  const card = h('li', { class: 'card consent' });
  const confirm = confirmInline(
    trigger,
    `Revoke ${name}? It loses access at once and must ask you again.`,
    'Revoke access',
    async () => {
      await call('DELETE', `/v1/dev-user/consents/${encode(consent.client_id)}`);
      card.replaceChildren(notice('ok', `${name} no longer has access.`));
    },
  );
  card.append(
    h('h3', {}, name),
    facts([
      ['Client id', h('code', {}, consent.client_id)],
      ['Since', formatTime(consent.since)],
      ['Scopes', consent.scopes.length ? consent.scopes.join(' ') : 'Sign-in only (no extra scopes)'],
    ]),
    trigger,
    confirm,
  );
  return card;
}
