import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createPgSchema } from './databases.js';
import { postgresAvailable, redisAvailable, TEST_DATABASE_URL, TEST_REDIS_URL } from './environment.js';
import { freePort } from './server.js';

export interface ReplicaPair {
  a: RunningServer;
  b: RunningServer;
  close: () => Promise<void>;
}

/**
 * Two in-process replicas behind one public URL, sharing one fresh PostgreSQL schema (and Redis when
 * asked), with `settings` over the defaults: what the revocation bus and the caches invalidated over it are
 * tested across.
 */
export async function startReplicaPair(
  withRedis: boolean,
  settings: Record<string, string> = {},
): Promise<ReplicaPair> {
  const schema = await createPgSchema();
  const publicPort = await freePort();
  const replicas: RunningServer[] = [];
  for (let i = 0; i < 2; i++) {
    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
      DATA_DIR: `/tmp/dauth-replica-${randomUUID()}`,
      LOG_LEVEL: 'silent',
      DATABASE_URL: TEST_DATABASE_URL,
      MASTER_KEY: 'cd'.repeat(32),
      ADMIN_API_KEY: 'replica-admin-key-0123456789',
      ...(withRedis ? { REDIS_URL: TEST_REDIS_URL } : {}),
      ...settings,
    };
    replicas.push(
      await startServer(loadConfig(env), { logger: pino({ level: 'silent' }), pgSchema: schema.schema }),
    );
  }
  return {
    a: replicas[0]!,
    b: replicas[1]!,
    close: async () => {
      for (const r of replicas) await r.close();
      await schema.drop();
    },
  };
}

/** Resolves with the milliseconds it took `check` to hold (polled every 5 ms); throws after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - started;
}

/** The two transports of the revocation bus, each run when its servers are reachable. */
export const replicaBuses = [
  { name: 'PostgreSQL LISTEN/NOTIFY', redis: false, available: postgresAvailable },
  { name: 'Redis pub/sub', redis: true, available: postgresAvailable && redisAvailable },
];

/**
 * Cuts `replica`'s revocation-bus subscription from the server side (Redis `CLIENT KILL`, or PostgreSQL
 * `pg_terminate_backend` of its LISTEN connection), as a network cut would; resolves with how many
 * connections were cut.
 */
export async function cutSubscription(replica: RunningServer, redis: boolean): Promise<number> {
  const name = replica.services.revocations.bus!.connectionName;
  if (redis) {
    const admin = new Redis(TEST_REDIS_URL);
    let killed = 0;
    for (const line of String(await admin.client('LIST')).split('\n')) {
      const m = /id=(\d+) .*?name=(\S*)/.exec(line);
      if (m && m[2] === name) killed += Number(await admin.client('KILL', 'ID', m[1]!));
    }
    await admin.quit();
    return killed;
  }
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  const killed = await admin.query(
    'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
    [name],
  );
  await admin.end();
  return killed.rowCount ?? 0;
}
