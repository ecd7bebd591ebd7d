import type { WalletPolicy } from '../../stores/sessionKeyStore.js';
import { ERC20_APPROVE, ERC20_TRANSFER, PLAIN_TRANSFER } from './walletPolicy.js';

export interface TokenInfo {
  symbol: string;
  decimals: number;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `amount` in units of 10^decimals, without trailing zeros: 1500000000000000000 with 18 → "1.5". */
export function formatUnits(amount: bigint, decimals: number): string {
  const base = 10n ** BigInt(decimals);
  const whole = amount / base;
  const fraction = (amount % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** "24 Dec 2026" (UTC). */
export function formatDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/**
 * The policy in words, as the consent page and the console show it: one sentence per power, e.g. "may spend up
 * to 100 GEM a day from your wallet until 24 Dec 2026". Value caps are in ether, token caps in the token's own
 * units (`tokenInfo`, keyed by lowercase token address, read from chain once); the end is `grantedAt` (ms) plus
 * the policy's validity.
 */
export function describeWalletPolicy(
  policy: WalletPolicy,
  tokenInfo: ReadonlyMap<string, TokenInfo>,
  grantedAt: number = Date.now(),
): string[] {
  const until = formatDay(grantedAt + policy.valid_for_seconds * 1000);
  const sentences: string[] = [];
  const nameOf = (token: string) => tokenInfo.get(token.toLowerCase())?.symbol ?? `tokens of ${short(token)}`;
  for (const limit of policy.token_limits) {
    const info = tokenInfo.get(limit.token.toLowerCase());
    const amount = formatUnits(BigInt(limit.per_day), info?.decimals ?? 0);
    sentences.push(`may spend up to ${amount} ${nameOf(limit.token)} a day from your wallet until ${until}`);
  }
  const perDay = BigInt(policy.max_value_per_day_wei);
  const perCall = BigInt(policy.max_value_per_call_wei);
  if (perDay > 0n) {
    const each = perCall < perDay ? ` (at most ${formatUnits(perCall, 18)} ETH at a time)` : '';
    sentences.push(
      `may send up to ${formatUnits(perDay, 18)} ETH a day${each} from your wallet until ${until}`,
    );
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
    const list = others.map(
      (c) => `${c.selectors.length} function${c.selectors.length > 1 ? 's' : ''} of ${short(c.to)}`,
    );
    sentences.push(`may call ${list.join(', ')} from your wallet until ${until}`);
  }
  if (sentences.length === 0) sentences.push(`may act from your wallet within its policy until ${until}`);
  sentences.push('You can revoke this at any time; it ends when you revoke the app.');
  return sentences;
}
