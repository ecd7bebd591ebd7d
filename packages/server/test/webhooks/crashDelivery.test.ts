import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buy, newPlayer, newProvider, post } from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebhookReceiver } from './receiver.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** The real `src/main.ts` on a DATA_DIR (SQLite + embedded chain), in a process group of its own. */
function startService(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  return { child, output: () => output };
}

async function ready(url: string, service: { child: ChildProcess; output: () => string }) {
  for (let i = 0; i < 1200; i++) {
    if (service.child.exitCode !== null) throw new Error(`service exited:\n${service.output()}`);
    const answer = await fetch(`${url}/readyz`).catch(() => undefined);
    if (answer?.status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service not ready:\n${service.output()}`);
}

async function kill9(child: ChildProcess): Promise<void> {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGKILL');
  await exited;
}

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
