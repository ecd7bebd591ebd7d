import { sameAddress } from '../../chain/address.js';
import type { Address, Call } from '../../chain/types.js';
import type { WalletPolicy } from '../../stores/sessionKeyStore.js';
import type { PolicyRefusal } from './sessionKeyErrors.js';
import { ERC20_APPROVE, ERC20_TRANSFER, PLAIN_TRANSFER } from './walletPolicy.js';

export interface SessionCheckContext {
  /** Targets no session key may call: the wallet, its session account, the EntryPoint, the paymaster, zero… */
  forbidden: readonly Address[];
  /** Unix seconds now (chain time) and the key's expiry. */
  now: number;
  validUntil: number;
  /** Wei the key already spent today, as the contract counts it (`valueSpent(key, day)`). */
  valueSpentToday: bigint;
  /** Per listed token (lowercase address): the amount already moved today (`tokenSpent`). */
  tokenSpentToday: ReadonlyMap<string, bigint>;
}

export type SessionCheckResult = { ok: true } | { ok: false; callIndex: number; reason: PolicyRefusal };

const ZERO = '0x0000000000000000000000000000000000000000';

/**
 * The off-chain pre-check of a session operation: the same rules, in the same order, as the wallet contract's
 * `validateUserOp` (DauthSessionAccount `_checkCall`), so an operation it passes is one the contract accepts and
 * one it refuses is never signed. The whole batch is refused when any call is (the contract refuses it whole).
 */
export function checkSessionCalls(
  policy: WalletPolicy,
  calls: readonly Call[],
  ctx: SessionCheckContext,
): SessionCheckResult {
  if (ctx.now > ctx.validUntil) return { ok: false, callIndex: 0, reason: 'expired' };
  const perCall = BigInt(policy.max_value_per_call_wei);
  const perDay = BigInt(policy.max_value_per_day_wei);
  const caps = new Map(policy.token_limits.map((t) => [t.token.toLowerCase(), BigInt(t.per_day)]));
  let valueSpent = ctx.valueSpentToday;
  const tokenSpent = new Map(ctx.tokenSpentToday);
  for (const [i, call] of calls.entries()) {
    const to = call.to;
    const data = call.data ?? '0x';
    const value = call.value ?? 0n;
    if (sameAddress(to, ZERO) || ctx.forbidden.some((f) => sameAddress(f, to))) {
      return { ok: false, callIndex: i, reason: 'forbidden_target' };
    }
    const selector = data.length >= 10 ? data.slice(0, 10).toLowerCase() : PLAIN_TRANSFER;
    const allowed = policy.calls.some((c) => sameAddress(c.to, to) && c.selectors.includes(selector));
    if (!allowed) return { ok: false, callIndex: i, reason: 'call_not_allowed' };
    if (value > perCall) return { ok: false, callIndex: i, reason: 'value_per_call' };
    if (value !== 0n) {
      valueSpent += value;
      if (valueSpent > perDay) return { ok: false, callIndex: i, reason: 'value_per_day' };
    }
    const cap = caps.get(to.toLowerCase());
    if (cap !== undefined) {
      // 4 bytes of selector and two 32-byte words: 0x + 136 hex digits.
      if ((selector !== ERC20_TRANSFER && selector !== ERC20_APPROVE) || data.length < 2 + 136) {
        return { ok: false, callIndex: i, reason: 'token_call_not_capped' };
      }
      const amount = BigInt(`0x${data.slice(2 + 72, 2 + 136)}`);
      const spent = (tokenSpent.get(to.toLowerCase()) ?? 0n) + amount;
      if (spent > cap) return { ok: false, callIndex: i, reason: 'token_per_day' };
      tokenSpent.set(to.toLowerCase(), spent);
    }
  }
  return { ok: true };
}
