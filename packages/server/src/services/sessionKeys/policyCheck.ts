import { sameAddress } from '../../chain/address.js';
import type { Address, Call } from '../../chain/types.js';
import type { WalletPolicy } from '../../stores/sessionKeyStore.js';
import type { PolicyRefusal } from './sessionKeyErrors.js';
import { ERC20_APPROVE, ERC20_TRANSFER, PLAIN_TRANSFER, VALUE_MOVING_SELECTORS } from './walletPolicy.js';

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
 *
 * Two rules are the service's own, stricter than the contract (dauth holds every session key and signs every
 * session operation, so they bind every operation a key makes; docs/session-keys.md, "Approvals"):
 * - `uncapped_value_call`: a value-moving selector (`VALUE_MOVING_SELECTORS`) on a target without a token cap, which
 *   a key granted before wallet policies refused them may still hold;
 * - `approval_not_reset`: an `approve` of a non-zero amount on a capped token that a later call of the same batch
 *   does not set back to 0 for the same spender. The contract counts an approval on the day it is made, so one
 *   left standing could be spent on later days on top of each day's cap.
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
    const cap = caps.get(to.toLowerCase());
    if (VALUE_MOVING_SELECTORS.has(selector) && cap === undefined) {
      return { ok: false, callIndex: i, reason: 'uncapped_value_call' };
    }
    if (value > perCall) return { ok: false, callIndex: i, reason: 'value_per_call' };
    if (value !== 0n) {
      valueSpent += value;
      if (valueSpent > perDay) return { ok: false, callIndex: i, reason: 'value_per_day' };
    }
    if (cap !== undefined) {
      // 4 bytes of selector and two 32-byte words: 0x + 136 hex digits.
      if ((selector !== ERC20_TRANSFER && selector !== ERC20_APPROVE) || data.length < 2 + 136) {
        return { ok: false, callIndex: i, reason: 'token_call_not_capped' };
      }
      const amount = BigInt(`0x${data.slice(2 + 72, 2 + 136)}`);
      const spent = (tokenSpent.get(to.toLowerCase()) ?? 0n) + amount;
      if (spent > cap) return { ok: false, callIndex: i, reason: 'token_per_day' };
      tokenSpent.set(to.toLowerCase(), spent);
      if (selector === ERC20_APPROVE && amount !== 0n && !resetLater(calls, i, data)) {
        return { ok: false, callIndex: i, reason: 'approval_not_reset' };
      }
    }
  }
  return { ok: true };
}

/**
 * Whether a call after `index` approves 0 to the spender the `approve` at `index` (call data `data`) names, on the
 * same token: the allowance then ends with the operation. The spender words are compared whole (a call with a
 * differently padded word is not taken as a reset).
 */
function resetLater(calls: readonly Call[], index: number, data: string): boolean {
  const spender = data.slice(10, 10 + 64).toLowerCase();
  const zero = '0'.repeat(64);
  return calls.slice(index + 1).some((c) => {
    const d = (c.data ?? '0x').toLowerCase();
    return (
      sameAddress(c.to, calls[index]!.to) &&
      d.length >= 2 + 136 &&
      d.slice(0, 10) === ERC20_APPROVE &&
      d.slice(10, 74) === spender &&
      d.slice(74, 138) === zero
    );
  });
}
