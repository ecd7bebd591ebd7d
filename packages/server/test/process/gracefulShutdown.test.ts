import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buy,
  chainClient,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  onChain,
  payloadOf,
  post,
  type Player,
  type Provider,
  usageRecordCount,
} from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { serviceEntry } from '../helpers/serviceEntry.js';

const PURCHASED = 100_000n;
const CALLERS = 20;

/**
 * `SIGTERM` under consumption load (issue 16): the real process (`src/main.ts`) drains the usage batcher
 * and the bundler before it exits, so every consumption it accepted (200, or 202 `queued`) is on chain once when it is
 * gone, before anything restarts (a restart's recovery would hide a shutdown that dropped work).
 */
describe('graceful shutdown', () => {
  let server: TestServer | undefined;
  let service: ChildProcess | undefined;
  afterAll(async () => {
    service?.kill('SIGKILL');
    await server?.close();
  });

  it('a SIGTERM under consumption load exits 0 with every accepted consumption on chain exactly once', async () => {
    // Set-up in process: a provider, a player with a slot, a purchase. Then the same DATA_DIR, port and
    // public URL serve the real process.
    const first = await startTestServer();
    const provider: Provider = await newProvider(first);
    const player: Player = await newPlayer(first, provider);
    expect((await buy(first, provider, player, PURCHASED.toString())).status).toBe(200);
    const { dataDir, url } = first;
    const recipient = `0x${randomBytes(20).toString('hex')}` as const;
    await first.close();

    let stderr = '';
    service = spawn(process.execPath, serviceEntry(), {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: new URL(url).port,
        PUBLIC_URL: url,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        SCRYPT_LOG_N: '14',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    service.stdout!.on('data', (c: Buffer) => (stdout = (stdout + c.toString()).slice(-20_000)));
    service.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-20_000)));
    const exited = new Promise<number | null>((resolve) => service!.once('exit', (code) => resolve(code)));
    const target = { url } as TestServer;
    for (let i = 0; i < 600; i++) {
      const ready = await fetch(`${url}/readyz`).catch(() => undefined);
      if (ready?.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    // Callers consume 1 each, one request at a time, until the service stops answering.
    let accepted = 0n;
    let unknown = 0n; // sent, but the answer never came (the connection closed under it)
    const refusals: Record<number, number> = {};
    let stop = false;
    const caller = async () => {
      while (!stop) {
        const message = encryptPayload(
          provider,
          payloadOf(provider, player, 1n, { request_id: randomUUID() }),
        );
        try {
          const res = await consume(target, { encrypted_message: message });
          // 202 `queued`: accepted and stored, answered at once when the service shuts down (docs/content-tokens.md).
          if (res.status === 200 || res.status === 202) accepted += 1n;
          else refusals[res.status] = (refusals[res.status] ?? 0) + 1;
        } catch {
          unknown += 1n;
          // The port is closed: the service is draining or gone.
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const callers = Array.from({ length: CALLERS }, caller);
    // Let consumptions flow (and batches go out) before the signal.
    while (accepted < 200n) await new Promise((r) => setTimeout(r, 20));
    // Sponsored operations in flight too: each sends 1 wei from the player's wallet to a fresh address.
    const operations = Array.from({ length: 3 }, () =>
      post(
        target,
        '/v1/pin/verify',
        { user_uuid: player.user.uuid, ...player.pin, calls: [{ to: recipient, value: '1' }] },
        player.user.token,
      ).then(
        (res) => res.status,
        () => 'no answer' as const,
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    service.kill('SIGTERM');
    const code = await exited;
    stop = true;
    await Promise.all(callers);
    const operationStatuses = await Promise.all(operations);
    expect(code, `${stderr}\n${stdout.slice(-4000)}`).toBe(0);
    expect(stdout).toContain('shutting down');
    expect(accepted).toBeGreaterThanOrEqual(200n);
    // While it drains, a request on an open connection is refused as unavailable, never as anything else.
    for (const status of Object.keys(refusals)) expect(status).toBe('503');

    // Drained: nothing accepted is still queued or in flight in the database the process left.
    const db = new Database(path.join(dataDir, 'dauth.sqlite'), { readonly: true });
    try {
      const open = db
        .prepare("SELECT count(*) AS n FROM content_usage WHERE state IN ('queued', 'sent')")
        .get() as { n: number };
      expect(open.n).toBe(0);
    } finally {
      db.close();
    }

    // And on chain: the embedded chain the process stopped holds every answered consumption, once.
    server = await startTestServer({ dataDir });
    expect(await usageRecordCount(server, ['queued', 'sent'])).toBe(0);
    const figures = await onChain(server, provider.cuid, player.slot);
    expect(figures.used).toBeGreaterThanOrEqual(accepted);
    expect(figures.used).toBeLessThanOrEqual(accepted + unknown);
    expect(figures.balance + figures.used).toBe(PURCHASED);
    // Every operation answered 200 was bundled and mined before the exit (one answered otherwise may or may not be).
    const done = operationStatuses.filter((s) => s === 200).length;
    const undecided = operationStatuses.filter((s) => s === 'no answer').length;
    const received = await chainClient(server).getBalance({ address: recipient });
    expect(received).toBeGreaterThanOrEqual(BigInt(done));
    expect(received).toBeLessThanOrEqual(BigInt(done + undecided));
  }, 240_000);
});
