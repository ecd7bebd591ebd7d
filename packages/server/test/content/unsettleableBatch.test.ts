import { afterAll, describe, expect, it, vi } from 'vitest';
import { ContentTokenGateway } from '../../src/chain/contentTokenGateway.js';
import { ContentLedgerStore } from '../../src/stores/contentLedgerStore.js';
import { groupRecords } from '../../src/services/content/usageBatcher.js';
import type { TestServer } from '../helpers/server.js';
import { batchState, onChain, serverWithQueuedRecords, usageRecordCount } from './contentSupport.js';

/**
 * chainOutage.test.ts failed in CI with the stream's two batches of the outage left `sending` for a minute
 * while a hundred later ones landed: anvil, stopped mid-block, had come back with the first batch's effects
 * and without its transaction (test/chain/embeddedStopDump.test.ts). Its resend recorded nothing (the contract
 * records a batch key once) and its events could not be found, so every recovery round failed at it, and
 * the batch after it, which had never been sent, was never reached. A batch that cannot be settled must not
 * hold the others back, nor be dropped or counted twice.
 */
describe('a usage batch that cannot be settled does not hold the others back', () => {
  let server: TestServer;
  afterAll(async () => {
    await server?.close();
  });

  it('settles the batch after it and leaves it sending', async () => {
    const setUp = await serverWithQueuedRecords([1n, 2n, 3n, 4n, 5n, 6n], 'u-');
    server = setUp.server;
    const { provider, player, before, answers } = setUp;

    const ledger = new ContentLedgerStore(server.services.database.db);
    const chain = server.services.chain;
    const { client } = chain.gateway;
    const queued = await ledger.listQueued(100);
    const head = await client.getBlockNumber();
    // The first batch is on chain, but not where its events can be found: it landed before the block its
    // batch row names (as good as a block the chain lost while keeping its state).
    const lost = await ledger.openBatch(
      queued.slice(0, 3).map((r) => r.id),
      head,
    );
    await new ContentTokenGateway(chain.gateway, chain.operator, chain.calls).recordUsage({
      id: lost.batch.id,
      fromBlock: head,
      groups: groupRecords(lost.records).groups,
    });
    const afterLost = await client.getBlockNumber();
    await server.services.database.db
      .updateTable('content_batches')
      .set({ from_block: Number(afterLost + 1n) })
      .where('id', '=', lost.batch.id)
      .execute();
    await client.request({ method: 'evm_mine' as never });
    // The second was never sent.
    const next = await ledger.openBatch(
      queued.slice(3, 6).map((r) => r.id),
      afterLost,
    );

    expect(await server.services.content.batcher.recover()).toBe(false);
    expect(await batchState(server, next.batch.id)).toBe('included');
    expect(await batchState(server, lost.batch.id)).toBe('sending');
    expect(await usageRecordCount(server, ['included'])).toBe(3);
    expect(await usageRecordCount(server, ['sent'])).toBe(3);
    // Both batches are on chain once: the resend of the first recorded nothing.
    const sum = [...lost.records, ...next.records].reduce((s, r) => s + r.amount, 0n);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({
      balance: before.balance - sum,
      used: before.used + sum,
    });

    // The batch waits out a back-off (1 s, then twice as long each time, at most 5 minutes) instead of being
    // tried, and logged at error, every round: the rounds before it neither look for it nor resend it.
    const batcher = server.services.content.batcher;
    const [stuck] = batcher.diagnostics().stuck;
    expect(stuck).toMatchObject({ id: lost.batch.id, failures: 1 });
    const firstTry = Date.now();
    expect(stuck!.retryAt - firstTry).toBeGreaterThan(0);
    expect(stuck!.retryAt - firstTry).toBeLessThanOrEqual(1_000);
    const port = (batcher as unknown as { chain: { findUsageBatch: (...args: never[]) => Promise<unknown> } })
      .chain;
    const find = port.findUsageBatch.bind(port);
    let lookups = 0;
    port.findUsageBatch = (...args) => {
      lookups++;
      return find(...args);
    };
    expect(await batcher.recover()).toBe(false);
    expect(lookups).toBe(0);
    // Past its retry time (the clock moved on, no sleep) it is tried once more, then waits 2 s.
    const later = stuck!.retryAt + 1;
    const clock = vi.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(await batcher.recover()).toBe(false);
    } finally {
      clock.mockRestore();
    }
    // (A try looks for the batch, resends it and looks again.)
    expect(lookups).toBeGreaterThan(0);
    expect(batcher.diagnostics().stuck).toEqual([{ id: lost.batch.id, failures: 2, retryAt: later + 2_000 }]);
    expect(await batchState(server, lost.batch.id)).toBe('sending');

    await server.close();
    await Promise.all(answers);
  }, 60_000);
});
