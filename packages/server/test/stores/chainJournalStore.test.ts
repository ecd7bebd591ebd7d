import { describe, expect, it } from 'vitest';
import { ChainJournalStore } from '../../src/stores/chainJournalStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
const sender = `0x${'11'.repeat(20)}` as const;
const entry = (n: number, chainId = 31337) => ({
  hash: hash(n),
  chainId,
  seq: n,
  sender,
  nonce: n,
  raw: `0x02${n.toString(16).padStart(8, '0')}` as const,
});

describe.each(testDatabases)('chain journal store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('records each signed transaction once, in send order, then its inclusion', async () => {
    const journal = new ChainJournalStore(db());
    await journal.record(entry(2));
    await journal.record(entry(1));
    await journal.record(entry(1)); // a second record of the same hash changes nothing
    await journal.record(entry(9, 1));
    expect((await journal.entries(31337)).map((e) => e.seq)).toEqual([1, 2]);
    expect((await journal.unsettled(31337)).map((e) => e.hash)).toEqual([hash(1), hash(2)]);
    await journal.markMined(hash(1), {
      blockNumber: 7n,
      blockHash: hash(700),
      blockTimestamp: 1_700_000_000n,
      txIndex: 0,
    });
    const [first, second] = await journal.entries(31337);
    expect(first).toMatchObject({ state: 'mined', raw: entry(1).raw, nonce: 1, sender });
    expect(first!.inclusion).toEqual({
      blockNumber: 7n,
      blockHash: hash(700),
      blockTimestamp: 1_700_000_000n,
      txIndex: 0,
    });
    expect(second).toMatchObject({ state: 'sent', inclusion: undefined });
    expect((await journal.unsettled(31337)).map((e) => e.hash)).toEqual([hash(2)]);
    expect(await journal.entries(1)).toHaveLength(1);
  });

  it('drops replaced transactions from the replay set and compacts only what the chain provably holds', async () => {
    const journal = new ChainJournalStore(db());
    for (const n of [21, 22, 23]) await journal.record(entry(n, 5));
    await journal.markMined(hash(21), {
      blockNumber: 10n,
      blockHash: hash(1),
      blockTimestamp: 1n,
      txIndex: 0,
    });
    await journal.markMined(hash(22), {
      blockNumber: 20n,
      blockHash: hash(2),
      blockTimestamp: 2n,
      txIndex: 0,
    });
    await journal.markDropped([hash(23)]);
    expect((await journal.entries(5)).map((e) => e.seq)).toEqual([21, 22]);
    // Mined at or below block 10 and old enough, plus the dropped one.
    expect(await journal.compact(5, 10n, Date.now() + 1_000)).toBe(2);
    expect((await journal.entries(5)).map((e) => e.seq)).toEqual([22]);
    // Nothing created before the cut-off: nothing goes.
    expect(await journal.compact(5, 100n, 0)).toBe(0);
  });

  it('marks a mined entry whose block a reorg took lost: unsettled again, never compacted, mined again later', async () => {
    const journal = new ChainJournalStore(db());
    await journal.record(entry(31, 6));
    const at = { blockNumber: 10n, blockHash: hash(10), blockTimestamp: 1n, txIndex: 0 };
    await journal.markMined(hash(31), at);
    await journal.markLost([hash(31)]);
    expect(await journal.entries(6)).toEqual([
      expect.objectContaining({ hash: hash(31), state: 'lost', inclusion: undefined }),
    ]);
    expect((await journal.unsettled(6)).map((e) => e.hash)).toEqual([hash(31)]);
    expect(await journal.compact(6, 100n, Date.now() + 1_000)).toBe(0);
    await journal.markMined(hash(31), { ...at, blockNumber: 12n, blockHash: hash(12) });
    expect((await journal.entries(6))[0]).toMatchObject({ state: 'mined', inclusion: { blockNumber: 12n } });
    // Only a mined entry can be lost.
    await journal.record(entry(32, 6));
    await journal.markLost([hash(32)]);
    expect((await journal.entries(6))[1]).toMatchObject({ state: 'sent' });
  });
});
