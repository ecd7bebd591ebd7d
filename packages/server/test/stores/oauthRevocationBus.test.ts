import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import {
  PgRevocationBus,
  RedisRevocationBus,
  revocationChannel,
  type RevocationBus,
} from '../../src/stores/oauthRevocationBus.js';
import type { RevocationEntry } from '../../src/stores/oauthRevocationStore.js';
import { testDatabases } from '../helpers/databases.js';
import {
  postgresAvailable,
  redisAvailable,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from '../helpers/environment.js';

/**
 * The bus carries revocations between replicas, so it exists only where replicas share a database:
 * over PostgreSQL LISTEN/NOTIFY or Redis pub/sub, both run here against a PostgreSQL schema. SQLite
 * is one process with no bus (the registry runs without one: test/oauth/revocationSync.test.ts).
 */
interface Transport {
  name: string;
  available: boolean;
  /** Two buses on one channel, as two replicas would have, plus a way to put raw text on the channel. */
  open(
    db: Db,
    channel: string,
  ): { a: RevocationBus; b: RevocationBus; raw(text: string): Promise<void>; close(): Promise<void> };
}

const transports: Transport[] = [
  {
    name: 'PostgreSQL LISTEN/NOTIFY',
    available: postgresAvailable,
    open: (db, channel) => ({
      a: new PgRevocationBus(db, TEST_DATABASE_URL, channel),
      b: new PgRevocationBus(db, TEST_DATABASE_URL, channel),
      raw: async (text) => void (await sql`select pg_notify(${channel}, ${text})`.execute(db)),
      close: async () => undefined,
    }),
  },
  {
    name: 'Redis pub/sub',
    available: postgresAvailable && redisAvailable,
    open: (_db, channel) => {
      const redis = new Redis(TEST_REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
      return {
        a: new RedisRevocationBus(redis, channel),
        b: new RedisRevocationBus(redis, channel),
        raw: async (text) => void (await redis.publish(channel, text)),
        close: async () => void redis.disconnect(),
      };
    },
  },
];

async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const postgres = testDatabases.filter((d) => d.name === 'postgres');

describe.each(transports.filter((t) => t.available))('revocation bus over $name', (transport) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await postgres[0]!.open();
    db = opened.handle.db;
    dispose = opened.dispose;
  });
  afterAll(() => dispose?.());

  it('delivers an entry to the other replica, not back to its sender, and ignores malformed messages', async () => {
    const channel = revocationChannel(`test-${randomUUID()}`);
    const { a, b, raw, close } = transport.open(db, channel);
    const heard: { a: RevocationEntry[]; b: RevocationEntry[] } = { a: [], b: [] };
    const connected = { a: false, b: false };
    for (const [name, bus] of [
      ['a', a],
      ['b', b],
    ] as const) {
      bus.start({
        onEntry: (entry) => heard[name].push(entry),
        onConnected: () => (connected[name] = true),
        onDisconnected: () => (connected[name] = false),
      });
    }
    try {
      await until(() => connected.a && connected.b, 'both subscriptions');
      await raw('not json');
      await raw(JSON.stringify({ o: 'someone', k: 'nonsense', v: 'x', e: 1 }));
      const entry: RevocationEntry = { kind: 'grant', value: randomUUID(), expiresAt: Date.now() + 60_000 };
      await a.publish(entry);
      await until(() => heard.b.length > 0, 'the entry on the other replica');
      expect(heard.b).toEqual([entry]);
      // The malformed messages were dropped, and b never hears its own.
      await b.publish({ kind: 'jti', value: 'from-b', expiresAt: 1 });
      await until(() => heard.a.length > 0, 'the reply');
      expect(heard.a).toEqual([{ kind: 'jti', value: 'from-b', expiresAt: 1 }]);
      expect(heard.b).toEqual([entry]);
    } finally {
      await a.close();
      await b.close();
      await close();
    }
  });

  it('keeps deployments apart: another channel hears nothing', async () => {
    const { a, close } = transport.open(db, revocationChannel(`one-${randomUUID()}`));
    const other = transport.open(db, revocationChannel(`two-${randomUUID()}`));
    const heard: RevocationEntry[] = [];
    let connected = false;
    other.b.start({
      onEntry: (e) => heard.push(e),
      onConnected: () => (connected = true),
      onDisconnected: () => undefined,
    });
    try {
      await until(() => connected, 'the subscription');
      await a.publish({ kind: 'grant', value: 'elsewhere', expiresAt: 1 });
      await other.raw(JSON.stringify({ o: 'x', k: 'jti', v: 'marker', e: 1 }));
      await until(() => heard.length > 0, 'the marker');
      expect(heard.map((e) => e.value)).toEqual(['marker']);
    } finally {
      await a.close();
      await other.b.close();
      await close();
      await other.close();
    }
  });
});

// Without a reachable transport (no PostgreSQL outside CI) the file names what it skipped instead of failing empty.
describe.runIf(transports.every((t) => !t.available))('revocation bus', () => {
  it.skip('needs PostgreSQL at TEST_DATABASE_URL (and Redis at TEST_REDIS_URL for the Redis transport)', () => {});
});
