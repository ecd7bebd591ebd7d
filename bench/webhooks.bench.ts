/**
 * Webhook delivery: the outbox → worker → signed POST path, on a real database (SQLite file, or
 * PostgreSQL with DATABASE_URL) and a real loopback receiver that verifies each delivery with the
 * `standardwebhooks` package.
 *
 *   npm run bench:webhooks                          # SQLite; 10,000-event burst, then 10 s at 100 events/s
 *   BENCH_EVENTS=2000 BENCH_RATE=200 BENCH_SECONDS=20 npm run bench:webhooks
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks   # a fresh schema
 *
 * Phase 1 (throughput): BENCH_EVENTS events are written in transactions of 100, then drained: events
 * delivered per second. Phase 2 (latency): BENCH_RATE events per second, each written in a transaction
 * of its own, for BENCH_SECONDS: p50/p99 from the change's commit to the receiver having verified it.
 * Prints one JSON line.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { SecretBox } from '../packages/server/src/crypto/secretBox.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { CallbackTargetPolicy } from '../packages/server/src/services/oauth/callbackTargetPolicy.js';
import {
  WebhookDispatcher,
  webhookSecretAad,
} from '../packages/server/src/services/webhooks/webhookDispatcher.js';
import { newWebhookSecret } from '../packages/server/src/services/webhooks/webhookSigner.js';
import { WebhookOutbox, WebhookStore } from '../packages/server/src/stores/webhookStore.js';
import { writeBenchSummary } from './summary.js';

// 10,000: since the dispatcher claims at once (29 November) 1,000 drained in 0.2–0.4 s, a rate of noise.
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.WEBHOOK_WORKER_CONCURRENCY ?? 16);

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  let schema: string | undefined;
  if (databaseUrl) {
    schema = `bench_${randomBytes(5).toString('hex')}`;
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`create schema ${schema}`);
    await c.end();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-webhooks-bench-'));
  const handle = openDatabase({
    databaseUrl,
    sqlitePath: path.join(dir, 'bench.sqlite'),
    ...(schema ? { pgSchema: schema } : {}),
  });
  await migrateToLatest(handle.db);
  const db = handle.db;

  // The receiver: verifies with the reference library and notes when each event arrived.
  const secret = newWebhookSecret();
  const verifier = new Webhook(secret);
  const arrived = new Map<string, number>();
  let rejected = 0;
  let wake: (() => void) | undefined;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = verifier.verify(body, req.headers as Record<string, string>) as { data: { n: string } };
        if (!arrived.has(event.data.n)) arrived.set(event.data.n, performance.now());
        res.writeHead(204).end();
      } catch {
        rejected++;
        res.writeHead(400).end();
      }
      wake?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const box = new SecretBox(randomBytes(32));
  await db
    .insertInto('users')
    .values({
      user_uuid: 1,
      email: 'bench@example.com',
      nickname: 'bench',
      created_at: 1,
      password_hash: 'x',
    } as never)
    .execute()
    .catch(() => undefined);
  await db
    .insertInto('oauth_clients')
    .values({
      client_id: 'bench-app',
      owner_uuid: 1,
      name: 'bench',
      redirect_uris: '[]',
      dapp: 0,
      secret_hash: 'h',
      created_at: 1,
      post_logout_redirect_uris: '[]',
    } as never)
    .execute()
    .catch(() => undefined);
  const store = new WebhookStore(db);
  await store.insertEndpoint({
    id: 'wh_bench',
    clientId: 'bench-app',
    url,
    events: ['content.consumed'],
    secretSealed: box.seal(secret, webhookSecretAad('wh_bench')),
    previousSecretSealed: undefined,
    previousSecretExpiresAt: undefined,
    failingSince: undefined,
    createdAt: Date.now(),
  });
  const outbox = new WebhookOutbox();
  const dispatcher = new WebhookDispatcher(
    store,
    box,
    new CallbackTargetPolicy({ allowPrivate: true, requireHttps: false }),
    {
      timeoutMs: 10_000,
      retryBaseMs: 5_000,
      retryMaxMs: 3_600_000,
      retryWindowMs: 86_400_000,
      intervalMs: 500,
      concurrency: CONCURRENCY,
    },
    pino({ level: 'warn' }),
  );
  outbox.onWrite = () => dispatcher.nudge();
  const until = async (count: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (arrived.size < count && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 100);
      });
    }
  };

  // Phase 1: a burst, written before the worker starts, then drained.
  for (let i = 0; i < EVENTS; i += 100) {
    await db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(EVENTS, i + 100); j++) {
        await outbox.record(trx, { type: 'content.consumed', clientId: 'bench-app', data: { n: `b${j}` } });
      }
    });
  }
  const burstStart = performance.now();
  dispatcher.start();
  await until(EVENTS, 300_000);
  const burstSeconds = (performance.now() - burstStart) / 1000;

  // Phase 2: steady load, each event in a transaction of its own; latency from its commit.
  const committed = new Map<string, number>();
  const steadyStart = performance.now();
  let sent = 0;
  while (performance.now() - steadyStart < SECONDS * 1000) {
    const due = Math.floor(((performance.now() - steadyStart) / 1000) * RATE);
    while (sent < due) {
      const n = `s${sent++}`;
      await db
        .transaction()
        .execute((trx) =>
          outbox.record(trx, { type: 'content.consumed', clientId: 'bench-app', data: { n } }),
        );
      committed.set(n, performance.now());
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await until(EVENTS + sent, 60_000);
  const latencies = [...committed]
    .map(([n, at]) => (arrived.get(n) ?? NaN) - at)
    .filter((ms) => !Number.isNaN(ms))
    .sort((a, b) => a - b);

  await dispatcher.close();
  receiver.close();
  await handle.close();
  if (databaseUrl && schema) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`drop schema ${schema} cascade`);
    await c.end();
  }
  fs.rmSync(dir, { recursive: true, force: true });

  const summary = {
    database: databaseUrl ? 'postgres' : 'sqlite',
    concurrency: CONCURRENCY,
    burst_events: EVENTS,
    burst_delivered_per_second: Number((EVENTS / burstSeconds).toFixed(1)),
    steady_rate_per_second: RATE,
    steady_events: sent,
    steady_delivered: latencies.length,
    steady_p50_ms: Number(percentile(latencies, 50).toFixed(1)),
    steady_p99_ms: Number(percentile(latencies, 99).toFixed(1)),
    rejected_by_receiver: rejected,
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
  console.log(JSON.stringify(summary));
  writeBenchSummary(summary);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
