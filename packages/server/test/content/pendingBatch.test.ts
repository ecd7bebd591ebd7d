import { afterAll, describe, expect, it } from 'vitest';
import { ContentLedgerStore } from '../../src/stores/contentLedgerStore.js';
import type { TestServer } from '../helpers/server.js';
import { batchState, onChain, serverWithQueuedRecords, usageRecordCount } from './contentSupport.js';

/** anvil's development account #9: the service never sends from it. */
const IDLE_DEV_ACCOUNT = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';

/**
 * chainOutage.test.ts failed now and then with records left `sent` after its drain: batches left `sending`
 * by the outage, the first of them naming a transaction that the node reported as waiting in its pool, and
 * none settled for a minute. Recovery stopped at the first waiting batch, so every batch after it (two had
 * never been sent at all) waited as long as that transaction did, and one behind a nonce gap waits forever.
 */
describe('a batch whose transaction waits in the pool does not hold the others back', () => {
  let server: TestServer;
  afterAll(async () => {
    await server?.close();
  });

  it('settles the batches behind it at once', async () => {
    const setUp = await serverWithQueuedRecords(
      Array.from({ length: 6 }, (_, i) => BigInt(i + 1)),
      'p-',
    );
    server = setUp.server;
    const { provider, player, before, answers } = setUp;

    // A transaction that waits in the node's pool for good: its nonce leaves a gap.
    const { client } = server.services.chain.gateway;
    const nonce = await client.getTransactionCount({ address: IDLE_DEV_ACCOUNT, blockTag: 'pending' });
    const waiting = (await client.request({
      method: 'eth_sendTransaction' as never,
      params: [
        {
          from: IDLE_DEV_ACCOUNT,
          to: IDLE_DEV_ACCOUNT,
          value: '0x0',
          nonce: `0x${(nonce + 1).toString(16)}`,
        },
      ] as never,
    })) as `0x${string}`;
    expect((await client.getTransaction({ hash: waiting })).blockNumber).toBeNull();

    // Two batches left `sending`: the first names that transaction, the second was never sent.
    const ledger = new ContentLedgerStore(server.services.database.db);
    const queued = await ledger.listQueued(100);
    const head = await client.getBlockNumber();
    const first = await ledger.openBatch(
      queued.slice(0, 3).map((r) => r.id),
      head,
    );
    await ledger.setBatchHint(first.batch.id, waiting);
    const second = await ledger.openBatch(
      queued.slice(3, 6).map((r) => r.id),
      head,
    );

    // Unsettled while the first waits (false), but the second is on chain now; before, neither moved.
    expect(await server.services.content.batcher.recover()).toBe(false);
    expect(await batchState(server, second.batch.id)).toBe('included');
    expect(await batchState(server, first.batch.id)).toBe('sending');
    const secondSum = second.records.reduce((s, r) => s + r.amount, 0n);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({
      balance: before.balance - secondSum,
      used: before.used + secondSum,
    });
    expect(await usageRecordCount(server, ['included'])).toBe(3);

    // Shutting down answers the waiting callers (202: stored); the first batch is the next start's.
    await server.close();
    await Promise.all(answers);
  }, 60_000);
});
