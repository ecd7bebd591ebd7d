import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/server.js';
import { runUntilKilled } from './crashSupport.js';
import { serviceEntry } from '../../helpers/serviceEntry.js';

const LOST_CHILD = fileURLToPath(new URL('./lostTransactionsChild.ts', import.meta.url));
const LOST = 400;

interface Seen {
  at: number;
  readyz?: { status: number; body: { error?: string; message?: string; checks?: Record<string, string> } };
  healthz?: number;
  /** `/readyz` without the admin key: the status only (decisions §8). */
  anonymous?: { status: number; body: Record<string, unknown> };
  route?: { status: number; error?: string; retryAfter: string | null };
  refused?: boolean;
}

/**
 * Issue 17: the port answers while a long journal recovery runs. A dauth loses 400 journaled transactions
 * (SIGKILLed with its anvil before any state dump), then the real process (`src/main.ts`) starts on the same
 * DATA_DIR and is polled from the first moment: `/readyz` must show the recovery's progress with 503, the
 * other routes 503 `service_starting`, and then the same socket serves the app with `/readyz` 200.
 */
describe('the port answers during the recovery at start', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-startup-'));
  let service: ChildProcess | undefined;
  afterAll(() => {
    if (service?.pid && service.exitCode === null) process.kill(-service.pid, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /readyz 503 with the replay progress, other routes 503 service_starting, then 200', async () => {
    const env = async () => {
      const port = await freePort();
      return {
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        SCRYPT_LOG_N: '14',
      };
    };
    const crashed = await runUntilKilled(
      { ...(await env()), LOST_TRANSACTIONS: String(LOST) },
      (line) => line.step === 'ready',
      0,
      { child: LOST_CHILD, timeoutMs: 600_000 },
    );
    expect(crashed.killedAfter, crashed.stderr).toBeDefined();

    const adminKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim();
    const restart = await env();
    const url = restart.PUBLIC_URL;
    service = spawn(process.execPath, serviceEntry(), {
      detached: true,
      env: { ...process.env, ...restart },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    service.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));

    const seen: Seen[] = [];
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline && service.exitCode === null) {
      const at = Date.now();
      try {
        const [readyz, healthz, route, anonymous] = await Promise.all([
          fetch(`${url}/readyz`, { headers: { authorization: `Bearer ${adminKey}` } }),
          fetch(`${url}/healthz`),
          fetch(`${url}/v1/chain/info`),
          fetch(`${url}/readyz`),
        ]);
        const routeBody = (await route.json()) as { error?: string };
        seen.push({
          at,
          readyz: {
            status: readyz.status,
            body: (await readyz.json()) as NonNullable<Seen['readyz']>['body'],
          },
          healthz: healthz.status,
          anonymous: { status: anonymous.status, body: (await anonymous.json()) as Record<string, unknown> },
          route: {
            status: route.status,
            error: routeBody.error,
            retryAfter: route.headers.get('retry-after'),
          },
        });
        if (readyz.status === 200) break;
      } catch {
        seen.push({ at, refused: true });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(service.exitCode, stderr).toBeNull();

    const answered = seen.findIndex((s) => !s.refused);
    expect(answered, stderr).toBeGreaterThanOrEqual(0);
    // Once the port answers it never refuses a connection again (the app takes over the same socket).
    expect(seen.slice(answered).filter((s) => s.refused)).toEqual([]);
    const last = seen.at(-1)!;
    expect(last.readyz?.status).toBe(200);
    expect(last.route?.status).toBe(200);

    const starting = seen.filter((s) => s.readyz?.status === 503);
    expect(starting.length).toBeGreaterThan(0);
    for (const s of starting) {
      expect(s.readyz!.body).toMatchObject({ error: 'not_ready' });
      expect(s.healthz).toBe(200);
      // Without the admin key: that it is starting, never the steps (decisions §8).
      if (s.anonymous!.status === 503) {
        expect(s.anonymous!.body).toMatchObject({ success: false, error: 'not_ready' });
        expect(s.anonymous!.body.checks).toBeUndefined();
      }
      // Until the services exist nothing else is served; the app's own answers come only after.
      if (s.route!.status === 503) {
        expect(s.route).toMatchObject({ error: 'service_starting', retryAfter: '2' });
      }
    }
    const progress = starting
      .map((s) =>
        /^recovering: (\d+)\/(\d+) lost transactions replayed$/.exec(s.readyz!.body.checks?.chain ?? ''),
      )
      .filter((m) => m !== null)
      .map((m) => ({ replayed: Number(m[1]), missing: Number(m[2]) }));
    expect(progress.length, JSON.stringify(starting.map((s) => s.readyz!.body.checks))).toBeGreaterThan(0);
    // The lost deployer transfers and the consumption batches; the count only grows.
    expect(progress[0]!.missing).toBeGreaterThanOrEqual(LOST);
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.replayed).toBeGreaterThanOrEqual(progress[i - 1]!.replayed);
    }
    expect(starting.some((s) => s.readyz!.body.message?.startsWith('Starting: chain'))).toBe(true);

    service.kill('SIGTERM');
    await new Promise<void>((resolve) => service!.once('exit', () => resolve()));
  }, 900_000);
});
