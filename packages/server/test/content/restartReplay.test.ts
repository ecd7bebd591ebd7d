import { afterAll, describe, expect, it } from 'vitest';
import { ContentTokenGateway } from '../../src/chain/contentTokenGateway.js';
import { ContentLedgerStore } from '../../src/stores/contentLedgerStore.js';
import { groupRecords } from '../../src/services/content/usageBatcher.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  onChain,
  payloadOf,
  queueWithBatcherStopped,
  usageRecordCount,
} from './contentSupport.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('accepted records survive a restart, and batches left open are settled from the chain', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
  });

  it('replays queued records at start, completes a batch that landed unrecorded, and resends one that never left', async () => {
    const first = await startTestServer();
    servers.push(first);
    const provider = await newProvider(first);
    const player = await newPlayer(first, provider);
    expect((await buy(first, provider, player, '100000')).status).toBe(200);
    const before = await onChain(first, provider.cuid, player.slot);

    // The batcher is stopped: accepted records stay queued (as if the process died right after accepting).
    const amounts = Array.from({ length: 30 }, (_, i) => BigInt(i + 1));
    const pending = await queueWithBatcherStopped(first, provider, player, amounts, 'replay-');
    expect(await usageRecordCount(first, ['queued'])).toBe(amounts.length);

    // Two batches left open by a crash: one was sent and landed (but was never recorded), one never left.
    const ledger = new ContentLedgerStore(first.services.database.db);
    const chain = first.services.chain;
    const gateway = new ContentTokenGateway(chain.gateway, chain.operator, chain.calls);
    const queued = await ledger.listQueued(100);
    const head = await chain.gateway.client.getBlockNumber();
    const landed = await ledger.openBatch(
      queued.slice(0, 10).map((r) => r.id),
      head,
    );
    await gateway.recordUsage({
      id: landed.batch.id,
      fromBlock: head,
      groups: groupRecords(landed.records).groups,
    });
    await ledger.openBatch(
      queued.slice(10, 20).map((r) => r.id),
      head,
    );
    const landedSum = landed.records.reduce((s, r) => s + r.amount, 0n);
    expect(await onChain(first, provider.cuid, player.slot)).toEqual({
      balance: before.balance - landedSum,
      used: before.used + landedSum,
    });

    // Shutting down answers the waiting callers 202 (their records are stored), without waiting for the chain.
    const closing = first.close();
    const answers = await Promise.all(pending);
    await closing;
    expect(answers.every((a) => a.status === 202 && a.body.status === 'queued')).toBe(true);

    // The next start settles both open batches and sends everything else, each record exactly once.
    const second = await startTestServer({ dataDir: first.dataDir });
    servers.push(second);
    for (let i = 0; i < 200 && (await usageRecordCount(second, ['included'])) < amounts.length; i++)
      await sleep(100);
    expect(await usageRecordCount(second, ['included'])).toBe(amounts.length);
    expect(await usageRecordCount(second, ['queued'])).toBe(0);
    expect(await usageRecordCount(second, ['sent'])).toBe(0);
    const total = amounts.reduce((s, a) => s + a, 0n);
    expect(await onChain(second, provider.cuid, player.slot)).toEqual({
      balance: before.balance - total,
      used: before.used + total,
    });
    // The batch that landed was attributed to its real transaction, not sent again.
    const landedRows = await second.services.database.db
      .selectFrom('content_batches')
      .selectAll()
      .where('id', '=', landed.batch.id)
      .executeTakeFirstOrThrow();
    expect(landedRows.state).toBe('included');

    // A retry with the same request_id now returns the recorded result (200 with its transaction).
    const retry = await consume(second, {
      encrypted_message: encryptPayload(
        provider,
        payloadOf(provider, player, amounts[0]!, { request_id: 'replay-0' }),
      ),
    });
    expect(retry.status).toBe(200);
    expect(retry.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
