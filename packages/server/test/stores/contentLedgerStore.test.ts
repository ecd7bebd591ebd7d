import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { ContentLedgerStore, type NewUsage } from '../../src/stores/contentLedgerStore.js';
import { testDatabases } from '../helpers/databases.js';

const slotA = '0x00000000000000000000000000000000000000aA' as const;
const slotB = '0x00000000000000000000000000000000000000bB' as const;

const usage = (slot: `0x${string}`, amount: bigint, requestKey?: string): NewUsage => ({
  clientId: 'client-1',
  cuid: 'game',
  slot,
  slotId: '1000000000000000001',
  amount,
  requestKey,
});

describe.each(testDatabases)('content ledger store ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let ledger: ContentLedgerStore;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
    ledger = new ContentLedgerStore(handle.db);
  });
  afterAll(() => dispose());

  it('admits records in order while the available balance covers them, in one transaction', async () => {
    await ledger.insertBalance('game', slotA, { balance: 100n, used: 0n, block: 10n });
    const results = await ledger.reserveMany([
      usage(slotA, 60n),
      usage(slotA, 50n),
      usage(slotA, 40n),
      usage(slotB, 1n),
      usage(slotA, 1n, 'k1'),
      usage(slotA, 1n, 'k1'),
    ]);
    expect(results.map((r) => r.kind)).toEqual([
      'accepted',
      'insufficient',
      'accepted',
      'no_balance_row',
      'insufficient',
      'insufficient',
    ]);
    expect(results[1]).toMatchObject({ available: 40n });
    const row = await ledger.findBalance('game', slotA);
    expect(row).toMatchObject({ chainBalance: 100n, reserved: 100n });
    expect(await ledger.countByState('queued')).toBe(2);
  });

  it('counts a request key once, within one call and across calls', async () => {
    await ledger.insertBalance('game', slotB, { balance: 10n, used: 0n, block: 10n });
    const [first, repeat] = await ledger.reserveMany([usage(slotB, 2n, 'k2'), usage(slotB, 2n, 'k2')]);
    expect(first?.kind).toBe('accepted');
    expect(repeat).toMatchObject({ kind: 'duplicate' });
    const later = await ledger.reserve(usage(slotB, 2n, 'k2'));
    expect(later.kind).toBe('duplicate');
    if (first?.kind === 'accepted' && later.kind === 'duplicate')
      expect(later.existing.id).toBe(first.record.id);
    expect(await ledger.findBalance('game', slotB)).toMatchObject({ reserved: 2n });
  });

  it('completes a batch: records included with their figures, reservations released, chain figures moved', async () => {
    const queued = await ledger.listQueued(100);
    const { batch, records } = await ledger.openBatch(
      queued.map((r) => r.id),
      10n,
    );
    expect(records).toHaveLength(3);
    const a = records.filter((r) => r.slot === slotA);
    const done = await ledger.completeBatch(batch.id, {
      txHash: `0x${'ab'.repeat(32)}`,
      blockNumber: 11n,
      records: records.map((r, i) => ({
        id: r.id,
        balanceAfter: 1000n - BigInt(i),
        usedAfter: BigInt(i + 1),
      })),
    });
    expect(done).toBe(true);
    // Completing twice changes nothing.
    expect(await ledger.completeBatch(batch.id, { txHash: '0x00', blockNumber: 12n, records: [] })).toBe(
      false,
    );
    const rowA = await ledger.findBalance('game', slotA);
    expect(rowA?.reserved).toBe(0n);
    expect(rowA?.chainBlock).toBe(11n);
    const stored = await Promise.all(a.map((r) => ledger.findUsage(r.id)));
    expect(stored.every((r) => r?.state === 'included' && r.txHash === `0x${'ab'.repeat(32)}`)).toBe(true);
    expect(new Set(stored.map((r) => r?.usedAfter)).size).toBe(a.length);
  });

  it('after a chain rewind, reopens batches of lost blocks for settling and marks later balance reads stale', async () => {
    expect(await ledger.reopenAfterRewind(10n)).toBe(1);
    const [reopened] = await ledger.listSendingBatches();
    expect(reopened).toMatchObject({ txHint: `0x${'ab'.repeat(32)}`, txHash: undefined, fromBlock: 10n });
    expect(await ledger.countByState('sent')).toBe(3);
    expect(await ledger.findBalance('game', slotA)).toMatchObject({ reserved: 100n, chainBlock: -1n });
    // A stale row sends admission to the chain first.
    expect((await ledger.reserve(usage(slotA, 1n))).kind).toBe('no_balance_row');
    expect(await ledger.refreshBalance('game', slotA, { balance: 200n, used: 0n, block: 10n })).toBe(true);
    expect((await ledger.reserve(usage(slotA, 1n))).kind).toBe('accepted');
    // Not found on chain: back to the queue.
    expect(await ledger.dropBatch(reopened!.id)).toBe(true);
    expect(await ledger.countByState('queued')).toBe(4);
  });

  it('drops a batch back to the queue, and fails refused records releasing their reservation', async () => {
    const queued = await ledger.listQueued(100);
    const { batch } = await ledger.openBatch(
      queued.map((r) => r.id),
      10n,
    );
    expect(await ledger.listSendingBatches()).toHaveLength(1);
    expect(await ledger.dropBatch(batch.id)).toBe(true);
    expect(await ledger.dropBatch(batch.id)).toBe(false);
    expect(await ledger.countByState('queued')).toBe(queued.length);
    const before = await ledger.findBalance('game', slotA);
    const victim = queued.find((r) => r.slot === slotA)!;
    await ledger.failRecords([victim.id], 'insufficient_balance_on_chain');
    expect((await ledger.findUsage(victim.id))?.state).toBe('failed');
    expect((await ledger.findBalance('game', slotA))?.reserved).toBe(before!.reserved - victim.amount);
  });

  // Last: its queued records would count in the batch tests above.
  it('admits a call spanning several cuids and slots: each slot row locked and its reserved raised once', async () => {
    const slots = [
      '0x00000000000000000000000000000000000000c1',
      '0x00000000000000000000000000000000000000c2',
    ] as const;
    const other = (slot: `0x${string}`, amount: bigint): NewUsage => ({
      ...usage(slot, amount),
      cuid: 'other',
    });
    await ledger.insertBalance('game', slots[0], { balance: 10n, used: 0n, block: 10n });
    await ledger.insertBalance('game', slots[1], { balance: 5n, used: 0n, block: 10n });
    await ledger.insertBalance('other', slots[0], { balance: 7n, used: 0n, block: 10n });
    const results = await ledger.reserveMany([
      usage(slots[0], 4n),
      other(slots[0], 7n),
      usage(slots[1], 6n),
      usage(slots[0], 6n),
      other(slots[1], 1n),
      usage(slots[1], 5n),
      other(slots[0], 1n),
    ]);
    expect(results.map((r) => r.kind)).toEqual([
      'accepted',
      'accepted',
      'insufficient',
      'accepted',
      'no_balance_row',
      'accepted',
      'insufficient',
    ]);
    expect(await ledger.findBalance('game', slots[0])).toMatchObject({ reserved: 10n });
    expect(await ledger.findBalance('game', slots[1])).toMatchObject({ reserved: 5n });
    expect(await ledger.findBalance('other', slots[0])).toMatchObject({ reserved: 7n });
    expect(await ledger.findBalance('other', slots[1])).toBeUndefined();
  });
  it('two batches of one block completed in either order leave the later figures (used only grows)', async () => {
    for (const [slot, reverse] of [
      ['0x00000000000000000000000000000000000000d1', false],
      ['0x00000000000000000000000000000000000000d2', true],
    ] as const) {
      const mine = (amount: bigint): NewUsage => ({ ...usage(slot, amount), cuid: 'order' });
      await ledger.insertBalance('order', slot, { balance: 100n, used: 0n, block: 20n });
      const ids = (await ledger.reserveMany([mine(10n), mine(5n)])).map((r) =>
        r.kind === 'accepted' ? r.record.id : '',
      );
      const first = await ledger.openBatch([ids[0]!], 20n);
      const second = await ledger.openBatch([ids[1]!], 20n);
      // On chain `first` ran before `second`, both in block 21.
      const inclusion = (id: string, balanceAfter: bigint, usedAfter: bigint) => ({
        txHash: `0x${'cd'.repeat(32)}`,
        blockNumber: 21n,
        records: [{ id, balanceAfter, usedAfter }],
      });
      const completions = [
        () => ledger.completeBatch(first.batch.id, inclusion(ids[0]!, 90n, 10n)),
        () => ledger.completeBatch(second.batch.id, inclusion(ids[1]!, 85n, 15n)),
      ];
      if (reverse) completions.reverse();
      for (const complete of completions) expect(await complete()).toBe(true);
      expect(await ledger.findBalance('order', slot)).toMatchObject({
        chainBalance: 85n,
        chainUsed: 15n,
        chainBlock: 21n,
        reserved: 0n,
      });
    }
  });

  it('keys records by time-ordered UUIDs (v7): a later record sorts after an earlier one', async () => {
    const slot = '0x00000000000000000000000000000000000000e1' as const;
    await ledger.insertBalance('ids', slot, { balance: 100n, used: 0n, block: 10n });
    const mine = { ...usage(slot, 1n), cuid: 'ids' };
    const at = Date.UTC(2026, 10, 29, 9, 0, 0);
    const [early] = await ledger.reserveMany([mine], at);
    const [late] = await ledger.reserveMany([mine], at + 1);
    if (early?.kind !== 'accepted' || late?.kind !== 'accepted') throw new Error('not admitted');
    expect(early.record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The first 48 bits are the admission time in milliseconds.
    expect(parseInt(early.record.id.replace('-', '').slice(0, 12), 16)).toBe(at);
    expect(late.record.id > early.record.id).toBe(true);
    expect((await ledger.findUsage(late.record.id))?.acceptedAt).toBe(at + 1);
  });

  it('admits while another transaction holds the connection, after it and outside it', async () => {
    const slot = '0x00000000000000000000000000000000000000e2' as const;
    await ledger.insertBalance('held', slot, { balance: 5n, used: 0n, block: 10n });
    const mine = { ...usage(slot, 2n), cuid: 'held' };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let admitted: Promise<unknown> | undefined;
    // On SQLite the native path must not run inside the open transaction (it would become a savepoint of
    // it, rolled back with it): it takes the Kysely path, which waits for the connection.
    const outer = handle.db
      .transaction()
      .execute(async (trx) => {
        await trx.selectFrom('content_balances').selectAll().execute();
        admitted = ledger.reserveMany([mine]);
        await held;
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await outer;
    expect(((await admitted) as { kind: string }[])[0]?.kind).toBe('accepted');
    expect(await ledger.findBalance('held', slot)).toMatchObject({ reserved: 2n });
  });

  it('completes a full batch with each record’s own figures (more records than one statement takes)', async () => {
    const slotC = '0x00000000000000000000000000000000000000cC' as const;
    await ledger.insertBalance('game', slotC, { balance: 10_000n, used: 0n, block: 20n });
    const admitted = await ledger.reserveMany(Array.from({ length: 450 }, () => usage(slotC, 2n)));
    expect(admitted.every((r) => r.kind === 'accepted')).toBe(true);
    const { batch, records } = await ledger.openBatch(
      admitted.map((r) => (r.kind === 'accepted' ? r.record.id : '')),
      20n,
    );
    expect(records).toHaveLength(450);
    const figures = records.map((r, i) => ({
      id: r.id,
      balanceAfter: 10_000n - 2n * BigInt(i + 1),
      usedAfter: 2n * BigInt(i + 1),
    }));
    const txHash = `0x${'cd'.repeat(32)}`;
    expect(await ledger.completeBatch(batch.id, { txHash, blockNumber: 21n, records: figures })).toBe(true);
    const stored = await ledger.listBatchRecords(batch.id);
    expect(stored).toHaveLength(450);
    const byId = new Map(stored.map((r) => [r.id, r]));
    for (const f of figures) {
      expect(byId.get(f.id)).toMatchObject({
        state: 'included',
        txHash,
        blockNumber: 21n,
        balanceAfter: f.balanceAfter,
        usedAfter: f.usedAfter,
      });
    }
    expect(await ledger.findBalance('game', slotC)).toMatchObject({
      reserved: 0n,
      chainBalance: 10_000n - 900n,
      chainUsed: 900n,
      chainBlock: 21n,
    });
  });
});
