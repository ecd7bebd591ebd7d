import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buy, consume, encryptPayload, newPlayer, newProvider, payloadOf } from './contentSupport.js';

const LEASE = 'content-usage-batcher';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a process killed by `kill -9` leaves: the batcher lease, held for another 10 minutes. */
async function plantDeadHolder(db: Db): Promise<void> {
  const row = { name: LEASE, holder: 'batcher-of-a-killed-process', expires_at: Date.now() + 600_000 };
  await db
    .insertInto('content_leases')
    .values(row)
    .onConflict((oc) => oc.column('name').doUpdateSet({ holder: row.holder, expires_at: row.expires_at }))
    .execute();
}

async function becomesLeader(server: TestServer): Promise<boolean> {
  for (let i = 0; i < 100 && !server.services.content.batcher.isLeader; i++) await sleep(50);
  return server.services.content.batcher.isLeader;
}

/**
 * Issue 17, "time from start to the first answered consumption": after a `kill -9` the dead process's
 * batcher lease used to hold every consumption back until it expired. On the embedded chain with SQLite the
 * DATA_DIR lock makes the process the only one, so the lease is taken over at start; with PostgreSQL
 * (replicas share the lease) the expiry rule stays.
 */
describe('the usage batcher lease of a killed process', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
  });

  it('is taken over at start on the embedded chain with SQLite, and the first consumption is answered', async () => {
    const first = await startTestServer();
    servers.push(first);
    const provider = await newProvider(first);
    const player = await newPlayer(first, provider);
    expect((await buy(first, provider, player, '1000')).status).toBe(200);
    await first.close();
    // The database as the killed process left it (the lease row written after the clean stop released it).
    const { openDatabase } = await import('../../src/db/database.js');
    const path = await import('node:path');
    const database = openDatabase({ sqlitePath: path.join(first.dataDir, 'dauth.sqlite') });
    await plantDeadHolder(database.db);
    await database.close();

    const second = await startTestServer({ dataDir: first.dataDir });
    servers.push(second);
    expect(await becomesLeader(second)).toBe(true);
    const answer = await consume(second, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 1n)),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true });
    const lease = await second.services.database.db
      .selectFrom('content_leases')
      .select('holder')
      .where('name', '=', LEASE)
      .executeTakeFirstOrThrow();
    expect(lease.holder).toBe(second.services.content.batcher.holder);
  }, 300_000);

  it.runIf(postgresAvailable)(
    'is left to expire on PostgreSQL, where replicas share it',
    async () => {
      const server = await startTestServer({ postgres: true });
      servers.push(server);
      const { batcher } = server.services.content;
      expect(await becomesLeader(server)).toBe(true);
      await batcher.stop();
      await plantDeadHolder(server.services.database.db);
      batcher.start();
      await sleep(1_500);
      expect(batcher.isLeader).toBe(false);
    },
    300_000,
  );
});
