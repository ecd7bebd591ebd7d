import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { AppActivityStore, DAY_MS } from '../../src/stores/appActivityStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedSlot, seedUser, useTestDatabase } from './storeFixtures.js';

/**
 * The activity report's reads (the console's charts) over the tables other domains write: each figure per
 * UTC day, only the asked app's rows, only from the start time on, on both databases.
 */
describe.each(testDatabases)('app activity store ($name)', (database) => {
  const db = useTestDatabase(database);
  // Day 20,000 is 2024-10-04 (UTC); "day one" and "day two" are the two days of the report.
  const dayOne = 20_000;
  const at = (day: number, hour: number) => day * DAY_MS + hour * 3_600_000;

  async function grant(d: Db, clientId: string, user: number, when: number): Promise<string> {
    const grantId = randomUUID();
    await d
      .insertInto('oauth_grants')
      .values({ grant_id: grantId, client_id: clientId, user_uuid: user, created_at: when } as never)
      .execute();
    return grantId;
  }

  async function refresh(d: Db, grantId: string, clientId: string, user: number, when: number) {
    await d
      .insertInto('oauth_refresh_tokens')
      .values({
        token_hash: randomUUID(),
        grant_id: grantId,
        client_id: clientId,
        user_uuid: user,
        created_at: when,
        expires_at: when + 30 * DAY_MS,
      } as never)
      .execute();
  }

  async function audit(
    d: Db,
    clientId: string,
    user: string,
    when: number,
    details: object,
    outcome = 'success',
  ) {
    await d
      .insertInto('audit_log')
      .values({
        id: randomUUID(),
        at: when,
        seq: 0,
        action: 'content.purchase',
        outcome,
        status: outcome === 'success' ? 200 : 422,
        error_code: null,
        actor_kind: 'user',
        actor_user: user,
        client_id: clientId,
        address: '127.0.0.1',
        request_id: randomUUID(),
        details: JSON.stringify(details),
      } as never)
      .execute();
  }

  async function usage(
    d: Db,
    clientId: string,
    cuid: string,
    slotId: string,
    amount: string,
    when: number,
    state = 'included',
  ) {
    await d
      .insertInto('content_usage')
      .values({
        id: randomUUID(),
        client_id: clientId,
        cuid,
        slot: `0x${'1'.repeat(40)}`,
        slot_id: slotId,
        amount,
        request_key: null,
        state,
        accepted_at: when,
        updated_at: when,
      } as never)
      .execute();
  }

  async function listing(
    d: Db,
    clientId: string,
    slotId: string,
    price: string,
    status: string,
    when: number,
  ) {
    await d
      .insertInto('market_listings')
      .values({
        id: randomUUID(),
        slot_id: slotId,
        client_id: clientId,
        seller_uuid: 1,
        price,
        status,
        created_at: when - 1000,
        updated_at: when,
      } as never)
      .execute();
  }

  it('counts sign-ins, active players, purchases, consumptions, sales and sponsored gas per day of one app', async () => {
    const d = db();
    const store = new AppActivityStore(d);
    for (const user of [1, 2, 3]) await seedUser(d, user);
    await seedClient(d, 'game', 1);
    await seedClient(d, 'other', 1);
    const slot2 = await seedSlot(d, 2, 'game');
    const slot3 = await seedSlot(d, 3, 'game');

    // Sign-ins: two on day one (users 1 and 2), one on day two (user 1 again); one before the window;
    // one of another app.
    const g1 = await grant(d, 'game', 1, at(dayOne, 1));
    await grant(d, 'game', 2, at(dayOne, 2));
    await grant(d, 'game', 1, at(dayOne + 1, 3));
    await grant(d, 'game', 3, at(dayOne - 1, 23));
    await grant(d, 'other', 3, at(dayOne, 5));
    // User 1 refreshes on day two (already counted there); user 3 only refreshes, on day two.
    await refresh(d, g1, 'game', 1, at(dayOne + 1, 4));
    await refresh(d, g1, 'game', 3, at(dayOne + 1, 5));

    // Purchases: user 2 buys twice on day one (one of them refused), user 3 once on day two.
    await audit(d, 'game', '2', at(dayOne, 6), { cuid: 'swords', amount: '250', tx_hash: '0x1' });
    await audit(d, 'game', '2', at(dayOne, 7), { cuid: 'swords', amount: '999' }, 'failure');
    await audit(d, 'game', '3', at(dayOne + 1, 8), { cuid: 'shields', amount: '40' });
    await audit(d, 'other', '3', at(dayOne + 1, 8), { cuid: 'elsewhere', amount: '7' });

    // Consumptions: amounts beyond 2^53 stay exact; a failed record does not count.
    await usage(d, 'game', 'swords', slot2.id, '9007199254740993', at(dayOne, 9));
    await usage(d, 'game', 'swords', slot2.id, '7', at(dayOne, 10), 'queued');
    await usage(d, 'game', 'swords', slot3.id, '5', at(dayOne + 1, 11));
    await usage(d, 'game', 'swords', slot3.id, '1000', at(dayOne + 1, 12), 'failed');

    // Sales: one sold on day two; an active listing is no sale.
    await listing(d, 'game', slot2.id, '1500000000000000000', 'sold', at(dayOne + 1, 13));
    await listing(d, 'game', slot3.id, '7', 'active', at(dayOne + 1, 14));

    const since = dayOne * DAY_MS;
    const byDay = (rows: { day: number; count: number }[]) =>
      Object.fromEntries(rows.map((r) => [r.day - dayOne, r.count]));

    expect(byDay(await store.signInsByDay('game', since))).toEqual({ 0: 2, 1: 1 });
    // Day one: 1, 2 (sign-ins and user 2's purchase and consumption); day two: 1, 3 (refresh, purchase,
    // consumption) — each player once a day however many things they did.
    expect(byDay(await store.activePlayersByDay('game', since))).toEqual({ 0: 2, 1: 2 });
    expect(await store.purchases('game', since)).toEqual([
      { at: at(dayOne, 6), cuid: 'swords', amount: '250' },
      { at: at(dayOne + 1, 8), cuid: 'shields', amount: '40' },
    ]);
    const consumed = (await store.consumptionsByDay('game', since)).sort((a, b) => a.day - b.day);
    expect(consumed).toEqual([
      { day: dayOne, cuid: 'swords', records: 2, amount: '9007199254741000' },
      { day: dayOne + 1, cuid: 'swords', records: 1, amount: '5' },
    ]);
    expect(await store.sales('game', since)).toEqual([
      { at: at(dayOne + 1, 13), price: '1500000000000000000' },
    ]);
    expect(await store.sales('game', at(dayOne + 1, 14))).toEqual([]);
  });

  it("reads the app's sponsored gas per day and its registered cuids", async () => {
    const d = db();
    const store = new AppActivityStore(d);
    const row = (day: string, scope: string, subject: string, gas: number) => ({
      day,
      scope,
      subject,
      gas,
      operations: 2,
      refused: 0,
      updated_at: 1,
    });
    await d
      .insertInto('sponsorship_spend')
      .values([
        row('2024-10-03', 'app', 'gas-app', 10),
        row('2024-10-04', 'app', 'gas-app', 300_000),
        row('2024-10-04', 'user', 'gas-app', 99),
        row('2024-10-04', 'app', 'someone-else', 77),
      ] as never)
      .execute();
    expect(await store.sponsoredGasByDay('gas-app', '2024-10-04')).toEqual([
      { day: '2024-10-04', gas: 300_000, operations: 2 },
    ]);

    const provider = (cuid: string, clientId: string, state: string, createdAt: number) => ({
      cuid,
      client_id: clientId,
      release_per: 50,
      owner_addr: `0x${'2'.repeat(40)}`,
      state,
      tx_hash: null,
      created_at: createdAt,
      updated_at: createdAt,
    });
    await d
      .insertInto('content_providers')
      .values([
        provider('second', 'cuid-app', 'registered', 2),
        provider('first', 'cuid-app', 'registered', 1),
        provider('pending', 'cuid-app', 'registering', 3),
        provider('theirs', 'another-app', 'registered', 1),
      ] as never)
      .execute();
    expect(await store.cuids('cuid-app')).toEqual(['first', 'second']);
    expect(await store.cuids('no-provider')).toEqual([]);
  });

  // The report asks each table for one app since a time; without an index on (app, time) that read scans the
  // whole table, which on a platform with many apps is every grant and refresh ever made (migration 0210).
  it.runIf(database.name === 'sqlite')(
    'reads each table through an index on the app and the time',
    async () => {
      const reads = [
        ['oauth_grants', "client_id = 'a' and created_at >= 1", 'oauth_grants_client_created'],
        [
          'oauth_refresh_tokens',
          "client_id = 'a' and created_at >= 1",
          'oauth_refresh_tokens_client_created',
        ],
        ['content_usage', "client_id = 'a' and accepted_at >= 1", 'content_usage_client_accepted'],
        [
          'market_listings',
          "client_id = 'a' and status = 'sold' and updated_at >= 1",
          'market_listings_client_updated',
        ],
        [
          'sponsorship_spend',
          "scope = 'app' and subject = 'a' and day >= '2024-10-04'",
          'sponsorship_spend_subject_day',
        ],
      ] as const;
      for (const [table, where, index] of reads) {
        const plan = await sql<{
          detail: string;
        }>`explain query plan select count(*) from ${sql.table(table)} where ${sql.raw(where)}`.execute(db());
        expect(plan.rows.map((r) => r.detail).join('; '), table).toMatch(
          new RegExp(`USING (COVERING )?INDEX ${index} \\(`),
        );
      }
    },
  );
});
