import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, nativeSqlite, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { ContentLedgerStore, type NewUsage } from '../../src/stores/contentLedgerStore.js';
import { testDatabases } from '../helpers/databases.js';

const slots = [
  '0x00000000000000000000000000000000000000f1',
  '0x00000000000000000000000000000000000000f2',
  '0x00000000000000000000000000000000000000f3',
] as const;

const usage = (slot: number, amount: bigint, requestKey?: string): NewUsage => ({
  clientId: 'client-1',
  cuid: 'game',
  slot: slots[slot]!,
  slotId: `100000000000000000${slot}`,
  amount,
  requestKey,
});

/** One scenario of admissions and batch openings; the same answers and rows whatever the path. */
async function scenario(ledger: ContentLedgerStore): Promise<void> {
  await ledger.insertBalance('game', slots[0], { balance: 10n, used: 0n, block: 10n });
  await ledger.insertBalance('game', slots[1], { balance: 3n, used: 0n, block: 10n });
  const results = await ledger.reserveMany(
    [
      usage(0, 4n, 'k1'),
      usage(1, 2n),
      usage(0, 4n, 'k1'),
      usage(2, 1n),
      usage(1, 2n),
      usage(0, 6n),
      usage(0, 1n),
    ],
    5_000,
  );
  expect(results.map((r) => r.kind)).toEqual([
    'accepted',
    'accepted',
    'duplicate',
    'no_balance_row',
    'insufficient',
    'accepted',
    'insufficient',
  ]);
  expect(results[4]).toMatchObject({ available: 1n });
  const first = results[0]!;
  if (first.kind !== 'accepted') throw new Error('not admitted');
  expect(results[2]).toMatchObject({ existing: { id: first.record.id } });
  expect(await ledger.findBalance('game', slots[0])).toMatchObject({ reserved: 10n, version: 1 });
  expect(await ledger.findBalance('game', slots[1])).toMatchObject({ reserved: 2n, version: 1 });
  // A stored key repeats: the stored record, nothing else changes.
  const [again] = await ledger.reserveMany([usage(0, 1n, 'k1')], 6_000);
  expect(again).toMatchObject({ kind: 'duplicate', existing: { id: first.record.id, acceptedAt: 5_000 } });

  const queued = await ledger.listQueued(10);
  // One admission time: ordered by id within it (time-ordered, random below the millisecond).
  expect(queued.map((r) => [r.slot, r.amount, r.requestKey, r.state]).sort()).toEqual(
    [
      [slots[0], 4n, 'k1', 'queued'],
      [slots[1], 2n, undefined, 'queued'],
      [slots[0], 6n, undefined, 'queued'],
    ].sort(),
  );
  const { batch, records } = await ledger.openBatch([...queued.map((r) => r.id), 'not-a-record'], 12n, 7_000);
  expect(records.map((r) => [r.id, r.state, r.batchId])).toEqual(queued.map((r) => [r.id, 'sent', batch.id]));
  expect(await ledger.findBatch(batch.id)).toMatchObject({
    state: 'sending',
    fromBlock: 12n,
    records: 3,
    createdAt: 7_000,
  });
  // Records already in a batch do not join another.
  const second = await ledger.openBatch(
    queued.map((r) => r.id),
    12n,
    8_000,
  );
  expect(second.records).toEqual([]);
  expect(await ledger.countByState('queued')).toBe(0);
}

/**
 * The ledger's native SQLite writes (contentLedgerNative.ts: admission and batch opening) decide and write
 * exactly what the Kysely path does: the same scenario gives the same answers and rows on the native path
 * (SQLite), on SQLite's Kysely path (statements traced: no native handle) and on PostgreSQL (Kysely).
 */
describe.each(testDatabases)('content ledger native writes ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
  });
  afterAll(() => dispose());

  it('admits, refuses and opens a batch (natively on SQLite)', async () => {
    expect(nativeSqlite(handle.db) !== undefined).toBe(database.name === 'sqlite');
    await scenario(new ContentLedgerStore(handle.db));
  });

  it.runIf(database.name === 'sqlite')(
    'does the same on SQLite through Kysely (statements traced)',
    async () => {
      const traced = openDatabase({ sqlitePath: ':memory:', traced: true });
      try {
        await migrateToLatest(traced.db);
        expect(nativeSqlite(traced.db)).toBeUndefined();
        await scenario(new ContentLedgerStore(traced.db));
      } finally {
        await traced.close();
      }
    },
  );
});
