import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { buy, newPlayer, newProvider, post } from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { kill9, ready, startService } from './serviceProcess.js';
import { WebhookReceiver } from './receiver.js';

describe('webhooks survive kill -9 (the outbox is durable)', () => {
  const receiver = new WebhookReceiver();
  let running: ChildProcess | undefined;
  let first: TestServer | undefined;
  afterAll(async () => {
    if (running) await kill9(running);
    await first?.close();
    await receiver.close();
  });

  it('kill -9 between a purchase’s answer and its delivery, then a restart: delivered once to the receiver’s dedup', async () => {
    await receiver.start();
    // Set-up in process: a provider with an endpoint, a player with a funded wallet and a slot.
    first = await startTestServer();
    const provider = await newProvider(first, 40);
    const player = await newPlayer(first, provider);
    const hook = await post<{ secret: string }>(
      first,
      `/v1/dev-user/clients/${provider.clientId}/webhooks`,
      { url: `${receiver.url}/crash`, events: ['content.purchased'] },
      provider.developer.token,
    );
    expect(hook.status).toBe(201);
    receiver.secrets.set('/crash', hook.body.secret);
    const { dataDir, url } = first;
    await first.close();
    first = undefined;

    const env = {
      HOST: '127.0.0.1',
      PORT: new URL(url).port,
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SCRYPT_LOG_N: '14',
      WEBHOOK_TIMEOUT_MS: '500',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_MAX_MS: '200',
      WEBHOOK_WORKER_INTERVAL_MS: '50',
    };
    // The receiver holds the first attempt without answering: the service dies with it in flight.
    receiver.behaviours.set('/crash', { hangFirst: 1 });
    const service = startService(env);
    running = service.child;
    await ready(url, service);
    const bought = await buy({ url } as TestServer, provider, player, '0.25');
    expect(bought.status).toBe(200);
    await kill9(service.child);
    running = undefined;
    const seenBeforeRestart = receiver.received.filter((r) => r.path === '/crash').length;
    expect(seenBeforeRestart).toBeLessThanOrEqual(1);

    const again = startService(env);
    running = again.child;
    await ready(url, again);
    await receiver.waitFor(
      (all) =>
        all.some((r) => r.path === '/crash' && r.event.type === 'content.purchased' && r.at > 0) &&
        receiver.received.filter((r) => r.path === '/crash').length > seenBeforeRestart,
      30_000,
    );
    // Give a duplicate the chance to show up; none may (beyond the one attempt the kill cut off).
    await new Promise((r) => setTimeout(r, 1_500));
    const unique = receiver.unique('/crash');
    expect(unique).toHaveLength(1);
    expect(unique[0]!.verified).toBe(true);
    expect(unique[0]!.event.data).toMatchObject({
      client_id: provider.clientId,
      tx_hash: bought.body.tx_hash,
      amount: bought.body.token_amount,
      slot_id: player.slotId,
    });
    for (const copy of receiver.received.filter((r) => r.path === '/crash')) {
      expect(copy.id).toBe(unique[0]!.id);
      expect(copy.verified).toBe(true);
    }
    await kill9(again.child);
    running = undefined;
  }, 300_000);
});
