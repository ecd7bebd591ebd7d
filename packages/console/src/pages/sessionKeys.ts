import { call, encode } from '../api.js';
import { button, type Child, facts, h, notice } from '../dom.js';
import { amount, formatTime, groupDigits } from '../format.js';
import { confirmInline, describeError, flash, go, routeMissing } from '../view.js';

/** An app's wallet policy (decisions §8, "Wallet grants on chain"); wei and token amounts as decimal strings. */
export interface WalletPolicy {
  calls: { to: string; selectors: string[] }[];
  max_value_per_call_wei: string;
  max_value_per_day_wei: string;
  token_limits: { token: string; per_day: string }[];
  valid_for_seconds: number;
}

interface SessionKey {
  client_id: string;
  client_name: string;
  session_key: string;
  valid_until: string;
  policy: WalletPolicy;
  spent_today: { value_wei: string; tokens: { token: string; amount: string }[] };
  created_at: string;
  tx_hash: string | null;
}

/** Token base units: the token's decimals are not known here, so the integer itself, grouped. */
const baseUnits = (raw: string): HTMLElement =>
  h('code', { title: `${raw} base units`, 'data-raw': raw }, groupDigits(raw));

let platform: Promise<string | undefined> | undefined;
/**
 * The platform ERC-20's address (`GET /v1/chain/info`), asked once: its amounts are shown in DAUTH with the
 * exact base units on hover; another token's decimals are not known here. Undefined when the service has
 * no chain information.
 */
export function platformToken(): Promise<string | undefined> {
  platform ??= call<{ token?: string }>('GET', '/v1/chain/info').then(
    (info) => info.token?.toLowerCase(),
    () => undefined,
  );
  return platform;
}

/** `2592000` → `30 days`. */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} seconds`;
}

/** What a policy lets the app do without the PIN, in words. */
export function policyFacts(
  policy: WalletPolicy,
  spent?: SessionKey['spent_today'],
  platformTokenAddress?: string,
): HTMLElement {
  const units = (token: string, raw: string): HTMLElement =>
    token.toLowerCase() === platformTokenAddress ? amount(raw, 'token') : baseUnits(raw);
  const spentOf = (token: string) => spent?.tokens.find((t) => t.token.toLowerCase() === token.toLowerCase());
  const rows: [string, string | Node][] = [
    [
      'May call',
      policy.calls.length
        ? h(
            'ul',
            { class: 'plain' },
            policy.calls.map((c) =>
              h(
                'li',
                {},
                h('code', {}, c.to),
                c.selectors.length
                  ? [
                      ': functions ',
                      ...c.selectors.flatMap((s, i): Child[] => [i ? ', ' : null, h('code', {}, s)]),
                    ]
                  : ': any function',
              ),
            ),
          )
        : 'No contract',
    ],
    ['Per call', h('span', {}, 'up to ', amount(policy.max_value_per_call_wei, 'ether'))],
    [
      'Per day',
      h(
        'span',
        {},
        'up to ',
        amount(policy.max_value_per_day_wei, 'ether'),
        spent ? [' (', amount(spent.value_wei, 'ether'), ' used today)'] : null,
      ),
    ],
  ];
  if (policy.token_limits.length) {
    rows.push([
      'Tokens per day',
      h(
        'ul',
        { class: 'plain' },
        policy.token_limits.map((t) => {
          const used = spentOf(t.token);
          return h(
            'li',
            {},
            h('code', {}, t.token),
            ': up to ',
            units(t.token, t.per_day),
            used ? [' (', units(t.token, used.amount), ' used today)'] : null,
          );
        }),
      ),
    ]);
  }
  rows.push(['Granted for', duration(policy.valid_for_seconds)]);
  return facts(rows);
}

/** The account's session-key grants; null (no section) when the service has no session keys. */
export async function sessionKeysSection(): Promise<HTMLElement | null> {
  let keys: SessionKey[];
  let token: string | undefined;
  try {
    [keys, token] = await Promise.all([
      call<{ session_keys: SessionKey[] }>('GET', '/v1/wallet/session-keys').then((a) => a.session_keys),
      platformToken(),
    ]);
  } catch (error) {
    if (routeMissing(error)) return null;
    return wrap(notice('error', describeError(error)));
  }
  return wrap(
    h(
      'p',
      {},
      'Apps you let act with your wallet without your PIN, within the limits you approved (the wallet contract enforces them).',
    ),
    keys.length
      ? h(
          'ul',
          { class: 'cards', id: 'session-key-list' },
          keys.map((key) => keyCard(key, token)),
        )
      : h('p', { id: 'session-key-list' }, 'No app may use your wallet without your PIN.'),
  );
}

function wrap(...content: Node[]): HTMLElement {
  return h(
    'section',
    { id: 'session-keys', 'aria-labelledby': 'session-keys-h' },
    h('h2', { id: 'session-keys-h' }, 'Wallet access without PIN'),
    ...content,
  );
}

function keyCard(key: SessionKey, token: string | undefined): HTMLElement {
  const name = key.client_name || `App ${key.client_id}`;
  const trigger = button(`Revoke ${name}’s wallet access`, {
    class: 'danger',
    'data-revoke-session-key': key.client_id,
  });
  const confirm = confirmInline(
    trigger,
    `Revoke ${name}’s access to your wallet? Its session key stops working on chain.`,
    'Revoke wallet access',
    async () => {
      await call('DELETE', `/v1/wallet/session-keys/${encode(key.client_id)}`);
      flash('ok', `${name} can no longer use your wallet without your PIN.`);
      go('#/account');
    },
  );
  return h(
    'li',
    { class: 'card session-key', 'data-session-key': key.client_id },
    h('h3', {}, name),
    facts([
      ['Session key', h('code', {}, key.session_key)],
      ['Granted', formatTime(key.created_at)],
      ['Valid until', formatTime(key.valid_until)],
      ['Transaction', key.tx_hash ? h('code', {}, key.tx_hash) : 'Being registered on chain'],
    ]),
    policyFacts(key.policy, key.spent_today, token),
    trigger,
    confirm,
  );
}
