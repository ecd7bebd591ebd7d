import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getFreePort } from '@dauth/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { createUser, post } from '../helpers/http.js';
import { serviceEntry } from '../helpers/serviceEntry.js';
const ADMIN_KEY = 'test-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

interface Service {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

const services: Service[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const service of services) killGroup(service.child);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/**
 * `npm start`'s process (the built dist/main.js when current, else src/main.ts through tsx) in a process
 * group of its own: the service and its anvil.
 */
async function start(dataDir: string): Promise<Service> {
  const port = await getFreePort('127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, serviceEntry(), {
    detached: true,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SCRYPT_LOG_N: '14',
      MASTER_KEY: 'ab'.repeat(32),
      ADMIN_API_KEY: ADMIN_KEY,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const service = { child, url, output: () => output, exited };
  services.push(service);
  return service;
}

/** Resolves once /readyz answers 200; throws if the process exits first. */
async function ready(service: Service, timeoutMs = 90_000): Promise<void> {
  let gone = false;
  void service.exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the service exited before it was ready:\n${service.output()}`);
    const answer = await fetch(`${service.url}/readyz`, { headers: admin }).catch(() => undefined);
    if (answer?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service was not ready in ${timeoutMs} ms:\n${service.output()}`);
}

async function faucet(url: string, address: string, native: string) {
  const answer = await post(`${url}/v1/admin/faucet`, { address, native }, admin);
  expect(answer.status).toBe(200);
  return (await answer.json()) as { native_balance: string };
}

describe('a restart right after a kill -9 (issue 32)', () => {
  it('SIGKILL of the process group, then a start at once, 20 times: ready every time, nothing lost', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-restart-'));
    dirs.push(dataDir);
    const users: { email: string; password: string }[] = [];
    const funded: { address: string; wei: bigint }[] = [];

    let service = await start(dataDir);
    for (let round = 0; round < 20; round++) {
      await ready(service);
      // Answered writes of both kinds: the database (an account) and the chain (included funds).
      const user = await createUser(service.url);
      users.push(user);
      const address = `0x${randomBytes(20).toString('hex')}`;
      const wei = BigInt(1_000 + round);
      expect(BigInt((await faucet(service.url, address, wei.toString())).native_balance)).toBe(wei);
      funded.push({ address, wei });

      // The supervisor's restart: 0 ms after the kill for the first ten, 100 ms (systemd's default) after.
      killGroup(service.child);
      if (round >= 10) await new Promise((resolve) => setTimeout(resolve, 100));
      service = await start(dataDir);
    }

    await ready(service);
    for (const user of users) {
      const login = await post(`${service.url}/v1/dev-user/login_devuser`, user);
      expect(login.status, user.email).toBe(200);
    }
    for (const { address, wei } of funded) {
      // Adding 1 wei answers the balance: exactly what was answered before the kills, plus the 1.
      expect(BigInt((await faucet(service.url, address, '1')).native_balance), address).toBe(wei + 1n);
    }
    const readiness = (await (await fetch(`${service.url}/readyz`, { headers: admin })).json()) as {
      checks?: Record<string, string>;
    };
    if (readiness.checks) expect(readiness.checks.chain_consistency).toBe('ok');
    killGroup(service.child);
  }, 900_000);

  it('two starts on one DATA_DIR at the same moment: exactly one runs, the other exits with the message', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-race-'));
    dirs.push(dataDir);
    const [a, b] = await Promise.all([start(dataDir), start(dataDir)]);
    const outcome = async (service: Service) =>
      Promise.race([
        ready(service).then(() => 'ready' as const),
        service.exited.then((code) => ({ code })),
      ]).catch(() => service.exited.then((code) => ({ code })));
    const [first, second] = await Promise.all([outcome(a!), outcome(b!)]);
    const outcomes = [first, second];
    expect(outcomes.filter((o) => o === 'ready')).toHaveLength(1);
    const loser = first === 'ready' ? b! : a!;
    const exit = outcomes.find((o) => o !== 'ready') as { code: number | null };
    expect(exit.code).not.toBe(0);
    expect(loser.output()).toMatch(
      /The embedded chain of this DATA_DIR is in use by (process \d+|another process)/,
    );
    killGroup(a!.child);
    killGroup(b!.child);
  }, 180_000);
});
