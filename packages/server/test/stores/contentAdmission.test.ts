import { describe, expect, it } from 'vitest';
import { admitOnSlot, groupBySlot, requestKeyOf } from '../../src/stores/contentAdmission.js';
import type { BalanceRow, NewUsage, UsageRecord } from '../../src/stores/contentLedgerStore.js';

const slotA = '0x00000000000000000000000000000000000000aA' as const;
const slotB = '0x00000000000000000000000000000000000000bB' as const;
const usage = (
  slot: `0x${string}`,
  amount: bigint,
  requestKey?: string,
  clientId = 'client-1',
): NewUsage => ({
  clientId,
  cuid: 'game',
  slot,
  slotId: '1',
  amount,
  requestKey,
});
const row = (chainBalance: bigint, reserved: bigint, chainBlock = 10n): BalanceRow => ({
  cuid: 'game',
  slot: slotA,
  chainBalance,
  chainUsed: 0n,
  chainBlock,
  reserved,
  version: 1,
});

/** The admission rule on its own (the store runs it under the row lock; test/stores/contentLedgerStore.test.ts). */
describe('content admission rule', () => {
  it('admits in order while chain_balance − reserved covers a record; a record that does not fit changes nothing', () => {
    const usages = [usage(slotA, 60n), usage(slotA, 50n), usage(slotA, 30n), usage(slotA, 6n)];
    const { results, accepted, reserved } = admitOnSlot(row(100n, 5n), usages, [0, 1, 2, 3], new Map(), 7);
    expect([0, 1, 2, 3].map((i) => results.get(i)?.kind)).toEqual([
      'accepted',
      'insufficient',
      'accepted',
      'insufficient',
    ]);
    expect(results.get(1)).toMatchObject({ available: 35n, row: { reserved: 65n } });
    expect(results.get(3)).toMatchObject({ available: 5n });
    expect(reserved).toBe(95n);
    expect(accepted.map((r) => [r.amount, r.state, r.acceptedAt])).toEqual([
      [60n, 'queued', 7],
      [30n, 'queued', 7],
    ]);
  });

  it('admits nothing on a missing row or one marked stale after a chain rewind', () => {
    for (const balance of [undefined, row(100n, 0n, -1n)]) {
      const { results, accepted, reserved } = admitOnSlot(balance, [usage(slotA, 1n)], [0], new Map(), 1);
      expect(results.get(0)).toEqual({ kind: 'no_balance_row' });
      expect(accepted).toEqual([]);
      expect(reserved).toBeUndefined();
    }
  });

  it('counts a request key once per client: a stored key and a repeat within the call are duplicates', () => {
    const stored = new Map<string, UsageRecord>();
    const existing = { id: 'old' } as UsageRecord;
    stored.set(requestKeyOf({ clientId: 'client-1', requestKey: 'k-old' })!, existing);
    const usages = [
      usage(slotA, 1n, 'k-old'),
      usage(slotA, 1n, 'k-new'),
      usage(slotB, 1n, 'k-new'),
      usage(slotA, 1n, 'k-new', 'client-2'),
    ];
    const { duplicates, bySlot } = groupBySlot(usages, stored);
    expect(duplicates.get(0)).toEqual({ kind: 'duplicate', existing });
    expect([...bySlot.values()]).toEqual([[1, 3], [2]]);
    const first = admitOnSlot(row(10n, 0n), usages, bySlot.get(`game\u0000${slotA}`)!, stored, 1);
    expect([first.results.get(1)?.kind, first.results.get(3)?.kind]).toEqual(['accepted', 'accepted']);
    const second = admitOnSlot(row(10n, 0n), usages, bySlot.get(`game\u0000${slotB}`)!, stored, 1);
    expect(second.results.get(2)).toMatchObject({
      kind: 'duplicate',
      existing: { id: first.accepted[0]!.id },
    });
    expect(second.reserved).toBe(0n);
  });
});
