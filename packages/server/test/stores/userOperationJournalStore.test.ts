import { describe, expect, it } from 'vitest';
import { UserOperationJournalStore } from '../../src/stores/userOperationJournalStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
const sender = `0x${'11'.repeat(20)}` as const;
const entry = (n: number, chainId = 31337) => ({
  userOpHash: hash(n),
  chainId,
  sender,
  nonce: 2n ** 70n + BigInt(n),
  operation: { sender, nonce: `0x${n.toString(16)}`, signature: `0x${'ab'.repeat(65)}` } as Record<
    string,
    `0x${string}`
  >,
  validUntil: 1_700_000_000 + n,
});

describe.each(testDatabases)('user operation journal store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('records each operation once, then settles it once: included or dropped, never back', async () => {
    const journal = new UserOperationJournalStore(db());
    await journal.record(entry(1));
    await journal.record(entry(1)); // the same userOpHash again changes nothing
    await journal.record(entry(2));
    await journal.record(entry(3, 1));
    expect((await journal.open(31337)).map((e) => e.userOpHash)).toEqual([hash(1), hash(2)]);
    const [first] = await journal.open(31337);
    expect(first).toMatchObject({
      sender,
      nonce: 2n ** 70n + 1n,
      operation: entry(1).operation,
      validUntil: 1_700_000_001,
      state: 'sent',
      txHash: undefined,
    });

    expect(await journal.markIncluded(hash(1), { txHash: hash(100), blockNumber: 42n })).toBe(true);
    expect(await journal.markIncluded(hash(1), { txHash: hash(101), blockNumber: 43n })).toBe(false);
    expect(await journal.markDropped(hash(1))).toBe(false);
    expect(await journal.get(hash(1))).toMatchObject({
      state: 'included',
      txHash: hash(100),
      blockNumber: 42n,
    });

    expect(await journal.markDropped(hash(2))).toBe(true);
    expect(await journal.markIncluded(hash(2), { txHash: hash(102), blockNumber: 44n })).toBe(false);
    expect((await journal.get(hash(2)))?.state).toBe('dropped');
    expect(await journal.open(31337)).toEqual([]);
    expect((await journal.open(1)).map((e) => e.userOpHash)).toEqual([hash(3)]);

    // Compaction removes settled entries only.
    expect(await journal.compact(Date.now() + 1_000)).toBe(2);
    expect(await journal.get(hash(1))).toBeUndefined();
    expect((await journal.open(1)).length).toBe(1);
  });

  it('lists the recent included entries of a chain, and takes one back to sent after a reorg, once', async () => {
    const journal = new UserOperationJournalStore(db());
    // Fresh userOpHashes: the database is the one the test above used.
    for (const n of [11, 12, 13, 14]) await journal.record(entry(n, n === 14 ? 1 : 31337));
    await journal.markIncluded(hash(11), { txHash: hash(101), blockNumber: 40n });
    await journal.markIncluded(hash(12), { txHash: hash(102), blockNumber: 45n });
    await journal.markIncluded(hash(14), { txHash: hash(104), blockNumber: 50n }); // another chain
    // hash(13) stays sent: the follow watches it, not the reorg watch.
    expect((await journal.includedSince(31337, 41n)).map((e) => e.userOpHash)).toEqual([hash(12)]);
    expect(await journal.includedSince(31337, 0n)).toMatchObject([
      { userOpHash: hash(11), txHash: hash(101), blockNumber: 40n, state: 'included' },
      { userOpHash: hash(12), txHash: hash(102), blockNumber: 45n, state: 'included' },
    ]);

    // Only the inclusion it undoes: a stale tx hash (another replica moved it already) changes nothing.
    expect(await journal.markReorged(hash(12), hash(999))).toBe(false);
    expect(await journal.markReorged(hash(12), hash(102))).toBe(true);
    expect(await journal.markReorged(hash(12), hash(102))).toBe(false);
    expect(await journal.get(hash(12))).toMatchObject({
      state: 'sent',
      txHash: undefined,
      blockNumber: undefined,
    });
    expect(await journal.markReorged(hash(13), hash(103))).toBe(false); // never included
    expect((await journal.open(31337)).map((e) => e.userOpHash)).toEqual([hash(12), hash(13)]);
    expect((await journal.includedSince(31337, 0n)).map((e) => e.userOpHash)).toEqual([hash(11)]);

    // Followed to its new receipt: included again, in the new block.
    expect(await journal.markIncluded(hash(12), { txHash: hash(202), blockNumber: 47n })).toBe(true);
    expect(await journal.get(hash(12))).toMatchObject({
      state: 'included',
      txHash: hash(202),
      blockNumber: 47n,
    });
    // Or it can no longer run: dropped, for good.
    expect(await journal.markReorged(hash(11), hash(101))).toBe(true);
    expect(await journal.markDropped(hash(11))).toBe(true);
    expect(await journal.markReorged(hash(11), hash(101))).toBe(false);
    expect((await journal.get(hash(11)))?.state).toBe('dropped');
  });
});
