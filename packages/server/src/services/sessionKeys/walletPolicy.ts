import { checksumAddress, parseAddress, sameAddress } from '../../chain/address.js';
import type { Address } from '../../chain/types.js';
import type { WalletPolicy } from '../../stores/sessionKeyStore.js';
import { invalidWalletPolicy } from './sessionKeyErrors.js';

export type { WalletPolicy };

export const ERC20_TRANSFER = '0xa9059cbb';
export const ERC20_APPROVE = '0x095ea7b3';
/**
 * Selectors that move a wallet's assets, or let someone else move them, with amounts the contract does not read
 * (decisions §9). A policy may name them only on a capped token, where the contract allows `approve` alone and
 * counts its amount; anywhere else a session key holding one could hand the wallet's tokens or NFTs to anyone.
 * The standard names are listed; a policy's other selectors on other contracts are the app's declared game calls.
 */
export const VALUE_MOVING_SELECTORS: ReadonlyMap<string, string> = new Map([
  [ERC20_APPROVE, 'approve(address,uint256)'],
  ['0x39509351', 'increaseAllowance(address,uint256)'],
  ['0xd73dd623', 'increaseApproval(address,uint256)'],
  ['0x23b872dd', 'transferFrom(address,address,uint256)'],
  ['0xa22cb465', 'setApprovalForAll(address,bool)'],
  ['0x42842e0e', 'safeTransferFrom(address,address,uint256)'],
  ['0xb88d4fde', 'safeTransferFrom(address,address,uint256,bytes)'],
  ['0xf242432a', 'safeTransferFrom(address,address,uint256,uint256,bytes)'],
  ['0x2eb2c2d6', 'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)'],
  ['0xd505accf', 'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)'],
  ['0x8fcbaf0c', 'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)'],
  ['0x959b8c3f', 'authorizeOperator(address)'],
  ['0x87517c45', 'approve(address,address,uint160,uint48)'],
  // Transfers and approvals with a callback (ERC-677, ERC-1363-style), ERC-777 sends, and Permit2's own.
  ['0x4000aea0', 'transferAndCall(address,uint256,bytes)'],
  ['0xcae9ca51', 'approveAndCall(address,uint256,bytes)'],
  ['0x9bd9bbc6', 'send(address,uint256,bytes)'],
  ['0x62ad1b83', 'operatorSend(address,address,uint256,bytes,bytes)'],
  ['0x2b67b570', 'permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)'],
  ['0x2a2d80d1', 'permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)'],
  ['0x36c78516', 'transferFrom(address,address,uint160,address)'],
  ['0x30f28b7a', 'permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)'],
]);
/** Selector that allows a plain transfer (call data shorter than 4 bytes), as the contract reads it. */
export const PLAIN_TRANSFER = '0x00000000';
export const MAX_VALID_FOR_SECONDS = 30 * 24 * 3600;
export const MIN_VALID_FOR_SECONDS = 60;
export const MAX_POLICY_CALLS = 32;
export const MAX_SELECTORS_PER_CALL = 16;
export const MAX_TOKEN_LIMITS = 16;
/**
 * Most entries one policy stores on chain: its distinct (target, selector) pairs and its token caps together.
 * The grant writes each into a fresh storage slot (about 24,000 gas apiece), so this, not the shape limits above,
 * bounds the grant: at 32 entries it asks at most 1,316,000 gas (measured 1,233,664 with a replaced key), within
 * `SPONSOR_MAX_OPERATION_GAS` (1,500,000); 32 calls × 16 selectors plus 16 caps would be 528 entries, a call
 * estimated at 12.7M gas (docs/session-keys.md, "Limits"). The one place the size of a grant is set.
 */
export const MAX_POLICY_ENTRIES = 32;
const UINT128_MAX = (1n << 128n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;
const ZERO = '0x0000000000000000000000000000000000000000';

/** A policy as a request body carries it (before validation). */
export interface WalletPolicyInput {
  calls: { to: string; selectors: string[] }[];
  max_value_per_call_wei: string;
  max_value_per_day_wei: string;
  token_limits: { token: string; per_day: string }[];
  valid_for_seconds: number;
}

function amount(value: string, field: string, max: bigint): bigint {
  if (!/^[0-9]{1,78}$/.test(value))
    throw invalidWalletPolicy(field, `${field} must be a decimal integer string`);
  const n = BigInt(value);
  if (n > max) throw invalidWalletPolicy(field, `${field} is too large`);
  return n;
}

function address(value: string, field: string): Address {
  try {
    return parseAddress(value, field);
  } catch {
    throw invalidWalletPolicy(field, `${field} must be a 0x-prefixed 20-byte address`);
  }
}

/**
 * Validates an app's wallet policy (docs/session-keys.md): refuses (400 `invalid_wallet_policy`, `details.field`
 * naming the field) a call target a session key must never touch (`forbidden`: the platform paymaster, the
 * EntryPoint, the wallet factory, the dex), the zero address, a `transfer`/`approve` selector on a token without
 * a `token_limits` entry (the contract caps listed tokens only), any other value-moving selector
 * (`VALUE_MOVING_SELECTORS`: `transferFrom`, `setApprovalForAll`, `safeTransferFrom`, `permit`, …) anywhere, a call
 * to a listed token that is not `transfer`/`approve` (the contract refuses those), bounds, and a policy too large
 * to grant (`checkGrantable`).
 * Answers the normalised policy (checksummed addresses, lowercase selectors, canonical decimal amounts,
 * duplicates merged).
 */
export function checkWalletPolicy(
  input: WalletPolicyInput,
  forbidden: readonly Address[],
  limits: GrantLimits = {},
): WalletPolicy {
  if (!Array.isArray(input.calls) || input.calls.length > MAX_POLICY_CALLS) {
    throw invalidWalletPolicy('calls', `calls may hold at most ${MAX_POLICY_CALLS} entries`);
  }
  if (!Array.isArray(input.token_limits) || input.token_limits.length > MAX_TOKEN_LIMITS) {
    throw invalidWalletPolicy('token_limits', `token_limits may hold at most ${MAX_TOKEN_LIMITS} entries`);
  }
  const perCall = amount(input.max_value_per_call_wei, 'max_value_per_call_wei', UINT128_MAX);
  const perDay = amount(input.max_value_per_day_wei, 'max_value_per_day_wei', UINT128_MAX);
  if (perCall > perDay) {
    throw invalidWalletPolicy(
      'max_value_per_call_wei',
      'max_value_per_call_wei may not exceed max_value_per_day_wei',
    );
  }
  const valid = input.valid_for_seconds;
  if (!Number.isInteger(valid) || valid < MIN_VALID_FOR_SECONDS || valid > MAX_VALID_FOR_SECONDS) {
    throw invalidWalletPolicy(
      'valid_for_seconds',
      `valid_for_seconds must be a whole number from ${MIN_VALID_FOR_SECONDS} to ${MAX_VALID_FOR_SECONDS} (30 days)`,
    );
  }
  const tokens = new Map<string, { token: Address; per_day: string }>();
  input.token_limits.forEach((limit, i) => {
    const token = address(limit.token, `token_limits.${i}.token`);
    const field = `token_limits.${i}.per_day`;
    const cap = amount(limit.per_day, field, UINT256_MAX);
    if (cap === 0n) throw invalidWalletPolicy(field, `${field} must be greater than 0`);
    if (tokens.has(token.toLowerCase()))
      throw invalidWalletPolicy(`token_limits.${i}.token`, 'token listed twice');
    checkTarget(token, `token_limits.${i}.token`, forbidden);
    tokens.set(token.toLowerCase(), { token, per_day: cap.toString() });
  });
  const calls = new Map<string, { to: Address; selectors: Set<string> }>();
  input.calls.forEach((call, i) => {
    const to = address(call.to, `calls.${i}.to`);
    checkTarget(to, `calls.${i}.to`, forbidden);
    if (
      !Array.isArray(call.selectors) ||
      call.selectors.length === 0 ||
      call.selectors.length > MAX_SELECTORS_PER_CALL
    ) {
      throw invalidWalletPolicy(
        `calls.${i}.selectors`,
        `calls.${i}.selectors must hold 1 to ${MAX_SELECTORS_PER_CALL} selectors`,
      );
    }
    const entry = calls.get(to.toLowerCase()) ?? { to, selectors: new Set<string>() };
    call.selectors.forEach((raw, j) => {
      const field = `calls.${i}.selectors.${j}`;
      if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{8}$/.test(raw)) {
        throw invalidWalletPolicy(field, `${field} must be a 4-byte selector (0x and 8 hex digits)`);
      }
      const selector = raw.toLowerCase();
      const erc20 = selector === ERC20_TRANSFER || selector === ERC20_APPROVE;
      const capped = tokens.has(to.toLowerCase());
      if (erc20 && !capped) {
        throw invalidWalletPolicy(
          field,
          `${field}: transfer/approve on ${to} needs a token_limits entry for that token (its daily cap)`,
        );
      }
      checkValueMoving(to, selector, capped, field);
      if (capped && !erc20) {
        throw invalidWalletPolicy(
          field,
          `${field}: a token with a daily cap can only be called with transfer or approve`,
        );
      }
      entry.selectors.add(selector);
    });
    calls.set(to.toLowerCase(), entry);
  });
  const policy: WalletPolicy = {
    calls: [...calls.values()].map((c) => ({ to: c.to, selectors: [...c.selectors] })),
    max_value_per_call_wei: perCall.toString(),
    max_value_per_day_wei: perDay.toString(),
    token_limits: [...tokens.values()],
    valid_for_seconds: valid,
  };
  checkGrantable(policy, limits);
  return policy;
}

/**
 * Refuses (400 `invalid_wallet_policy`) a value-moving selector on a target without a token cap: every one but
 * `approve`, which is allowed on a capped token only (the contract counts its amount against the day's cap).
 */
function checkValueMoving(to: Address, selector: string, capped: boolean, field: string): void {
  const name = VALUE_MOVING_SELECTORS.get(selector);
  if (name === undefined || (capped && selector === ERC20_APPROVE)) return;
  throw invalidWalletPolicy(
    field,
    capped
      ? `${field}: ${name} moves assets by amounts the token cap does not bound; a capped token allows transfer and approve only`
      : `${field}: ${name} on ${to} would let a session key hand the wallet's assets to anyone; only approve on a token with a token_limits entry (its daily cap) is allowed`,
  );
}

/**
 * What the grant re-checks of a policy stored earlier, before the PIN is used or anything is sent: the rules added
 * since it may have been stored (value-moving selectors, decisions §9; the entries a grant can store). Field
 * names index the stored policy.
 */
export function checkStoredPolicy(policy: WalletPolicy, limits: GrantLimits = {}): void {
  const capped = new Set(policy.token_limits.map((t) => t.token.toLowerCase()));
  policy.calls.forEach((call, i) =>
    call.selectors.forEach((selector, j) =>
      checkValueMoving(
        call.to as Address,
        selector.toLowerCase(),
        capped.has(call.to.toLowerCase()),
        `calls.${i}.selectors.${j}`,
      ),
    ),
  );
  checkGrantable(policy, limits);
}

/** What bounds a grant besides the policy's shape: the sponsorship cap of one operation. */
export interface GrantLimits {
  /**
   * The most entries whose grant asks no more gas than `SPONSOR_MAX_OPERATION_GAS` (the composition root computes
   * it: `grantEntriesWithin` of chain/sessionAccountGateway.ts); `MAX_POLICY_ENTRIES` when larger.
   */
  maxEntries?: number;
}

/** The entries a grant of `policy` stores on chain: every (target, selector) pair and every token cap. */
export function policyEntries(policy: WalletPolicy): number {
  return policy.calls.reduce((n, c) => n + c.selectors.length, 0) + policy.token_limits.length;
}

/**
 * Refuses (400 `invalid_wallet_policy`, field `calls`) a policy whose grant could not be sent: more than
 * `MAX_POLICY_ENTRIES` entries, or more than fit the gas one sponsored operation may ask for.
 */
export function checkGrantable(policy: WalletPolicy, limits: GrantLimits = {}): void {
  const entries = policyEntries(policy);
  if (entries > MAX_POLICY_ENTRIES) {
    throw invalidWalletPolicy(
      'calls',
      `the policy holds ${entries} entries (allowed call selectors plus token_limits); at most ${MAX_POLICY_ENTRIES} fit one grant`,
    );
  }
  if (limits.maxEntries !== undefined && entries > limits.maxEntries) {
    throw invalidWalletPolicy(
      'calls',
      `the policy holds ${entries} entries (allowed call selectors plus token_limits); this service's gas cap of one sponsored operation (SPONSOR_MAX_OPERATION_GAS) lets a grant store at most ${limits.maxEntries}`,
    );
  }
}

function checkTarget(to: Address, field: string, forbidden: readonly Address[]): void {
  if (sameAddress(to, ZERO)) throw invalidWalletPolicy(field, `${field} may not be the zero address`);
  const hit = forbidden.find((f) => sameAddress(f, to));
  if (hit) {
    throw invalidWalletPolicy(
      field,
      `${field}: ${checksumAddress(hit)} is a platform contract (paymaster, EntryPoint, wallet factory or dex) a session key may never call`,
    );
  }
}
