import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BackendCodeStore } from '../../src/stores/backendCodeStore.js';
import { ContentLedgerStore } from '../../src/stores/contentLedgerStore.js';
import { LoginStatusStore } from '../../src/stores/loginStatusStore.js';
import { OAuthGrantStore } from '../../src/stores/oauthGrantStore.js';
import { nativeSqlite } from '../../src/db/database.js';
import { WebhookOutbox, WebhookStore } from '../../src/stores/webhookStore.js';
import { testDatabases } from '../helpers/databases.js';
import {
  seedClient,
  seedSlot,
  seedUser,
  useTestDatabase,
  webhookEndpoint as endpoint,
} from './storeFixtures.js';

describe.each(testDatabases)('webhook store and outbox ($name)', (database) => {
  const db = useTestDatabase(database);

  it('writes one delivery per live endpoint subscribed to the type, in the caller’s transaction', async () => {
    await seedUser(db(), 300);
    await seedClient(db(), 'wh-app', 300);
    const store = new WebhookStore(db());
    const outbox = new WebhookOutbox();
    await store.insertEndpoint(endpoint('wh_a', 'wh-app', ['status.changed', 'grant.created']));
    await store.insertEndpoint(endpoint('wh_b', 'wh-app', ['grant.created']));
    await store.insertEndpoint(endpoint('wh_c', 'wh-app', ['status.changed']));
    await store.deleteEndpoint('wh-app', 'wh_c', 2);
    // `status.changedx` must not match `status.changed` (the list is comma-delimited).
    await store.insertEndpoint(endpoint('wh_d', 'wh-app', ['grant.revoked']));

    const statuses = new LoginStatusStore(db(), outbox);
    await statuses.upsert({ userUuid: 300, clientId: 'wh-app', status: 'logged_out', updatedAt: 10 });
    // The same status again is no change: no event.
    await statuses.upsert({ userUuid: 300, clientId: 'wh-app', status: 'logged_out', updatedAt: 11 });
    const rows = await db().selectFrom('webhook_deliveries').selectAll().execute();
    expect(rows.map((r) => r.endpoint_id)).toEqual(['wh_a']);
    expect(JSON.parse(rows[0]!.payload)).toEqual({
      type: 'status.changed',
      timestamp: new Date(10).toISOString(),
      data: { client_id: 'wh-app', user_id: '300', status: 'logged_out', previous: null },
    });

    // A transaction that rolls back leaves no delivery behind.
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await outbox.record(trx, { type: 'grant.created', clientId: 'wh-app', data: { grant_id: 'g1' } });
          throw new Error('rolled back');
        }),
    ).rejects.toThrow('rolled back');
    expect(await db().selectFrom('webhook_deliveries').selectAll().execute()).toHaveLength(1);
  });

  it('leases each due delivery to one holder, keeps order per key, and records attempts', async () => {
    await seedUser(db(), 301);
    await seedClient(db(), 'wh-order', 301);
    const store = new WebhookStore(db());
    const outbox = new WebhookOutbox();
    await store.insertEndpoint(endpoint('wh_o', 'wh-order', ['slot.created', 'slot.transferred']));
    await outbox.record(
      db(),
      { type: 'slot.created', clientId: 'wh-order', orderKey: 'slot:1', data: { slot_id: '1' }, at: 100 },
      { type: 'slot.transferred', clientId: 'wh-order', orderKey: 'slot:1', data: { slot_id: '1' }, at: 101 },
      { type: 'slot.created', clientId: 'wh-order', orderKey: 'slot:2', data: { slot_id: '2' }, at: 102 },
    );
    const mine = <T extends { endpointId: string }>(list: T[]) => list.filter((d) => d.endpointId === 'wh_o');
    const first = mine(await store.claim('a', 1_000, 10, 5_000));
    // The transfer of slot 1 waits behind its creation; slot 2 is independent.
    expect(first.map((d) => JSON.parse(d.payload).data.slot_id as string).sort()).toEqual(['1', '2']);
    expect(first.find((d) => d.type === 'slot.transferred')).toBeUndefined();
    // Another holder gets nothing while the leases run.
    expect(mine(await store.claim('b', 1_001, 10, 5_000))).toEqual([]);
    const created1 = first.find((d) => JSON.parse(d.payload).data.slot_id === '1')!;
    const done = await store.finishAttempt({
      holder: 'a',
      endpointId: 'wh_o',
      msgId: created1.msgId,
      attempt: { attempt: 1, at: 1_002, outcome: 'delivered', status: 204, durationMs: 3, error: undefined },
      next: { state: 'delivered', nextAttemptAt: 1_002 },
    });
    expect(done).toBe(true);
    // A stale holder cannot overwrite the outcome.
    expect(
      await store.finishAttempt({
        holder: 'b',
        endpointId: 'wh_o',
        msgId: created1.msgId,
        attempt: { attempt: 1, at: 1_003, outcome: 'refused', status: 500, durationMs: 3, error: undefined },
        next: { state: 'pending', nextAttemptAt: 2_000 },
      }),
    ).toBe(false);
    const second = mine(await store.claim('b', 1_004, 10, 5_000));
    expect(second.map((d) => d.type)).toEqual(['slot.transferred']);
    // An expired lease is claimable again (a crashed worker's delivery is sent again).
    const again = mine(await store.claim('c', 1_004 + 5_001, 10, 5_000));
    expect(again.map((d) => d.msgId).sort()).toEqual(
      [second[0]!.msgId, first.find((d) => JSON.parse(d.payload).data.slot_id === '2')!.msgId].sort(),
    );
    const attempts = await store.listAttempts('wh_o', [created1.msgId]);
    expect(attempts.get(created1.msgId)).toEqual([
      { attempt: 1, at: 1_002, outcome: 'delivered', status: 204, durationMs: 3, error: undefined },
    ]);
  });

  it('a given-up delivery marks its endpoint failing; the next success clears it', async () => {
    await seedUser(db(), 302);
    await seedClient(db(), 'wh-fail', 302);
    const store = new WebhookStore(db());
    const outbox = new WebhookOutbox();
    await store.insertEndpoint(endpoint('wh_f', 'wh-fail', ['grant.created']));
    await outbox.record(db(), { type: 'grant.created', clientId: 'wh-fail', data: {}, at: 5 });
    await outbox.record(db(), { type: 'grant.created', clientId: 'wh-fail', data: {}, at: 6 });
    const [a, b] = (await store.claim('w', 10, 10, 1_000)).filter((d) => d.endpointId === 'wh_f');
    await store.finishAttempt({
      holder: 'w',
      endpointId: 'wh_f',
      msgId: a!.msgId,
      attempt: { attempt: 1, at: 11, outcome: 'timeout', status: undefined, durationMs: 10_000, error: 'x' },
      next: { state: 'failed', nextAttemptAt: 11 },
    });
    expect((await store.findEndpoint('wh-fail', 'wh_f'))!.failingSince).toBe(11);
    expect((await store.backlog()).depth).toBeGreaterThanOrEqual(1);
    await store.finishAttempt({
      holder: 'w',
      endpointId: 'wh_f',
      msgId: b!.msgId,
      attempt: { attempt: 1, at: 12, outcome: 'delivered', status: 200, durationMs: 1, error: undefined },
      next: { state: 'delivered', nextAttemptAt: 12 },
    });
    expect((await store.findEndpoint('wh-fail', 'wh_f'))!.failingSince).toBeUndefined();
    // A manual retry queues the failed one again with its id.
    expect(await store.retryNow('wh_f', a!.msgId, 20)).toBe(true);
    expect((await store.findDelivery('wh_f', a!.msgId))!.state).toBe('pending');
  });

  it('writes grant.created for each backend exchange of a batch and none for a replay in it', async () => {
    await seedUser(db(), 304);
    await seedClient(db(), 'wh-batch', 304);
    await new WebhookStore(db()).insertEndpoint(endpoint('wh_batch', 'wh-batch', ['grant.created']));
    const grants = new OAuthGrantStore(db(), new WebhookOutbox());
    const codes = new BackendCodeStore(db());
    const now = Date.now();
    const slots = [await seedSlot(db(), 304, 'wh-batch', 0), await seedSlot(db(), 304, 'wh-batch', 1)];
    const codeHashes = await Promise.all(
      slots.map(async (slot) => {
        const codeHash = randomUUID().replace(/-/g, '');
        await codes.insert({
          codeHash,
          clientId: 'wh-batch',
          userUuid: 304,
          slotId: slot.id,
          redirectUri: 'https://a.example/cb',
          createdAt: now,
          expiresAt: now + 60_000,
        });
        return codeHash;
      }),
    );
    const exchange = (codeHash: string, grantId: string) =>
      grants.exchangeBackendCode({
        codeHash,
        clientId: 'wh-batch',
        now,
        grantId,
        refreshToken: { tokenHash: randomUUID(), expiresAt: now + 60_000 },
      });
    const before = grants.backendExchangeBatches();
    const outcomes = await Promise.all([
      exchange(codeHashes[0]!, 'g-batch-0'),
      exchange(codeHashes[0]!, 'g-batch-replay'),
      exchange(codeHashes[1]!, 'g-batch-1'),
    ]);
    expect(outcomes.map((o) => o.redeemed)).toEqual([true, false, true]);
    expect(grants.backendExchangeBatches().batches).toBe(before.batches + 1);
    const rows = await db()
      .selectFrom('webhook_deliveries')
      .select(['type', 'payload', 'msg_id'])
      .where('endpoint_id', '=', 'wh_batch')
      .orderBy('msg_id')
      .execute();
    const events = rows.map(
      (r) => JSON.parse(r.payload) as { type: string; timestamp: string; data: object },
    );
    expect(events).toEqual([
      {
        type: 'grant.created',
        timestamp: new Date(now).toISOString(),
        data: { client_id: 'wh-batch', grant_id: 'g-batch-0', user_id: '304', slot_id: slots[0]!.id },
      },
      {
        type: 'grant.created',
        timestamp: new Date(now).toISOString(),
        data: { client_id: 'wh-batch', grant_id: 'g-batch-1', user_id: '304', slot_id: slots[1]!.id },
      },
    ]);
    expect(new Set(rows.map((r) => r.msg_id)).size).toBe(2);
  });

  it('the native writer writes what the Kysely statement writes, per type and id kind, from one prepared statement each', async () => {
    const native = nativeSqlite(db());
    if (!native) return; // SQLite's native handle only (PostgreSQL has no native path)
    await seedUser(db(), 305);
    await seedClient(db(), 'wh-native', 305);
    await seedClient(db(), 'wh-none', 305);
    const store = new WebhookStore(db());
    await store.insertEndpoint(endpoint('wh_n1', 'wh-native', ['grant.created', 'status.changed']));
    await store.insertEndpoint(endpoint('wh_n2', 'wh-native', ['grant.created']));
    const outbox = new WebhookOutbox();
    const write = outbox.nativeWriter(native, db());
    const rows = () =>
      db()
        .selectFrom('webhook_deliveries')
        .select([
          'endpoint_id',
          'msg_id',
          'client_id',
          'type',
          'payload',
          'order_key',
          'state',
          'next_attempt_at',
          'created_at',
        ])
        .where('client_id', 'in', ['wh-native', 'wh-none'])
        .orderBy('created_at')
        .orderBy('endpoint_id')
        .execute();

    // Two events of one type through the same statement, each with its own values.
    expect(write({ type: 'grant.created', clientId: 'wh-native', data: { grant_id: 'n1' }, at: 1000 })).toBe(
      true,
    );
    expect(
      write({
        type: 'grant.created',
        clientId: 'wh-native',
        data: { grant_id: 'n2' },
        at: 2000,
        orderKey: 'k',
      }),
    ).toBe(true);
    // Another type, an app without endpoints (nothing written), and a type outside the catalogue (bound).
    expect(write({ type: 'status.changed', clientId: 'wh-native', data: { status: 'x' }, at: 3000 })).toBe(
      true,
    );
    expect(write({ type: 'grant.created', clientId: 'wh-none', data: {}, at: 3500 })).toBe(false);
    expect(write({ type: 'not a catalogue type', clientId: 'wh-native', data: {}, at: 3600 })).toBe(false);
    const written = await rows();
    expect(
      written.map((r) => [r.endpoint_id, r.type, r.order_key, r.state, r.next_attempt_at, r.created_at]),
    ).toEqual([
      ['wh_n1', 'grant.created', null, 'pending', 1000, 1000],
      ['wh_n2', 'grant.created', null, 'pending', 1000, 1000],
      ['wh_n1', 'grant.created', 'k', 'pending', 2000, 2000],
      ['wh_n2', 'grant.created', 'k', 'pending', 2000, 2000],
      ['wh_n1', 'status.changed', null, 'pending', 3000, 3000],
    ]);
    expect(JSON.parse(written[2]!.payload)).toEqual({
      type: 'grant.created',
      timestamp: new Date(2000).toISOString(),
      data: { client_id: 'wh-native', grant_id: 'n2' },
    });
    expect(new Set(written.map((r) => r.msg_id)).size).toBe(3);

    // A given id: written once, its body brought up to date while unattempted — as `statement` does.
    const given = { type: 'grant.created', clientId: 'wh-native', msgId: 'msg_given', at: 4000 };
    expect(write({ ...given, data: { v: 1 } })).toBe(true);
    expect(write({ ...given, data: { v: 2 } })).toBe(true);
    const byId = (await rows()).filter((r) => r.msg_id === 'msg_given');
    expect(byId.map((r) => r.endpoint_id)).toEqual(['wh_n1', 'wh_n2']);
    expect(byId.map((r) => JSON.parse(r.payload).data.v)).toEqual([2, 2]);
    await db()
      .transaction()
      .execute((trx) => outbox.record(trx, { ...given, data: { v: 3 } }));
    expect(
      (await rows()).filter((r) => r.msg_id === 'msg_given').map((r) => JSON.parse(r.payload).data.v),
    ).toEqual([3, 3]);
  });

  it('grant stores write grant.created and grant.revoked in their commit, the PostgreSQL single-statement paths included', async () => {
    await seedUser(db(), 303);
    await seedClient(db(), 'wh-grants', 303);
    const store = new WebhookStore(db());
    await store.insertEndpoint(endpoint('wh_g', 'wh-grants', ['grant.created', 'grant.revoked']));
    const grants = new OAuthGrantStore(db(), new WebhookOutbox());
    const now = Date.now();
    await grants.createGrantWithRefreshToken(
      {
        grantId: 'g-direct',
        clientId: 'wh-grants',
        userUuid: 303,
        createdAt: now,
        revokedAt: null,
        revokedReason: null,
      },
      {
        tokenHash: randomUUID(),
        grantId: 'g-direct',
        clientId: 'wh-grants',
        userUuid: 303,
        createdAt: now,
        expiresAt: now + 60_000,
        usedAt: null,
        successorHash: null,
        successorSealed: null,
      },
    );
    const slot = await seedSlot(db(), 303, 'wh-grants', 0);
    const codeHash = randomUUID().replace(/-/g, '');
    await new BackendCodeStore(db()).insert({
      codeHash,
      clientId: 'wh-grants',
      userUuid: 303,
      slotId: slot.id,
      redirectUri: 'https://a.example/cb',
      createdAt: now,
      expiresAt: now + 60_000,
    });
    const exchanged = await grants.exchangeBackendCode({
      codeHash,
      clientId: 'wh-grants',
      now,
      grantId: 'g-backend',
      refreshToken: { tokenHash: randomUUID(), expiresAt: now + 60_000 },
    });
    expect(exchanged).toMatchObject({ redeemed: true });
    // A replayed code opens nothing and reports nothing.
    await grants.exchangeBackendCode({
      codeHash,
      clientId: 'wh-grants',
      now,
      grantId: 'g-replay',
      refreshToken: { tokenHash: randomUUID(), expiresAt: now + 60_000 },
    });
    expect(await grants.revokeGrant('g-direct', 'user_revoked', now + 1)).toBe(true);
    expect(await grants.revokeGrant('g-direct', 'user_revoked', now + 2)).toBe(false);

    const rows = await db()
      .selectFrom('webhook_deliveries')
      .select(['type', 'payload'])
      .where('endpoint_id', '=', 'wh_g')
      .orderBy('msg_id')
      .execute();
    const events = rows.map((r) => ({ type: r.type, ...(JSON.parse(r.payload) as { data: object }) }));
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['grant.created', { client_id: 'wh-grants', grant_id: 'g-direct', user_id: '303' }],
      ['grant.created', { client_id: 'wh-grants', grant_id: 'g-backend', user_id: '303', slot_id: slot.id }],
      [
        'grant.revoked',
        { client_id: 'wh-grants', grant_id: 'g-direct', user_id: '303', reason: 'user_revoked' },
      ],
    ]);
  });

  it('a consumption record included again after a chain rewind is one content.consumed, under one webhook-id', async () => {
    await seedUser(db(), 304);
    await seedClient(db(), 'wh-consume', 304);
    const store = new WebhookStore(db());
    await store.insertEndpoint(endpoint('wh_c1', 'wh-consume', ['content.consumed']));
    await store.insertEndpoint(endpoint('wh_c2', 'wh-consume', ['content.consumed']));
    const ledger = new ContentLedgerStore(db(), new WebhookOutbox());
    const slot = '0x00000000000000000000000000000000000000cC' as const;
    await ledger.insertBalance('wh-game', slot, { balance: 100n, used: 0n, block: 10n });
    const usage = {
      clientId: 'wh-consume',
      cuid: 'wh-game',
      slot,
      slotId: '1000000000000000304',
      requestKey: undefined,
    };
    const [one, two] = await ledger.reserveMany([
      { ...usage, amount: 3n },
      { ...usage, amount: 4n },
    ]);
    expect([one?.kind, two?.kind]).toEqual(['accepted', 'accepted']);
    const ids = [one, two].map((r) => (r?.kind === 'accepted' ? r.record.id : ''));
    const include = async (batchId: string, txHash: string, blockNumber: bigint) =>
      ledger.completeBatch(batchId, {
        txHash,
        blockNumber,
        records: ids.map((id, i) => ({ id, balanceAfter: 97n - BigInt(i), usedAfter: BigInt(i + 1) })),
      });
    const { batch } = await ledger.openBatch(ids, 10n);
    const consumed = async () =>
      db()
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('client_id', '=', 'wh-consume')
        .orderBy('endpoint_id')
        .orderBy('msg_id')
        .execute();
    expect(await include(batch.id, `0x${'11'.repeat(32)}`, 11n)).toBe(true);
    const first = await consumed();
    expect(first).toHaveLength(4); // two records × two endpoints
    // wh_c1 already sent its first delivery; wh_c2 has sent nothing yet.
    const sent = first.find((d) => d.endpoint_id === 'wh_c1')!;
    const [leased] = (await store.claim('w', Date.now(), 100, 5_000)).filter(
      (d) => d.endpointId === 'wh_c1' && d.msgId === sent.msg_id,
    );
    expect(leased).toBeDefined();
    await store.finishAttempt({
      holder: 'w',
      endpointId: 'wh_c1',
      msgId: sent.msg_id,
      attempt: {
        attempt: 1,
        at: Date.now(),
        outcome: 'delivered',
        status: 200,
        durationMs: 1,
        error: undefined,
      },
      next: { state: 'delivered', nextAttemptAt: Date.now() },
    });
    // Release every other lease this claim took, as a worker that stopped would (they expire).
    await db()
      .updateTable('webhook_deliveries')
      .set({ lease_until: 0, leased_by: null })
      .where('state', '=', 'pending')
      .execute();

    // The chain went back below block 11; the batch is mined again in another block and transaction.
    expect(await ledger.reopenAfterRewind(10n)).toBe(1);
    const [reopened] = await ledger.listSendingBatches();
    expect(reopened?.id).toBe(batch.id);
    expect(await include(batch.id, `0x${'22'.repeat(32)}`, 12n)).toBe(true);
    const again = await consumed();
    // Still one delivery per record and endpoint, under the ids of the first inclusion.
    expect(again.map((d) => [d.endpoint_id, d.msg_id])).toEqual(first.map((d) => [d.endpoint_id, d.msg_id]));
    expect(new Set(again.map((d) => d.msg_id)).size).toBe(2);
    const tx = (d: { payload: string }) =>
      (JSON.parse(d.payload) as { data: { tx_hash: string } }).data.tx_hash;
    // What was sent stays as sent (the receiver dedups by id); what was not is brought up to date.
    expect(tx(again.find((d) => d.msg_id === sent.msg_id && d.endpoint_id === 'wh_c1')!)).toBe(
      `0x${'11'.repeat(32)}`,
    );
    expect(again.filter((d) => d.endpoint_id === 'wh_c2').map(tx)).toEqual([
      `0x${'22'.repeat(32)}`,
      `0x${'22'.repeat(32)}`,
    ]);
  });
});
