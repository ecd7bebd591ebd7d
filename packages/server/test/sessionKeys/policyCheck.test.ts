/**
 * The pure parts of session keys: policy validation (`checkWalletPolicy`) and the off-chain pre-check
 * (`checkSessionCalls`), which must refuse exactly what DauthSessionAccount's validation refuses (the real-chain
 * suites check the contract side).
 */
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from '../../src/chain/types.js';
import { AppError } from '../../src/errors.js';
import { checkSessionCalls } from '../../src/services/sessionKeys/policyCheck.js';
import { grantEntriesWithin, grantGasAsk } from '../../src/chain/sessionAccountGateway.js';
import {
  checkGrantable,
  checkStoredPolicy,
  checkWalletPolicy,
  MAX_POLICY_ENTRIES,
  policyEntries,
} from '../../src/services/sessionKeys/walletPolicy.js';

const GEM = '0x00000000000000000000000000000000000000aa' as Address;
const GAME = '0x00000000000000000000000000000000000000bb' as Address;
const PAYMASTER = '0x00000000000000000000000000000000000000cc' as Address;
const WALLET = '0x00000000000000000000000000000000000000dd' as Address;
const word = (n: bigint) => n.toString(16).padStart(64, '0');
const transfer = (amount: bigint): Hex => `0xa9059cbb${word(0xeen)}${word(amount)}`;
const approve = (amount: bigint, spender = 0xeen): Hex => `0x095ea7b3${word(spender)}${word(amount)}`;

const policy = checkWalletPolicy(
  {
    calls: [
      { to: GEM, selectors: ['0xa9059cbb', '0x095EA7B3'] },
      { to: GAME, selectors: ['0x12345678', '0x00000000'] },
    ],
    max_value_per_call_wei: '100',
    max_value_per_day_wei: '250',
    token_limits: [{ token: GEM, per_day: '1000' }],
    valid_for_seconds: 3600,
  },
  [PAYMASTER],
);
const ctx = {
  forbidden: [WALLET, PAYMASTER],
  now: 1_000,
  validUntil: 2_000,
  valueSpentToday: 0n,
  tokenSpentToday: new Map<string, bigint>(),
};

describe('checkWalletPolicy', () => {
  const refusal = (input: Partial<Parameters<typeof checkWalletPolicy>[0]>) => {
    try {
      checkWalletPolicy(
        {
          calls: [],
          max_value_per_call_wei: '0',
          max_value_per_day_wei: '0',
          token_limits: [],
          valid_for_seconds: 60,
          ...input,
        },
        [PAYMASTER],
      );
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      return { code: (err as AppError).code, field: (err as AppError).details?.field };
    }
    return undefined;
  };

  it('normalises addresses, selectors and amounts, merging duplicates', () => {
    expect(policy.calls).toEqual([
      { to: getAddress(GEM), selectors: ['0xa9059cbb', '0x095ea7b3'] },
      { to: getAddress(GAME), selectors: ['0x12345678', '0x00000000'] },
    ]);
    expect(policy.token_limits).toEqual([
      { token: '0x00000000000000000000000000000000000000AA', per_day: '1000' },
    ]);
  });

  it('refuses each bad field by name', () => {
    expect(refusal({ calls: [{ to: PAYMASTER, selectors: ['0x12345678'] }] })).toEqual({
      code: 'invalid_wallet_policy',
      field: 'calls.0.to',
    });
    expect(refusal({ calls: [{ to: GAME, selectors: ['0x095ea7b3'] }] })).toMatchObject({
      field: 'calls.0.selectors.0',
    });
    expect(
      refusal({
        calls: [{ to: GEM, selectors: ['0x12345678'] }],
        token_limits: [{ token: GEM, per_day: '1' }],
      }),
    ).toMatchObject({ field: 'calls.0.selectors.0' });
    expect(refusal({ token_limits: [{ token: GEM, per_day: '0' }] })).toMatchObject({
      field: 'token_limits.0.per_day',
    });
    expect(refusal({ max_value_per_call_wei: '2', max_value_per_day_wei: '1' })).toMatchObject({
      field: 'max_value_per_call_wei',
    });
    expect(refusal({ max_value_per_day_wei: (1n << 128n).toString() })).toMatchObject({
      field: 'max_value_per_day_wei',
    });
    expect(refusal({ valid_for_seconds: 30 * 86_400 + 1 })).toMatchObject({ field: 'valid_for_seconds' });
    expect(refusal({ calls: [{ to: GAME, selectors: ['0x1234'] }] })).toMatchObject({
      field: 'calls.0.selectors.0',
    });
  });

  it('refuses a policy too large to grant: more than MAX_POLICY_ENTRIES entries, or above the operation gas cap', () => {
    const target = (i: number) => `0x${(0x1000 + i).toString(16).padStart(40, '0')}`;
    const selectors = (n: number, from = 0) =>
      Array.from({ length: n }, (_, j) => `0x${(0xab000000 + from + j).toString(16)}`);
    const input = (pairs: number, tokens: number) => ({
      // Two calls to one target are merged: entries count distinct (target, selector) pairs.
      calls: [
        { to: GAME, selectors: selectors(Math.min(pairs, 16)) },
        { to: GAME, selectors: selectors(Math.min(pairs, 16)) },
        ...(pairs > 16 ? [{ to: target(0), selectors: selectors(pairs - 16) }] : []),
      ],
      max_value_per_call_wei: '0',
      max_value_per_day_wei: '0',
      token_limits: Array.from({ length: tokens }, (_, i) => ({ token: target(100 + i), per_day: '1' })),
      valid_for_seconds: 60,
    });
    const largest = checkWalletPolicy(input(MAX_POLICY_ENTRIES - 16, 16), [PAYMASTER]);
    expect(policyEntries(largest)).toBe(MAX_POLICY_ENTRIES);
    const over = () => checkWalletPolicy(input(MAX_POLICY_ENTRIES - 15, 16), [PAYMASTER]);
    expect(over).toThrow(AppError);
    expect(over).toThrow(/33 entries/);
    try {
      over();
    } catch (err) {
      expect(err).toMatchObject({ status: 400, code: 'invalid_wallet_policy', details: { field: 'calls' } });
    }
    // The operation gas cap as configured: the largest policy fits the default 1,500,000, not 1,000,000.
    expect(grantGasAsk(MAX_POLICY_ENTRIES)).toBe(1_316_000n);
    expect(grantEntriesWithin(1_500_000)).toBe(38);
    expect(grantEntriesWithin(1_000_000)).toBe(21);
    expect(grantGasAsk(21)).toBeLessThanOrEqual(1_000_000n);
    expect(grantGasAsk(22)).toBeGreaterThan(1_000_000n);
    expect(grantEntriesWithin(100_000)).toBe(0);
    expect(() => checkGrantable(largest, { maxEntries: grantEntriesWithin(1_500_000) })).not.toThrow();
    expect(() => checkGrantable(largest, { maxEntries: 21 })).toThrow(/holds 32 entries.*at most 21/);
    expect(() => checkWalletPolicy(input(5, 16), [PAYMASTER], { maxEntries: 21 })).not.toThrow();
    expect(() => checkWalletPolicy(input(6, 16), [PAYMASTER], { maxEntries: 21 })).toThrow(AppError);
  });
});

describe('checkSessionCalls (the contract’s rules, off chain)', () => {
  const check = (calls: { to: Address; value?: bigint; data?: Hex }[], over: Partial<typeof ctx> = {}) =>
    checkSessionCalls(policy, calls, { ...ctx, ...over });

  it('passes allowed calls and counts the batch against the day', () => {
    expect(
      check([
        { to: GEM, data: transfer(600n) },
        { to: GEM, data: approve(400n) },
        { to: GAME, data: '0x12345678' },
        { to: GEM, data: approve(0n) },
      ]),
    ).toEqual({ ok: true });
    expect(
      check([
        { to: GAME, value: 100n },
        { to: GAME, value: 100n, data: '0x12345678' },
      ]),
    ).toEqual({ ok: true });
  });

  it('refuses with the first refused call and its reason', () => {
    expect(
      check([
        { to: GEM, data: transfer(1n) },
        { to: WALLET, data: '0x' },
      ]),
    ).toEqual({
      ok: false,
      callIndex: 1,
      reason: 'forbidden_target',
    });
    expect(check([{ to: GAME, data: '0xdeadbeef' }])).toMatchObject({ reason: 'call_not_allowed' });
    expect(check([{ to: GAME, value: 101n }])).toMatchObject({ reason: 'value_per_call' });
    expect(
      check([
        { to: GAME, value: 100n },
        { to: GAME, value: 100n },
        { to: GAME, value: 51n },
      ]),
    ).toMatchObject({
      callIndex: 2,
      reason: 'value_per_day',
    });
    expect(check([{ to: GAME, value: 1n }], { valueSpentToday: 250n })).toMatchObject({
      reason: 'value_per_day',
    });
    expect(check([{ to: GEM, data: '0xa9059cbb' }])).toMatchObject({ reason: 'token_call_not_capped' });
    expect(
      check([
        { to: GEM, data: transfer(600n) },
        { to: GEM, data: transfer(401n) },
      ]),
    ).toMatchObject({
      callIndex: 1,
      reason: 'token_per_day',
    });
    expect(
      check([{ to: GEM, data: transfer(1n) }], { tokenSpentToday: new Map([[GEM.toLowerCase(), 1000n]]) }),
    ).toMatchObject({ reason: 'token_per_day' });
    expect(check([{ to: GEM, data: transfer(1n) }], { now: 2_001 })).toMatchObject({ reason: 'expired' });
    // The approval counts whole, before its reset is looked for.
    expect(
      check([
        { to: GEM, data: transfer(601n) },
        { to: GEM, data: approve(400n) },
        { to: GEM, data: approve(0n) },
      ]),
    ).toMatchObject({ callIndex: 1, reason: 'token_per_day' });
    expect(check([{ to: '0x0000000000000000000000000000000000000000' as Address }])).toMatchObject({
      reason: 'forbidden_target',
    });
  });
});

describe('value-moving selectors (decisions §9)', () => {
  const NFT = '0x00000000000000000000000000000000000000ee' as Address;
  // A policy stored before the rule: setApprovalForAll and transferFrom on an uncapped collection.
  const legacy = {
    ...policy,
    calls: [...policy.calls, { to: NFT, selectors: ['0x12345678', '0xa22cb465', '0x23b872dd'] }],
  };
  const check = (calls: { to: Address; value?: bigint; data?: Hex }[]) =>
    checkSessionCalls(legacy, calls, ctx);

  it('refuses a stored policy naming one on an uncapped target, by its place in the stored policy', () => {
    expect(() => checkStoredPolicy(policy)).not.toThrow();
    try {
      checkStoredPolicy(legacy);
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({
        status: 400,
        code: 'invalid_wallet_policy',
        details: { field: 'calls.2.selectors.1' },
      });
    }
  });

  it('refuses off chain the calls of a key granted under such a policy, though the contract would allow them', () => {
    expect(check([{ to: NFT, data: '0x12345678' }])).toEqual({ ok: true });
    expect(
      check([
        { to: GEM, data: transfer(1n) },
        { to: NFT, data: `0xa22cb465${word(0xeen)}${word(1n)}` },
      ]),
    ).toEqual({
      ok: false,
      callIndex: 1,
      reason: 'uncapped_value_call',
    });
    expect(check([{ to: NFT, data: '0x23b872dd' }])).toMatchObject({ reason: 'uncapped_value_call' });
  });

  it('refuses an approval of a capped token that no later call of the batch sets back to 0 for the same spender', () => {
    expect(check([{ to: GEM, data: approve(0n) }])).toEqual({ ok: true });
    for (const calls of [
      [approve(1n)],
      [approve(0n), approve(1n)],
      [approve(1n), approve(0n, 0xefn)],
      [approve(1n), approve(1n)],
      [approve(1n), approve(0n).slice(0, 70) as Hex],
    ]) {
      expect(check(calls.map((data) => ({ to: GEM, data })))).toMatchObject({ reason: 'approval_not_reset' });
    }
    // The reset must be on the same token.
    const other = { ...legacy, calls: [...legacy.calls, { to: GAME, selectors: ['0x095ea7b3'] }] };
    expect(
      checkSessionCalls(
        other,
        [
          { to: GEM, data: approve(1n) },
          { to: GAME, data: approve(0n) },
        ],
        ctx,
      ),
    ).toMatchObject({ callIndex: 0, reason: 'approval_not_reset' });
    expect(
      check([
        { to: GEM, data: approve(5n) },
        { to: GEM, data: approve(7n, 0xefn) },
        { to: GEM, data: approve(0n, 0xefn) },
        { to: GEM, data: approve(0n) },
      ]),
    ).toEqual({ ok: true });
  });
});
