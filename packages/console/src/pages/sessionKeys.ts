import { call, encode } from '../api.js';
import { button, type Child, facts, h, notice } from '../dom.js';
import { amount, formatTime, groupDigits } from '../format.js';
import { confirmInline, describeError, flash, go, routeMissing } from '../view.js';
import { list, rich, t } from '../i18n/translator.js';

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
  h('code', { title: t('console.amount.exact.base', { raw }), 'data-raw': raw }, groupDigits(raw));

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
  if (seconds >= 86_400 && seconds % 86_400 === 0) return t('console.wallet.days', { n: seconds / 86_400 });
  if (seconds >= 3_600 && seconds % 3_600 === 0) return t('console.wallet.hours', { n: seconds / 3_600 });
  if (seconds >= 60 && seconds % 60 === 0) return t('console.wallet.minutes', { n: seconds / 60 });
  return t('console.wallet.seconds', { n: seconds });
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
  /** "up to 0.05 ETH" or, with what was spent today, "up to 0.05 ETH (0.02 ETH used today)". */
  const upTo = (most: Node, used: Node | undefined): Child[] =>
    used ? rich('console.wallet.up_to_used', { most, used }) : rich('console.wallet.up_to', { most });
  const rows: [string, string | Node][] = [
    [
      t('console.wallet.may_call'),
      policy.calls.length
        ? h(
            'ul',
            { class: 'plain' },
            policy.calls.map((c) =>
              h(
                'li',
                {},
                c.selectors.length
                  ? rich('console.wallet.call_functions', {
                      to: h('code', {}, c.to),
                      functions: h('span', {}, list(c.selectors.map((s) => h('code', {}, s)))),
                    })
                  : rich('console.wallet.call_any', { to: h('code', {}, c.to) }),
              ),
            ),
          )
        : t('console.wallet.no_contract'),
    ],
    [
      t('console.wallet.per_call'),
      h('span', {}, upTo(amount(policy.max_value_per_call_wei, 'ether'), undefined)),
    ],
    [
      t('console.wallet.per_day'),
      h(
        'span',
        {},
        upTo(
          amount(policy.max_value_per_day_wei, 'ether'),
          spent ? amount(spent.value_wei, 'ether') : undefined,
        ),
      ),
    ],
  ];
  if (policy.token_limits.length) {
    rows.push([
      t('console.wallet.tokens_per_day'),
      h(
        'ul',
        { class: 'plain' },
        policy.token_limits.map((limit) => {
          const used = spentOf(limit.token);
          return h(
            'li',
            {},
            rich('console.wallet.token_limit', {
              token: h('code', {}, limit.token),
              limit: h(
                'span',
                {},
                upTo(units(limit.token, limit.per_day), used ? units(limit.token, used.amount) : undefined),
              ),
            }),
          );
        }),
      ),
    ]);
  }
  rows.push([t('console.wallet.granted_for'), duration(policy.valid_for_seconds)]);
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
    h('p', {}, t('console.wallet.keys.intro')),
    keys.length
      ? h(
          'ul',
          { class: 'cards', id: 'session-key-list' },
          keys.map((key) => keyCard(key, token)),
        )
      : h('p', { id: 'session-key-list' }, t('console.wallet.keys.none')),
  );
}

function wrap(...content: Node[]): HTMLElement {
  return h(
    'section',
    { id: 'session-keys', 'aria-labelledby': 'session-keys-h' },
    h('h2', { id: 'session-keys-h' }, t('console.wallet.keys.title')),
    ...content,
  );
}

function keyCard(key: SessionKey, token: string | undefined): HTMLElement {
  const name = key.client_name || t('console.account.app_fallback', { id: key.client_id });
  const trigger = button(t('console.wallet.keys.revoke', { name }), {
    class: 'danger',
    'data-revoke-session-key': key.client_id,
  });
  const confirm = confirmInline(
    trigger,
    t('console.wallet.keys.revoke_question', { name }),
    t('console.wallet.keys.revoke_confirm'),
    async () => {
      await call('DELETE', `/v1/wallet/session-keys/${encode(key.client_id)}`);
      flash('ok', t('console.wallet.keys.revoked', { name }));
      go('#/account');
    },
  );
  return h(
    'li',
    { class: 'card session-key', 'data-session-key': key.client_id },
    h('h3', {}, name),
    facts([
      [t('console.wallet.keys.key'), h('code', {}, key.session_key)],
      [t('console.wallet.keys.granted'), formatTime(key.created_at)],
      [t('console.wallet.keys.valid_until'), formatTime(key.valid_until)],
      [
        t('console.wallet.keys.transaction'),
        key.tx_hash ? h('code', {}, key.tx_hash) : t('console.wallet.keys.registering'),
      ],
    ]),
    policyFacts(key.policy, key.spent_today, token),
    trigger,
    confirm,
  );
}
