import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookOutbox } from '../../src/stores/webhookStore.js';
import { bearer, createClient, createUser, post } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebhookReceiver } from './receiver.js';

/** One sample of a Prometheus text exposition, 0 when the series does not exist yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((w) => line.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/**
 * The three webhook metrics of issue 28 over `GET /metrics`: the queue depth and the age of the oldest
 * undelivered event while a delivery is outstanding, and the attempts by outcome once it is through.
 */
describe('webhook metrics', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let adminKey: string;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        WEBHOOK_RETRY_BASE_MS: '40',
        WEBHOOK_RETRY_MAX_MS: '120',
        WEBHOOK_TIMEOUT_MS: '600',
        WEBHOOK_WORKER_INTERVAL_MS: '25',
      },
    });
    adminKey = fs.readFileSync(path.join(server.dataDir, 'admin-api-key'), 'utf8').trim();
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: bearer(adminKey) });
    expect(res.status).toBe(200);
    return res.text();
  };

  it('queue depth and oldest age while a delivery is outstanding; attempts by outcome (timeout, refused, delivered)', async () => {
    const owner = await createUser(server.url);
    const app = await createClient(server.url, owner, ['http://127.0.0.1:9/cb']);
    const res = await post(
      `${server.url}/v1/dev-user/clients/${app.clientId}/webhooks`,
      { url: `${receiver.url}/metrics-hook`, events: ['grant.created'] },
      bearer(owner.loginToken),
    );
    const hook = (await res.json()) as { secret: string };
    expect(res.status).toBe(201);
    receiver.secrets.set('/metrics-hook', hook.secret);
    // The first attempt hangs (timed out), the second is answered 500, the third 200.
    receiver.behaviours.set('/metrics-hook', { hangFirst: 1, statuses: [200, 500, 200] });
    const before = await scrape();
    const outcome = (text: string, name: string) =>
      sample(text, 'dauth_webhook_attempts_total', { outcome: name });
    expect(before).toContain('# TYPE dauth_webhook_queue_depth gauge');
    expect(before).toContain('# TYPE dauth_webhook_oldest_pending_seconds gauge');

    // One event, written as a store writes it (the flows themselves are covered in webhookEvents.test.ts).
    await new WebhookOutbox().record(server.services.database.db, {
      type: 'grant.created',
      clientId: app.clientId,
      data: { grant_id: 'g-metrics', user_id: owner.uuid },
    });
    await receiver.waitFor((all) => all.some((r) => r.path === '/metrics-hook'), 10_000);
    await new Promise((r) => setTimeout(r, 250));
    const during = await scrape();
    expect(sample(during, 'dauth_webhook_queue_depth')).toBe(1);
    expect(sample(during, 'dauth_webhook_oldest_pending_seconds')).toBeGreaterThan(0.2);

    await receiver.waitFor((all) => all.filter((r) => r.path === '/metrics-hook').length >= 3, 15_000);
    let after = await scrape();
    for (let i = 0; i < 50 && sample(after, 'dauth_webhook_queue_depth') !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await scrape();
    }
    expect(sample(after, 'dauth_webhook_queue_depth')).toBe(0);
    expect(sample(after, 'dauth_webhook_oldest_pending_seconds')).toBe(0);
    expect(outcome(after, 'timeout') - outcome(before, 'timeout')).toBe(1);
    expect(outcome(after, 'refused') - outcome(before, 'refused')).toBe(1);
    expect(outcome(after, 'delivered') - outcome(before, 'delivered')).toBe(1);
    expect(receiver.unique('/metrics-hook')).toHaveLength(1);
  }, 60_000);
});
