import { describe, expect, it } from 'vitest';
import { WebhookOutbox, WebhookStore } from '../../src/stores/webhookStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase, webhookEndpoint as endpoint } from './storeFixtures.js';

// WebhookFinishes records attempts' outcomes by group commit, behind `WebhookStore.finishAttempt`.
describe.each(testDatabases)('webhook attempt finishes ($name)', (database) => {
  const db = useTestDatabase(database);

  it('the attempts finished in one turn are one commit: each held lease recorded, a stale holder’s not', async () => {
    await seedUser(db(), 305);
    await seedClient(db(), 'wh-turn', 305);
    const store = new WebhookStore(db());
    const outbox = new WebhookOutbox();
    await store.insertEndpoint(endpoint('wh_t1', 'wh-turn', ['grant.created']));
    await store.insertEndpoint(endpoint('wh_t2', 'wh-turn', ['grant.created']));
    await store.insertEndpoint(endpoint('wh_t3', 'wh-turn', ['grant.created']));
    await store.insertEndpoint(endpoint('wh_t4', 'wh-turn', ['grant.created']));
    for (let n = 0; n < 3; n++) {
      await outbox.record(db(), { type: 'grant.created', clientId: 'wh-turn', data: { n }, at: 50 + n });
    }
    const leased = (await store.claim('w1', 100, 20, 1_000)).filter((d) => d.endpointId.startsWith('wh_t'));
    expect(leased).toHaveLength(12);
    const of = (id: string) => leased.filter((d) => d.endpointId === id);
    // The batch ends as its finishes applied one by one, in order, would leave the endpoints.
    // wh_t1 and wh_t4 have been failing since 7: on wh_t1 one delivery is given up, then one succeeds →
    // cleared; on wh_t4 one succeeds, then one is given up → failing since that one.
    await db()
      .updateTable('webhook_endpoints')
      .set({ failing_since: 7 })
      .where('id', 'in', ['wh_t1', 'wh_t4'])
      .execute();
    // wh_t2: two given up in the batch → failing since the first one's attempt.
    // wh_t3: one delivered, one retried later, one whose lease went to another holder meanwhile.
    const stolen = of('wh_t3')[2]!;
    await db()
      .updateTable('webhook_deliveries')
      .set({ leased_by: 'w2' })
      .where('endpoint_id', '=', stolen.endpointId)
      .where('msg_id', '=', stolen.msgId)
      .execute();
    const finish = (
      d: (typeof leased)[number],
      at: number,
      outcome: 'delivered' | 'refused' | 'timeout',
      state: 'delivered' | 'pending' | 'failed',
    ) =>
      store.finishAttempt({
        holder: 'w1',
        endpointId: d.endpointId,
        msgId: d.msgId,
        attempt: {
          attempt: 1,
          at,
          outcome,
          status: outcome === 'timeout' ? undefined : outcome === 'delivered' ? 204 : 503,
          durationMs: 2.4,
          error: outcome === 'timeout' ? 'no answer within 10000 ms' : undefined,
        },
        next: { state, nextAttemptAt: state === 'pending' ? 5_000 : at },
      });
    const before = store.finishBatches();
    const outcomes = await Promise.all([
      finish(of('wh_t1')[0]!, 110, 'timeout', 'failed'),
      finish(of('wh_t1')[1]!, 111, 'delivered', 'delivered'),
      finish(of('wh_t2')[0]!, 113, 'refused', 'failed'),
      finish(of('wh_t2')[1]!, 112, 'timeout', 'failed'),
      finish(of('wh_t3')[0]!, 114, 'delivered', 'delivered'),
      finish(of('wh_t3')[1]!, 115, 'refused', 'pending'),
      finish(stolen, 116, 'delivered', 'delivered'),
      finish(of('wh_t4')[0]!, 117, 'delivered', 'delivered'),
      finish(of('wh_t4')[1]!, 118, 'timeout', 'failed'),
    ]);
    expect(outcomes).toEqual([true, true, true, true, true, true, false, true, true]);
    expect(store.finishBatches()).toEqual({ batches: before.batches + 1, finishes: before.finishes + 9 });

    expect((await store.findEndpoint('wh-turn', 'wh_t1'))!.failingSince).toBeUndefined();
    expect((await store.findEndpoint('wh-turn', 'wh_t2'))!.failingSince).toBe(113);
    expect((await store.findEndpoint('wh-turn', 'wh_t3'))!.failingSince).toBeUndefined();
    expect((await store.findEndpoint('wh-turn', 'wh_t4'))!.failingSince).toBe(118);
    const delivery = (d: (typeof leased)[number]) => store.findDelivery(d.endpointId, d.msgId);
    expect(await delivery(of('wh_t3')[0]!)).toMatchObject({
      state: 'delivered',
      attempts: 1,
      lastStatus: 204,
      deliveredAt: 114,
    });
    expect(await delivery(of('wh_t3')[1]!)).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: 5_000,
      lastStatus: 503,
      deliveredAt: undefined,
    });
    expect(await delivery(of('wh_t2')[1]!)).toMatchObject({
      state: 'failed',
      lastError: 'no answer within 10000 ms',
    });
    // The stolen one: untouched, still the other holder's, no attempt recorded.
    expect(await delivery(stolen)).toMatchObject({ state: 'pending', attempts: 0 });
    const attempts = await store.listAttempts(
      'wh_t3',
      of('wh_t3').map((d) => d.msgId),
    );
    expect(attempts.get(of('wh_t3')[0]!.msgId)).toEqual([
      { attempt: 1, at: 114, outcome: 'delivered', status: 204, durationMs: 2, error: undefined },
    ]);
    expect(attempts.get(stolen.msgId) ?? []).toEqual([]);
  });

  it.runIf(database.name === 'sqlite')(
    'a finish while a Kysely transaction holds SQLite’s connection waits for it and is committed after',
    async () => {
      await seedUser(db(), 306);
      await seedClient(db(), 'wh-held', 306);
      const store = new WebhookStore(db());
      await store.insertEndpoint(endpoint('wh_h', 'wh-held', ['grant.created']));
      await new WebhookOutbox().record(db(), { type: 'grant.created', clientId: 'wh-held', data: {}, at: 5 });
      const [d] = (await store.claim('w', 10, 10, 1_000)).filter((x) => x.endpointId === 'wh_h');
      let finished: Promise<boolean> | undefined;
      await db()
        .transaction()
        .execute(async (trx) => {
          await trx.selectFrom('webhook_endpoints').select('id').execute();
          finished = store.finishAttempt({
            holder: 'w',
            endpointId: 'wh_h',
            msgId: d!.msgId,
            attempt: {
              attempt: 1,
              at: 11,
              outcome: 'delivered',
              status: 200,
              durationMs: 1,
              error: undefined,
            },
            next: { state: 'delivered', nextAttemptAt: 11 },
          });
          // Let the turn flush while the transaction holds the connection: the finish must not join it.
          await new Promise((resolve) => setImmediate(resolve));
          await trx
            .updateTable('webhook_endpoints')
            .set({ url: 'https://hooks.example/moved' })
            .where('id', '=', 'wh_h')
            .execute();
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      expect(await finished).toBe(true);
      expect((await store.findDelivery('wh_h', d!.msgId))!.state).toBe('delivered');
      expect((await store.findEndpoint('wh-held', 'wh_h'))!.url).toBe('https://hooks.example/wh_h');
    },
  );
});
