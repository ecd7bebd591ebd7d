import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  payloadOf,
} from '../content/contentSupport.js';

/** Reads one sample of a Prometheus text exposition, 0 when the series does not exist yet. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((w) => line.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('GET /metrics', () => {
  let server: TestServer;
  let adminKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    adminKey = fs.readFileSync(path.join(server.dataDir, 'admin-api-key'), 'utf8').trim();
  });
  afterAll(async () => {
    await server?.close();
  });

  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: bearer(adminKey) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('is guarded by the admin key by default (decisions §7)', async () => {
    const anonymous = await fetch(`${server.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ success: false, error: 'invalid_admin_key' });
    const wrong = await fetch(`${server.url}/metrics`, { headers: bearer('x'.repeat(32)) });
    expect(wrong.status).toBe(401);
  });

  it('counts and times real traffic by route template and status', async () => {
    const before = await scrape();
    const labels = { method: 'POST', route: '/v1/dev-user/login_devuser', status: '401' };
    const loginsBefore = sample(before, 'dauth_http_requests_total', labels);

    const user = await createUser(server.url);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/dev-user/login_devuser`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: 'wrong password' }),
      });
      expect(res.status).toBe(401);
    }
    const missingId = crypto.randomUUID();
    const listing = await fetch(`${server.url}/v1/market/listings/${missingId}`);
    expect(listing.status).toBe(404);

    const after = await scrape();
    expect(sample(after, 'dauth_http_requests_total', labels)).toBe(loginsBefore + 3);
    expect(sample(after, 'dauth_http_request_duration_seconds_count', labels)).toBe(loginsBefore + 3);
    // The template, never the raw id: the label set stays bounded whatever clients send.
    expect(after).toContain('route="/v1/market/listings/:id"');
    expect(after).not.toContain(missingId);
    expect(sample(after, 'dauth_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  // Counted where Fastify reports an answer completed (http/requestMetrics.ts), not in a hook: every answer,
  // a 404 of no route and a refusal before the handler included, exactly once each, with its time.
  it('counts every answer once, unmatched ones and refusals before the handler included', async () => {
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    const refused = { method: 'GET', route: '/v1/oauth/validate', status: '401' };
    const before = await scrape();
    for (let i = 0; i < 2; i++) {
      expect((await fetch(`${server.url}/no/such/route/${i}`)).status).toBe(404);
    }
    const refusal = await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer('not.a.jwt') });
    expect(refusal.status).toBe(401);
    const after = await scrape();
    expect(sample(after, 'dauth_http_requests_total', unmatched)).toBe(
      sample(before, 'dauth_http_requests_total', unmatched) + 2,
    );
    expect(sample(after, 'dauth_http_requests_total', refused)).toBe(
      sample(before, 'dauth_http_requests_total', refused) + 1,
    );
    expect(sample(after, 'dauth_http_request_duration_seconds_sum', refused)).toBeGreaterThan(
      sample(before, 'dauth_http_request_duration_seconds_sum', refused),
    );
    // The scrape before this one is counted too, once.
    const scrapes = { method: 'GET', route: '/metrics', status: '200' };
    expect(sample(after, 'dauth_http_requests_total', scrapes)).toBe(
      sample(before, 'dauth_http_requests_total', scrapes) + 1,
    );
  });
});

describe('GET /metrics: domain gauges and counters after a PIN operation and a consumption', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`, {
      headers: bearer(server.services.secrets.adminApiKey),
    });
    expect(res.status).toBe(200);
    return res.text();
  };

  it('moves the bundle, operation, deposit and consumption series with real traffic', async () => {
    const provider = await newProvider(server, 40);
    const player = await newPlayer(server, provider);
    const before = await scrape();
    const depositBefore = sample(before, 'dauth_paymaster_deposit_ether');
    const relayerBefore = sample(before, 'dauth_relayer_balance_ether');
    expect(depositBefore).toBeGreaterThan(0);
    expect(relayerBefore).toBeGreaterThan(0);

    // A PIN-gated, sponsored operation (PBKDF2 share derivation, one bundled operation)…
    const bought = await buy(server, provider, player, '1000');
    expect(bought.status).toBe(200);
    // …and a consumption, answered once its batch is on chain.
    const consumed = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 7n)),
    });
    expect(consumed.status).toBe(200);

    const after = await scrape();
    const moved = (name: string) => sample(after, name) - sample(before, name);
    expect(moved('dauth_operations_total')).toBeGreaterThanOrEqual(1);
    expect(moved('dauth_bundle_operations_count')).toBeGreaterThanOrEqual(1);
    expect(moved('dauth_bundle_operations_sum')).toBeGreaterThanOrEqual(1);
    expect(moved('dauth_consumption_batch_records_count')).toBeGreaterThanOrEqual(1);
    expect(moved('dauth_consumption_batch_records_sum')).toBeGreaterThanOrEqual(1);
    // Sponsored gas comes out of the paymaster's deposit. The relayer pays each bundle's gas and, as the
    // bundle's beneficiary, is refunded the operations' cost from that deposit, so its balance moves either
    // way (up when the EntryPoint's accounting exceeds the gas price actually paid): the gauge must show the
    // node's balance, whichever way it moved.
    expect(sample(after, 'dauth_paymaster_deposit_ether')).toBeLessThan(depositBefore);
    const relayerAfter = sample(after, 'dauth_relayer_balance_ether');
    expect(relayerAfter).not.toBe(relayerBefore);
    const rpcUrl = server.services.chainInfo.rpcUrl!;
    const balance = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBalance',
        params: [server.services.chain.telemetry.relayerAddress, 'latest'],
      }),
    }).then(async (res) => BigInt(((await res.json()) as { result: string }).result));
    expect(relayerAfter).toBeCloseTo(Number(balance) / 1e18, 6);
    // Everything answered is settled: nothing waits, nothing is in flight.
    expect(after).toMatch(/^dauth_bundler_queue_depth 0$/m);
    expect(after).toMatch(/^dauth_consumption_queue_depth 0$/m);
    const relayer = server.services.chain.telemetry.relayerAddress;
    expect(after).toContain(`dauth_relayer_nonce_gap{relayer="${relayer}"} 0\n`);
    expect(after).toMatch(/^dauth_work_queue_length\{queue="pbkdf2"\} 0$/m);
    expect(after).toMatch(/^dauth_work_queue_length\{queue="scrypt"\} 0$/m);
    // SQLite: one connection, in use.
    expect(sample(after, 'dauth_db_pool_connections', { state: 'total' })).toBe(1);
  });
});

describe('GET /metrics with METRICS_PUBLIC=true', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { METRICS_PUBLIC: 'true' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers without the admin key', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('dauth_http_requests_total');
  });
});
