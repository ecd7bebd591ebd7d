import { describe, expect, it } from 'vitest';
import type { FoundPurchase, FoundRelease } from '../../src/chain/contentTokenTypes.js';
import type { Address, Hash } from '../../src/chain/types.js';
import { AppError, OperationOutcomeUnknownError, OperationReverted } from '../../src/errors.js';
import { ChainEventIntents, type ChainEventFinder } from '../../src/services/webhooks/chainEventIntents.js';
import { WebhookIntentStore, WebhookOutbox, WebhookStore } from '../../src/stores/webhookStore.js';
import { testDatabases } from '../helpers/databases.js';
import {
  seedClient,
  seedUser,
  useTestDatabase,
  webhookEndpoint as endpoint,
} from '../stores/storeFixtures.js';

const slot = '0x00000000000000000000000000000000000000a1' as Address;
const buyer = '0x00000000000000000000000000000000000000b2' as Address;
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash;

/** The chain's logs as a list the test writes (a double of the gateway's two log queries). */
class Logs implements ChainEventFinder {
  head = 100n;
  purchases: FoundPurchase[] = [];
  releases: FoundRelease[] = [];
  async blockNumber() {
    return this.head;
  }
  async findPurchases(q: { fromBlock: bigint }) {
    return this.purchases.filter((p) => p.blockNumber >= q.fromBlock);
  }
  async findReleases(q: { fromBlock: bigint }) {
    return this.releases.filter((r) => r.blockNumber >= q.fromBlock);
  }
}

const quiet = { info() {}, warn() {} };
const match = { kind: 'purchase' as const, cuid: 'g', slot, buyer, value: '1000' };
const purchase = (n: number, block: bigint): FoundPurchase => ({
  txHash: tx(n),
  blockNumber: block,
  logIndex: 0,
  amount: 1000n,
  platformFee: 150n,
  providerAmount: 850n,
});

describe.each(testDatabases)('chain event intents ($name)', (database) => {
  const db = useTestDatabase(database);

  async function setUp(clientId: string, uuid: number) {
    await seedUser(db(), uuid);
    await seedClient(db(), clientId, uuid);
    const store = new WebhookStore(db());
    await store.insertEndpoint(
      endpoint(`wh_${clientId}`, clientId, ['content.purchased', 'content.released']),
    );
    const intents = new WebhookIntentStore(db(), new WebhookOutbox());
    const deliveries = async () =>
      (
        await db()
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('client_id', '=', clientId)
          .orderBy('msg_id')
          .execute()
      ).map((d) => ({
        msgId: d.msg_id,
        ...(JSON.parse(d.payload) as { type: string; data: Record<string, string> }),
      }));
    return { intents, deliveries };
  }

  it('the answer’s path and the sweep write the event once, under the intent’s id; no subscriber, no intent', async () => {
    const { intents, deliveries } = await setUp('ci-once', 400);
    const logs = new Logs();
    let now = 1_000_000;
    const live = new ChainEventIntents(
      intents,
      logs,
      quiet,
      { soleProcess: true, confirmations: 1 },
      () => now,
    );
    const ticket = await live.open('content.purchased', 'ci-once', { cuid: 'g' }, match, () => 90n);
    expect(ticket.msgId).toMatch(/^msg_/);
    // A restarted process (another holder) finds the purchase on chain first.
    logs.purchases.push(purchase(1, 95n));
    const restarted = new ChainEventIntents(
      intents,
      logs,
      quiet,
      { soleProcess: true, confirmations: 1 },
      () => now,
    );
    expect(await restarted.sweep()).toEqual({ completed: 1, dropped: 0, waiting: 0 });
    // The answer's path comes late: nothing more is written.
    await live.complete(ticket, { cuid: 'g', tx_hash: tx(1) }, { txHash: tx(1), logIndex: 0 });
    expect(await restarted.sweep()).toEqual({ completed: 0, dropped: 0, waiting: 0 });
    const written = await deliveries();
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      msgId: ticket.msgId,
      type: 'content.purchased',
      data: {
        client_id: 'ci-once',
        cuid: 'g',
        amount: '1000',
        platform_fee: '150',
        provider_received: '850',
        tx_hash: tx(1),
      },
    });
    // An app with no endpoint for the type: no intent, and completing writes nothing.
    const none = await live.open('content.purchased', 'no-such-app', {}, match, () => {
      throw new Error('the head is not read without a subscriber');
    });
    expect(none.msgId).toBeUndefined();
    await live.complete(none, {}, { txHash: tx(99), logIndex: 0 });
    expect(await intents.list(10)).toEqual([]);
    now += 1;
  });

  it('an orphan waits for confirmations, takes each on-chain change once, and is dropped when it never lands', async () => {
    const { intents, deliveries } = await setUp('ci-orphan', 401);
    const logs = new Logs();
    let now = 5_000_000;
    const crashed = new ChainEventIntents(
      intents,
      logs,
      quiet,
      { soleProcess: true, confirmations: 3 },
      () => now,
    );
    // Two identical purchases cut off by the crash, and one that never reached the chain.
    const a = await crashed.open('content.purchased', 'ci-orphan', {}, match, () => 10n);
    const b = await crashed.open('content.purchased', 'ci-orphan', {}, match, () => 10n);
    const lost = await crashed.open(
      'content.purchased',
      'ci-orphan',
      {},
      { ...match, value: '7' },
      () => 10n,
    );
    const release = await crashed.open(
      'content.released',
      'ci-orphan',
      { cuid: 'g', slot_address: slot },
      { kind: 'release', cuid: 'g', slot },
      () => 10n,
    );
    logs.purchases.push(purchase(11, 20n), purchase(12, 21n));
    logs.releases.push({ txHash: tx(13), blockNumber: 22n, logIndex: 2, usage: 5n, paid: 40n });
    logs.head = 22n; // 21 and 22 are not 3 deep yet
    const sweeper = new ChainEventIntents(
      intents,
      logs,
      quiet,
      { soleProcess: true, confirmations: 3 },
      () => now,
    );
    expect(await sweeper.sweep()).toEqual({ completed: 1, dropped: 0, waiting: 3 });
    logs.head = 24n;
    expect(await sweeper.sweep()).toEqual({ completed: 2, dropped: 0, waiting: 1 });
    const written = await deliveries();
    expect(written.map((d) => [d.msgId, d.type, d.data.tx_hash])).toEqual(
      [
        [a.msgId, 'content.purchased', tx(11)],
        [b.msgId, 'content.purchased', tx(12)],
        [release.msgId, 'content.released', tx(13)],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    expect(written.find((d) => d.msgId === release.msgId)!.data).toEqual({
      client_id: 'ci-orphan',
      cuid: 'g',
      slot_address: slot,
      usage: '5',
      amount: '40',
      tx_hash: tx(13),
    });
    // The one that never landed: kept until the window has passed, then dropped.
    now += 31 * 60_000;
    expect(await sweeper.sweep()).toEqual({ completed: 0, dropped: 1, waiting: 0 });
    expect((await intents.list(10)).map((i) => i.msgId)).not.toContain(lost.msgId);
  });

  it('a refused write drops its intent; an unknown outcome leaves it for the sweep; a live replica’s intent is not an orphan', async () => {
    const { intents } = await setUp('ci-abandon', 402);
    const logs = new Logs();
    const now = 9_000_000;
    const live = new ChainEventIntents(
      intents,
      logs,
      quiet,
      { soleProcess: false, confirmations: 1 },
      () => now,
    );
    const refused = await live.open('content.purchased', 'ci-abandon', {}, match, () => 1n);
    await live.abandon(refused, new AppError(409, 'insufficient_funds', 'no'));
    const reverted = await live.open('content.purchased', 'ci-abandon', {}, match, () => 1n);
    await live.abandon(
      reverted,
      OperationReverted.included({
        txHash: tx(1),
        revert: { name: 'ZeroAmount', args: [], message: 'x' },
      } as never),
    );
    const unknown = await live.open('content.purchased', 'ci-abandon', {}, match, () => 1n);
    await live.abandon(unknown, new OperationOutcomeUnknownError({ userOpHash: tx(9) }));
    expect((await intents.list(10)).map((i) => i.msgId)).toEqual([unknown.msgId]);
    // Replicas share the database: another replica's young intent is in flight, not orphaned.
    logs.purchases.push(purchase(2, 5n));
    const replica = new ChainEventIntents(
      intents,
      logs,
      quiet,
      { soleProcess: false, confirmations: 1 },
      () => now + 1_000,
    );
    expect(await replica.sweep()).toEqual({ completed: 0, dropped: 0, waiting: 0 });
    const later = new ChainEventIntents(
      intents,
      logs,
      quiet,
      { soleProcess: false, confirmations: 1 },
      () => now + 11 * 60_000,
    );
    expect(await later.sweep()).toEqual({ completed: 1, dropped: 0, waiting: 0 });
  });
});
