import { describe, expect, it } from 'vitest';
import { FeePolicy } from '../../../src/chain/feePolicy.js';
import { BundlerRpcError, feeFloorOf } from '../../../src/chain/operations/externalBundler.js';

const GWEI = 10n ** 9n;
const fees = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) => ({ maxFeePerGas, maxPriorityFeePerGas });

/** The pricing rules alone (the spike itself runs against anvil in feeSpike.test.ts). */
describe('fee policy: replacement pricing and MAX_FEE_PER_GAS', () => {
  it('without a cap: first send at the suggestion, replacements +12.5% on both fields or the suggestion', () => {
    const policy = new FeePolicy({ maxFeePerGas: undefined, replaceAfterBlocks: 2 });
    expect(policy.initial(fees(2n * GWEI, GWEI))).toEqual(fees(2n * GWEI, GWEI));
    // Both fields at least 12.5% up (every common node asks 10%), rounded up.
    expect(policy.replacement(fees(2n * GWEI, GWEI), fees(GWEI, GWEI / 2n))).toEqual(
      fees(2_250_000_000n, 1_125_000_000n),
    );
    expect(policy.replacement(fees(7n, 1n), fees(1n, 1n))).toEqual(fees(8n, 2n));
    // The node asks more than the bump: its suggestion.
    expect(policy.replacement(fees(2n * GWEI, GWEI), fees(60n * GWEI, 3n * GWEI))).toEqual(
      fees(60n * GWEI, 3n * GWEI),
    );
    expect(policy.state.capped).toBe(false);
  });

  it('with a cap: never above it, capped while the chain asks more, no replacement once at the cap', () => {
    const policy = new FeePolicy({ maxFeePerGas: 10n * GWEI, replaceAfterBlocks: 2 });
    expect(policy.initial(fees(2n * GWEI, GWEI))).toEqual(fees(2n * GWEI, GWEI));
    expect(policy.state.capped).toBe(false);
    // The chain asks 61 gwei: the replacement offers the cap, and the state says capped.
    const atCap = policy.replacement(fees(2n * GWEI, GWEI), fees(61n * GWEI, GWEI));
    expect(atCap).toEqual(fees(10n * GWEI, 1_125_000_000n));
    expect(policy.state).toMatchObject({ capped: true, wanted: 61n * GWEI });
    expect(policy.detail).toMatch(/asks 61000000000 wei per gas, MAX_FEE_PER_GAS is 10000000000/);
    // Already at the cap: a valid replacement would have to exceed it. Wait instead.
    expect(policy.replacement(atCap!, fees(61n * GWEI, GWEI))).toBeUndefined();
    expect(policy.stuckAtCap(atCap!, 50n * GWEI, fees(61n * GWEI, GWEI))).toBe(true);
    // Just under the cap, a bump past it is no valid replacement either (it must be 12.5% higher).
    expect(policy.replacement(fees(9n * GWEI, GWEI), fees(61n * GWEI, GWEI))).toBeUndefined();
    // A first send while the chain asks more than the cap: the cap.
    expect(policy.initial(fees(20n * GWEI, 2n * GWEI))).toEqual(fees(10n * GWEI, 2n * GWEI));
    // Mined: not capped any more.
    policy.mined();
    expect(policy.state.capped).toBe(false);
    expect(policy.detail).toBeUndefined();
    // At the cap but the base fee is under it: not stuck.
    expect(policy.stuckAtCap(atCap!, 5n * GWEI, fees(7n * GWEI, GWEI))).toBe(false);
  });

  it("an external bundler's floor: followed up to the cap, refused above it, both fields within it", () => {
    const policy = new FeePolicy({ maxFeePerGas: 10n * GWEI, replaceAfterBlocks: 2 });
    expect(policy.forBundler(fees(2n * GWEI, GWEI), { maxPriorityFeePerGas: 3n * GWEI })).toEqual(
      fees(3n * GWEI, 3n * GWEI),
    );
    expect(policy.forBundler(fees(2n * GWEI, GWEI), { maxFeePerGas: 10n * GWEI })).toEqual(
      fees(10n * GWEI, GWEI),
    );
    // The chain asks more than the cap: both fields at most the cap, the tip within the fee.
    expect(policy.forBundler(fees(61n * GWEI, 20n * GWEI), {})).toEqual(fees(10n * GWEI, 10n * GWEI));
    expect(policy.state.capped).toBe(true);
    policy.mined();
    // A floor above the cap on either field: nothing to sign.
    expect(policy.forBundler(fees(2n * GWEI, GWEI), { maxFeePerGas: 10n * GWEI + 1n })).toBeUndefined();
    expect(policy.forBundler(fees(2n * GWEI, GWEI), { maxPriorityFeePerGas: 11n * GWEI })).toBeUndefined();
    expect(policy.state).toMatchObject({ capped: true, wanted: 11n * GWEI });
  });

  it("reads a bundler's fee floor defensively", () => {
    const refusal = (message: string) => feeFloorOf(new BundlerRpcError(-32602, message));
    expect(refusal('maxFeePerGas must be at least 123 (current maxFeePerGas: 1)')).toEqual({
      maxFeePerGas: 123n,
    });
    // Both fields, the higher of two floors of one field.
    expect(
      refusal(
        'maxPriorityFeePerGas must be at least 5; maxFeePerGas must be at least 7, maxPriorityFeePerGas must be at least 6',
      ),
    ).toEqual({ maxFeePerGas: 7n, maxPriorityFeePerGas: 6n });
    // No whole decimal number of wei, or none a uint256 holds: no floor.
    expect(refusal('maxFeePerGas must be at least 1.5 gwei')).toBeUndefined();
    expect(refusal('maxFeePerGas must be at least 0x10')).toBeUndefined();
    expect(refusal(`maxFeePerGas must be at least ${'9'.repeat(79)}`)).toBeUndefined();
    expect(refusal(`maxFeePerGas must be at least ${2n ** 256n}`)).toBeUndefined();
    // Only the start of a long answer is read.
    expect(refusal(`${'x'.repeat(2_000)} maxFeePerGas must be at least 1`)).toBeUndefined();
    expect(refusal('AA25 invalid account nonce')).toBeUndefined();
  });
});
