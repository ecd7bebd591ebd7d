/**
 * kill -9 between a session-key grant's answer and the app's next session operation (issue 27): after a restart on
 * the same DATA_DIR (SQLite + the embedded chain, whose journal re-sends what the chain's saved state lacks), the
 * grant and the wallet's upgrade are both still there and the operation goes through.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type Address, getAddress } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer } from '../helpers/http.js';
import { newApp, newPlayer, pinTrio, tokenTransferPolicy, transferData } from './support.js';
import { serviceEntry } from '../helpers/serviceEntry.js';

function startService(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, serviceEntry(), {
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

const call = async (url: string, method: string, path: string, token: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('session keys survive kill -9', () => {
  let running: ChildProcess | undefined;
  let first: TestServer | undefined;
  afterAll(async () => {
    if (running) await kill9(running);
    await first?.close();
  });

  it('kill -9 right after the grant’s answer: after a restart the key and the upgrade are there and work', async () => {
    first = await startTestServer();
    const token = first.services.chainInfo.contracts.token;
    const { dev, client } = await newApp(first);
    const put = await call(
      first.url,
      'PUT',
      `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
      dev.loginToken,
      tokenTransferPolicy(token, '1000'),
    );
    expect(put.status).toBe(200);
    const player = await newPlayer(first, client);
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
    };
    const a = startService(env);
    running = a.child;
    await ready(url, a);
    const granted = await call(url, 'POST', '/v1/wallet/session-keys', player.user.loginToken, {
      client_id: client.clientId,
      ...pinTrio(player),
    });
    expect(granted.status, JSON.stringify(granted.body)).toBe(201);
    await kill9(a.child);

    const b = startService(env);
    running = b.child;
    await ready(url, b);
    const list = await call(url, 'GET', '/v1/wallet/session-keys', player.user.loginToken);
    expect(list.status).toBe(200);
    expect(list.body.session_keys).toEqual([
      expect.objectContaining({ client_id: client.clientId, session_key: granted.body.session_key }),
    ]);
    const recipient = getAddress(`0x${'ef'.repeat(20)}`) as Address;
    const op = await call(url, 'POST', '/v1/wallet/session-operations', player.accessToken, {
      calls: [{ to: token, data: transferData(recipient, 5n) }],
    });
    expect(op.status, JSON.stringify(op.body)).toBe(200);
    // The owner's PIN flow also still works through the session account after the restart.
    const owner = await call(url, 'POST', '/v1/token/transfer', player.user.loginToken, {
      from_address: player.wallet.address,
      to_address: recipient,
      amount: '2',
      contract_address: token,
      ...pinTrio(player),
    });
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    await kill9(b.child);
    running = undefined;
  }, 240_000);
});
