import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { SecretBox } from '../../src/crypto/secretBox.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { CallbackTargetPolicy } from '../../src/services/oauth/callbackTargetPolicy.js';
import { webhookSecretAad, WebhookDispatcher } from '../../src/services/webhooks/webhookDispatcher.js';
import { newWebhookSecret } from '../../src/services/webhooks/webhookSigner.js';
import { WebhookOutbox, WebhookStore } from '../../src/stores/webhookStore.js';
import { createPgSchema } from '../helpers/databases.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';
import { seedClient, seedUser } from '../stores/storeFixtures.js';
import { WebhookReceiver } from './receiver.js';

const options = {
  timeoutMs: 10_000,
  retryBaseMs: 50,
  retryMaxMs: 200,
  retryWindowMs: 86_400_000,
  intervalMs: 20,
  concurrency: 16,
};
const box = new SecretBox(Buffer.alloc(32, 7));
const logger = pino({ level: 'silent' });

/**
 * Two replicas' delivery workers (each with its own connection pool, as two processes have) over one
 * PostgreSQL database: every event is delivered once, by one of them.
 */
describe.skipIf(!postgresAvailable)('webhook delivery across replicas (PostgreSQL)', () => {
  const receiver = new WebhookReceiver();
  const handles: DatabaseHandle[] = [];
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    await receiver.start();
    const { schema, drop: dropSchema } = await createPgSchema();
    drop = dropSchema;
    for (let i = 0; i < 2; i++) {
      handles.push(openDatabase({ databaseUrl: TEST_DATABASE_URL, pgSchema: schema, poolSize: 5 }));
    }
    await migrateToLatest(handles[0]!.db);
  });
  afterAll(async () => {
    for (const h of handles) await h.close();
    await drop?.();
    await receiver.close();
  });

  it('two replicas deliver each of 1,000 events exactly once', async () => {
    const db = handles[0]!.db;
    await seedUser(db, 500);
    await seedClient(db, 'replica-app', 500);
    const secret = newWebhookSecret();
    receiver.secrets.set('/replicas', secret);
    await new WebhookStore(db).insertEndpoint({
      id: 'wh_replicas',
      clientId: 'replica-app',
      url: `${receiver.url}/replicas`,
      events: ['content.consumed'],
      secretSealed: box.seal(secret, webhookSecretAad('wh_replicas')),
      previousSecretSealed: undefined,
      previousSecretExpiresAt: undefined,
      failingSince: undefined,
      createdAt: 1,
    });
    const outbox = new WebhookOutbox();
    for (let i = 0; i < 1_000; i += 100) {
      await db.transaction().execute(async (trx) => {
        for (let j = i; j < i + 100; j++) {
          await outbox.record(trx, {
            type: 'content.consumed',
            clientId: 'replica-app',
            data: { n: String(j) },
          });
        }
      });
    }
    const policy = new CallbackTargetPolicy({ allowPrivate: true, requireHttps: false });
    const perWorker = [0, 0];
    const workers = handles.map(
      (h, i) =>
        new WebhookDispatcher(new WebhookStore(h.db), box, policy, options, logger, {
          attempt: () => perWorker[i]!++,
        }),
    );
    for (const w of workers) w.start();
    try {
      await receiver.waitFor(
        (all) => new Set(all.filter((r) => r.path === '/replicas').map((r) => r.id)).size >= 1_000,
        150_000,
      );
      // Every delivery recorded as delivered (a timed-out attempt on a loaded machine is retried first).
      await expect
        .poll(
          async () =>
            Number(
              (
                await db
                  .selectFrom('webhook_deliveries')
                  .select((eb) => eb.fn.countAll<number>().as('n'))
                  .where('endpoint_id', '=', 'wh_replicas')
                  .where('state', '=', 'delivered')
                  .executeTakeFirstOrThrow()
              ).n,
            ),
          { timeout: 60_000, interval: 200 },
        )
        .toBe(1_000);
      // Let any double delivery show itself.
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      for (const w of workers) await w.close();
    }
    const got = receiver.received.filter((r) => r.path === '/replicas');
    expect(got.every((r) => r.verified)).toBe(true);
    expect(new Set(got.map((r) => r.id)).size).toBe(1_000);
    expect(new Set(got.map((r) => r.event.data.n)).size).toBe(1_000);
    // Each attempt was made by one replica: the receiver saw no more receipts than the log holds attempts, and each
    // event was delivered (2xx) exactly once. A second receipt of an id only ever follows an attempt of
    // its own that failed (on a loaded machine a 10 s timeout can fire): at least once, never twice at once.
    const attempts = await db
      .selectFrom('webhook_attempts')
      .select(['msg_id', 'outcome'])
      .where('endpoint_id', '=', 'wh_replicas')
      .execute();
    // (An attempt whose connection failed is logged without a receipt, hence at most.)
    expect(got.length).toBeLessThanOrEqual(attempts.length);
    const delivered = attempts.filter((a) => a.outcome === 'delivered');
    expect(delivered).toHaveLength(1_000);
    expect(new Set(delivered.map((a) => a.msg_id)).size).toBe(1_000);
    const failed = attempts.filter((a) => a.outcome !== 'delivered');
    if (failed.length === 0) expect(got).toHaveLength(1_000);
    const state = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', 'wh_replicas')
      .where('state', '=', 'delivered')
      .executeTakeFirstOrThrow();
    expect(Number(state.n)).toBe(1_000);
    // Both replicas took part, and between them made every attempt.
    expect(perWorker.every((n) => n > 0)).toBe(true);
    expect(perWorker[0]! + perWorker[1]!).toBe(attempts.length);
  }, 300_000);

  it('a target that resolves to a metadata address at delivery time is refused, never connected to', async () => {
    const db = handles[1]!.db;
    await seedUser(db, 501);
    await seedClient(db, 'ssrf-app', 501);
    const secret = newWebhookSecret();
    // Registered while its name resolved to a public address; now it resolves to the metadata service.
    await new WebhookStore(db).insertEndpoint({
      id: 'wh_ssrf',
      clientId: 'ssrf-app',
      url: 'http://rebinding.example:8080/hook',
      events: ['grant.created'],
      secretSealed: box.seal(secret, webhookSecretAad('wh_ssrf')),
      previousSecretSealed: undefined,
      previousSecretExpiresAt: undefined,
      failingSince: undefined,
      createdAt: 1,
    });
    await new WebhookOutbox().record(db, { type: 'grant.created', clientId: 'ssrf-app', data: {} });
    const policy = new CallbackTargetPolicy({
      allowPrivate: false,
      requireHttps: false,
      resolve: async () => [{ address: '169.254.169.254', family: 4 }],
    });
    const worker = new WebhookDispatcher(new WebhookStore(db), box, policy, options, logger);
    worker.start();
    try {
      await expect
        .poll(
          async () =>
            (
              await db
                .selectFrom('webhook_attempts')
                .select(['outcome', 'error'])
                .where('endpoint_id', '=', 'wh_ssrf')
                .executeTakeFirst()
            )?.outcome,
          { timeout: 10_000 },
        )
        .toBe('blocked');
    } finally {
      await worker.close();
    }
    const attempt = await db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('endpoint_id', '=', 'wh_ssrf')
      .executeTakeFirstOrThrow();
    expect(attempt.status).toBeNull();
    expect(attempt.error).toMatch(/metadata/);
  });
});
