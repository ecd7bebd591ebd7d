import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { down, up } from '../../src/db/migrations/0060_slot_economy.js';
import { SponsorshipStore } from '../../src/stores/sponsorshipStore.js';
import { testDatabases } from '../helpers/databases.js';

describe.each(testDatabases)('slot economy storage ($name)', (database) => {
  let dispose: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await dispose?.();
    dispose = undefined;
  });

  it('migration 0060: old sales are marked not_collected, open unpriced listings are withdrawn', async () => {
    const opened = await database.open();
    dispose = opened.dispose;
    const db = opened.handle.db;
    await down(db as never);
    const listing = (id: string, status: string) =>
      sql`insert into market_listings (id, slot_id, client_id, seller_uuid, price, status, buyer_uuid, tx_hash, created_at, updated_at)
          values (${id}, ${`slot-${id}`}, 'app', 1, '1000', ${status}, null, null, 1, 1)`.execute(db);
    for (const [id, status] of [
      ['00000000-0000-4000-8000-000000000001', 'active'],
      ['00000000-0000-4000-8000-000000000002', 'pending'],
      ['00000000-0000-4000-8000-000000000003', 'sold'],
      ['00000000-0000-4000-8000-000000000004', 'cancelled'],
    ] as const) {
      await listing(id, status);
    }
    await up(db as never);
    const rows = await db
      .selectFrom('market_listings')
      .select(['id', 'status', 'payment'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.status, r.payment])).toEqual([
      ['cancelled', 'withdrawn_unpriced'],
      ['cancelled', 'withdrawn_unpriced'],
      ['sold', 'not_collected'],
      ['cancelled', null],
    ]);
  });

  it('sponsorship spend: concurrent charges (two replicas) never exceed the budget, all or nothing per operation', async () => {
    const opened = await database.open();
    dispose = opened.dispose;
    const [replicaA, replicaB] = [
      new SponsorshipStore(opened.handle.db),
      new SponsorshipStore(opened.handle.db),
    ];
    const charges = [
      { scope: 'user' as const, subject: '7', budget: 1_000 },
      { scope: 'app' as const, subject: 'game', budget: 10_000 },
    ];
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 ? replicaA : replicaB).charge('2026-11-23', 100, charges)),
    );
    expect(results.filter(Boolean)).toHaveLength(10);
    const spend = await replicaA.spendOn('2026-11-23');
    expect(spend.map((r) => [r.scope, r.subject, r.gas, r.operations])).toEqual([
      ['user', '7', 1_000, 10],
      ['app', 'game', 1_000, 10],
    ]);
    // Over the user's budget: the app is not charged either.
    expect(await replicaA.charge('2026-11-23', 100, charges)).toBe(false);
    expect((await replicaA.spendOn('2026-11-23')).find((r) => r.scope === 'app')?.gas).toBe(1_000);
    // Another day starts from zero.
    expect(await replicaB.charge('2026-11-24', 100, charges)).toBe(true);
  });
});
