import { call, encode } from '../api.js';
import { button, type Child, facts, h, notice } from '../dom.js';
import { amount, type AmountKind, formatTime, groupDigits } from '../format.js';
import type { MessageKey } from '../i18n/catalogues/index.js';
import { rich, t } from '../i18n/translator.js';
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
    section('wallet', t('console.account.wallet.title'), async () => {
      const wallet = await call<Wallet>('GET', '/v1/dev-user/wallet');
      if (!wallet.address) return h('p', {}, t('console.account.wallet.none'));
      const unknown = t('console.account.wallet.unknown');
      return facts([
        [t('console.account.wallet.address'), h('code', {}, wallet.address)],
        [
          t('console.account.wallet.balance'),
          wallet.native_balance === null ? unknown : amount(wallet.native_balance, 'ether'),
        ],
        [
          t('console.account.wallet.tokens'),
          wallet.token_balance === null ? unknown : amount(wallet.token_balance, 'token'),
        ],
      ]);
    }),
    section('slots', t('console.account.slots.title'), async () => {
      const { slots } = await call<{ slots: Slot[] }>('GET', '/v1/dev-user/slots');
      if (!slots.length) return h('p', {}, t('console.account.slots.none'));
      return h('ul', { class: 'cards' }, slots.map(slotCard));
    }),
    section('operations', t('console.account.operations.title'), async () => {
      const { operations } = await call<{ operations: Operation[] }>('GET', '/v1/dev-user/operations');
      if (!operations.length) return h('p', {}, t('console.account.operations.none'));
      return h('ul', { class: 'cards' }, operations.map(operationCard));
    }),
    section('consents', t('console.account.consents.title'), async () => {
      const { consents } = await call<{ consents: Consent[] }>('GET', '/v1/dev-user/consents');
      if (!consents.length) return h('p', {}, t('console.account.consents.none'));
      return h('ul', { class: 'cards' }, consents.map(consentCard));
    }),
    // Sections over endpoints a service may not have yet: absent (null) when it answers 404.
    sessionKeysSection(),
    identitiesSection(),
  ]);
  return page(t('console.account.title'), ...sections);
}

function slotCard(slot: Slot): HTMLElement {
  return h(
    'li',
    { class: 'card slot', 'data-slot': slot.slot_id },
    h('h3', {}, slot.app_name ?? t('console.account.app_fallback', { id: slot.client_id })),
    facts([
      [t('console.account.field.slot_id'), h('code', {}, slot.slot_id)],
      [t('console.account.field.client_id'), h('code', {}, slot.client_id)],
      [t('console.account.slots.content_wallet'), h('code', {}, slot.content_address)],
      [
        t('console.account.slots.balances'),
        slot.balances.length
          ? h(
              'ul',
              { class: 'plain' },
              slot.balances.map((b) =>
                h(
                  'li',
                  { 'data-cuid': b.cuid },
                  rich('console.account.slots.balance', {
                    cuid: h('code', {}, b.cuid),
                    left: amount(b.balance, 'units'),
                    used: amount(b.used, 'units'),
                  }),
                ),
              ),
            )
          : t('console.account.slots.no_content'),
      ],
    ]),
  );
}

/** What each audited wallet action is called on the page. */
const ACTIONS: Record<string, MessageKey> = {
  'pin.register': 'console.account.action.pin_register',
  'pin.verify': 'console.account.action.pin_verify',
  'pin.reset': 'console.account.action.pin_reset',
  'pin.recover': 'console.account.action.pin_recover',
  'token.transfer': 'console.account.action.token_transfer',
  'slot.transfer': 'console.account.action.slot_transfer',
  'market.purchase': 'console.account.action.market_purchase',
  'content.purchase': 'console.account.action.content_purchase',
  'content.release': 'console.account.action.content_release',
  'session_key.grant': 'console.account.action.session_key_grant',
  'session_key.operation': 'console.account.action.session_key_operation',
  'session_key.revoke': 'console.account.action.session_key_revoke',
};

const OUTCOMES: Record<string, MessageKey> = {
  success: 'console.account.outcome.success',
  denied: 'console.account.outcome.denied',
  failure: 'console.account.outcome.failure',
};

/** Labels of the operation fields the audit trail keeps (docs/accounts.md); others get their key spelt out. */
const FIELDS: Record<string, MessageKey> = {
  client_id: 'console.account.field.client_id',
  cuid: 'console.account.field.cuid',
  cu_id: 'console.account.field.cuid',
  user_dbkey: 'console.account.field.slot_id',
  slot_id: 'console.account.field.slot_id',
  slot: 'console.account.field.slot',
  amount: 'console.account.field.amount',
  price: 'console.account.field.price',
  address: 'console.account.field.address',
  from_address: 'console.account.field.from_address',
  to_address: 'console.account.field.to_address',
  contract_address: 'console.account.field.contract_address',
  tx_hash: 'console.account.field.tx_hash',
  transaction_hash: 'console.account.field.tx_hash',
  user_op_hash: 'console.account.field.user_op_hash',
  listing_id: 'console.account.field.listing_id',
  from_uuid: 'console.account.field.from_uuid',
  to_uuid: 'console.account.field.to_uuid',
  meta_idx: 'console.account.field.meta_idx',
  calls: 'console.account.field.calls',
  session_key: 'console.account.field.session_key',
  valid_until: 'console.account.field.valid_until',
};

/** A known key's label, else the key itself spelt out (`max_fee` → `Max fee`): a value the service added later. */
const named = <K extends string>(table: Record<string, K>, key: string): K | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;
const label = (key: string): string => {
  const known = named(FIELDS, key);
  return known ? t(known) : key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
};

const actionName = (action: string): string => {
  const known = named(ACTIONS, action);
  return known ? t(known) : action;
};

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
        const to = h('code', {}, String(entry.to ?? ''));
        const paid = amount(String(entry.value ?? '0'), 'ether');
        return h(
          'li',
          {},
          entry.selector
            ? rich('console.account.call_function', {
                to,
                value: paid,
                selector: h('code', {}, String(entry.selector)),
              })
            : rich('console.account.call', { to, value: paid }),
        );
      }),
    );
  }
  const text = String(value);
  if ((key === 'amount' || key === 'price') && /^\d+$/.test(text)) {
    const kind = key === 'price' ? 'ether' : amountKind(action, details);
    return kind
      ? amount(text, kind)
      : h('code', { title: t('console.amount.exact.base', { raw: text }) }, groupDigits(text));
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
  const outcomeKey = named(OUTCOMES, operation.outcome);
  const outcome = outcomeKey ? t(outcomeKey) : operation.outcome;
  const rows: [string, string | Node][] = [
    [t('console.account.operations.when'), formatTime(operation.at)],
    [
      t('console.account.operations.outcome'),
      operation.outcome === 'success'
        ? outcome
        : t('console.account.operations.outcome_status', { outcome, status: String(operation.status) }),
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
    h('h3', {}, actionName(operation.action)),
    facts(rows),
  );
}

function consentCard(consent: Consent): HTMLElement {
  const name = consent.name || t('console.account.app_fallback', { id: consent.client_id });
  const trigger = button(t('console.account.consents.revoke', { name }), {
    class: 'danger',
    'data-revoke': consent.client_id,
  });
  const card = h('li', { class: 'card consent' });
  const confirm = confirmInline(
    trigger,
    t('console.account.consents.revoke_question', { name }),
    t('console.account.consents.revoke_confirm'),
    async () => {
      await call('DELETE', `/v1/dev-user/consents/${encode(consent.client_id)}`);
      card.replaceChildren(notice('ok', t('console.account.consents.revoked', { name })));
    },
  );
  card.append(
    h('h3', {}, name),
    facts([
      [t('console.account.consents.client_id'), h('code', {}, consent.client_id)],
      [t('console.account.consents.since'), formatTime(consent.since)],
      [
        t('console.account.consents.scopes'),
        consent.scopes.length ? consent.scopes.join(' ') : t('console.account.consents.sign_in_only'),
      ],
    ]),
    trigger,
    confirm,
  );
  return card;
}
