import type { WalletPolicy } from '../../stores/sessionKeyStore.js';
import { ERC20_APPROVE, ERC20_TRANSFER, PLAIN_TRANSFER } from './walletPolicy.js';

export interface TokenInfo {
  symbol: string;
  decimals: number;
}

/** `amount` in units of 10^decimals, without trailing zeros: 1500000000000000000 with 18 → "1.5". */
export function formatUnits(amount: bigint, decimals: number): string {
  const base = 10n ** BigInt(decimals);
  const whole = amount / base;
  const fraction = (amount % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/**
 * One power a wallet policy gives the app, for the consent page to word in the player's language
 * (docs/session-keys.md). Amounts are exact decimal strings (never floats), for the page's number formatting.
 */
export type WalletPolicyTerm =
  /** A token cap in the token's own units: "may spend up to 100 GEM a day". */
  | { kind: 'token_per_day'; amount: string; symbol: string }
  /** A token whose symbol and decimals could not be read: its cap in base units and its short address. */
  | { kind: 'token_per_day_base_units'; amount: string; token: string }
  /** A value cap in ether, with the per-call cap when it is lower than the day's. */
  | { kind: 'ether_per_day'; perDay: string; perCall?: string | undefined }
  /** The app's own functions (not transfers or approvals): how many, of which contract (short address). */
  | { kind: 'calls'; contracts: { functions: number; contract: string }[] }
  /** None of the above: the policy allows calls that move nothing. */
  | { kind: 'within_policy' };

/** A policy in terms, and when a grant made now ends. */
export interface WalletPolicyWording {
  terms: WalletPolicyTerm[];
  until: Date;
}

/**
 * The policy's terms, as the consent pages word them: one per power, e.g. "may spend up to 100 GEM a day from
 * your wallet until 24 Dec 2026". Value caps are in ether, token caps in the token's own units (`tokenInfo`,
 * keyed by lowercase token address, read from chain once); the end is `grantedAt` (ms) plus the policy's
 * validity. The words themselves are the page's (catalogue `consent.policy.*`), in the player's language.
 */
export function describeWalletPolicy(
  policy: WalletPolicy,
  tokenInfo: ReadonlyMap<string, TokenInfo>,
  grantedAt: number = Date.now(),
): WalletPolicyWording {
  const terms: WalletPolicyTerm[] = [];
  for (const limit of policy.token_limits) {
    const info = tokenInfo.get(limit.token.toLowerCase());
    terms.push(
      info
        ? {
            kind: 'token_per_day',
            amount: formatUnits(BigInt(limit.per_day), info.decimals),
            symbol: info.symbol,
          }
        : {
            kind: 'token_per_day_base_units',
            amount: BigInt(limit.per_day).toString(),
            token: short(limit.token),
          },
    );
  }
  const perDay = BigInt(policy.max_value_per_day_wei);
  const perCall = BigInt(policy.max_value_per_call_wei);
  if (perDay > 0n) {
    terms.push({
      kind: 'ether_per_day',
      perDay: formatUnits(perDay, 18),
      perCall: perCall < perDay ? formatUnits(perCall, 18) : undefined,
    });
  }
  const others = policy.calls
    .map((c) => ({
      to: c.to,
      selectors: c.selectors.filter(
        (s) => s !== ERC20_TRANSFER && s !== ERC20_APPROVE && s !== PLAIN_TRANSFER,
      ),
    }))
    .filter(
      (c) =>
        c.selectors.length > 0 &&
        !policy.token_limits.some((t) => t.token.toLowerCase() === c.to.toLowerCase()),
    );
  if (others.length > 0) {
    terms.push({
      kind: 'calls',
      contracts: others.map((c) => ({ functions: c.selectors.length, contract: short(c.to) })),
    });
  }
  if (terms.length === 0) terms.push({ kind: 'within_policy' });
  return { terms, until: new Date(grantedAt + policy.valid_for_seconds * 1000) };
}
