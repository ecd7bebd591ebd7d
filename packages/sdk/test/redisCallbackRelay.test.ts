import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisCallbackRelay } from '../src/index.js';
import type { AuthorizeCallback } from '../src/index.js';
import { FakeDauth } from './support/fakeDauth.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const worker = fileURLToPath(new URL('./support/relayWorker.ts', import.meta.url));

function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(6379, '127.0.0.1');
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

// Without Redis the suite is skipped locally; in CI a missing Redis is a failure, not a skip.
const runRedisTests = (await redisReachable()) || Boolean(process.env.CI);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    child.stdin?.end();
    if (child.exitCode === null) setTimeout(() => child.kill(), 2_000).unref();
  }
});

/** Starts a worker process and resolves with the first JSON line it prints. */
function startWorker(
  role: 'callback' | 'caller',
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, role], {
    cwd: repoRoot,
    env: { ...process.env, REDIS_URL, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>));
    child.once('exit', (code) =>
      reject(new Error(`${role} worker exited with ${String(code)} before answering`)),
    );
  });
}

describe.skipIf(!runRedisTests)('RedisCallbackRelay across two OS processes', () => {
  let dauth: FakeDauth;
  beforeAll(async () => {
    dauth = await FakeDauth.start({ redirectUri: 'http://127.0.0.1:1/placeholder' });
  });
  afterAll(() => dauth.close());

  it('completes a call whose callback reached the other process', async () => {
    const prefix = `dauth-test:${randomUUID()}:`;
    const callbackProcess = await startWorker('callback', {
      RELAY_PREFIX: prefix,
      AUTH_SERVER_URL: dauth.url,
    });
    const redirectUri = `${String(callbackProcess.url)}/dauth/callback`;
    dauth.set({ redirectUri });

    const result = await startWorker('caller', {
      RELAY_PREFIX: prefix,
      AUTH_SERVER_URL: dauth.url,
      REDIRECT_URI: redirectUri,
      TIMEOUT_MS: '10000',
    });

    expect(result).toEqual({ slot: { id: '1234567890123456789', kind: 'number', code: expect.any(String) } });
    expect(dauth.callbackStatuses.at(-1)).toBe(200);
  });

  it('without a shared store the callback is an unknown state there, and the call times out', async () => {
    const callbackProcess = await startWorker('callback', {
      RELAY_PREFIX: `dauth-test:${randomUUID()}:`,
      AUTH_SERVER_URL: dauth.url,
    });
    const redirectUri = `${String(callbackProcess.url)}/dauth/callback`;
    dauth.set({ redirectUri });

    const result = await startWorker('caller', {
      RELAY_PREFIX: `dauth-test:${randomUUID()}:`,
      AUTH_SERVER_URL: dauth.url,
      REDIRECT_URI: redirectUri,
      TIMEOUT_MS: '1500',
    });

    expect(result).toEqual({ error: 'authorize callback timeout', status: 408 });
    expect(dauth.callbackStatuses.at(-1)).toBe(200);
  });
});

describe.skipIf(!runRedisTests)('RedisCallbackRelay', () => {
  const clients: Redis[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit()));
  });
  function relay(prefix: string): RedisCallbackRelay {
    const publisher = new Redis(REDIS_URL);
    const subscriber = new Redis(REDIS_URL);
    clients.push(publisher, subscriber);
    return new RedisCallbackRelay({ publisher, subscriber, channelPrefix: prefix });
  }

  it('forwards to the listener of a state, and reports a state nobody listens for', async () => {
    const prefix = `dauth-test:${randomUUID()}:`;
    const waiting = relay(prefix);
    const receiving = relay(prefix);
    const delivered: AuthorizeCallback[] = [];
    await waiting.listen('state-1', (callback) => delivered.push(callback));

    expect(await receiving.forward({ state: 'state-1', success: true, code: 'c-1' })).toBe(true);
    expect(await receiving.forward({ state: 'state-2', success: true, code: 'c-2' })).toBe(false);
    await expect.poll(() => delivered).toEqual([{ state: 'state-1', success: true, code: 'c-1' }]);

    await waiting.unlisten('state-1');
    expect(await receiving.forward({ state: 'state-1', success: false })).toBe(false);
    await waiting.close();
    await receiving.close();
  });

  it('drops a message whose state does not match its channel', async () => {
    const prefix = `dauth-test:${randomUUID()}:`;
    const waiting = relay(prefix);
    const delivered: AuthorizeCallback[] = [];
    await waiting.listen('state-1', (callback) => delivered.push(callback));
    const raw = new Redis(REDIS_URL);
    clients.push(raw);
    await raw.publish(`${prefix}state-1`, JSON.stringify({ state: 'state-2', success: 1, code: 'x' }));
    await raw.publish(`${prefix}state-1`, 'not json');
    await raw.publish(`${prefix}state-1`, JSON.stringify({ state: 'state-1', success: 1, code: 'ok' }));
    await expect.poll(() => delivered).toEqual([{ state: 'state-1', success: true, code: 'ok' }]);
    await waiting.close();
  });
});
