import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('health and docs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers /healthz and /readyz over real HTTP', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks.database).toBe('ok');
  });

  it('tells an anonymous /readyz only its status: no deposit, no balances (decisions §8)', async () => {
    const anonymous = await fetch(`${server.url}/readyz`);
    expect(anonymous.status).toBe(200);
    const body = (await anonymous.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['status']);
    expect(['ready', 'degraded']).toContain(body.status);
    expect(JSON.stringify(body)).not.toMatch(/paymaster|relayer|ether/);

    const admin = await fetch(`${server.url}/readyz`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    const detailed = (await admin.json()) as { checks: Record<string, string> };
    expect(detailed.checks.funds).toMatch(/paymaster_deposit=.* ether, relayer_balance=.* ether/);

    const wrong = await fetch(`${server.url}/readyz`, { headers: { authorization: 'Bearer not-the-key' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ success: false, error: 'invalid_admin_key' });
  });

  it('gives /docs the same CSP and frame headers as the console (decisions §8)', async () => {
    const console = await fetch(`${server.url}/console`);
    for (const path of ['/docs', '/docs/', '/docs/json', '/docs/static/index.html']) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      for (const header of ['content-security-policy', 'x-frame-options']) {
        expect(res.headers.get(header), `${path} ${header}`).toBe(console.headers.get(header));
      }
    }
  });

  it('serves the OpenAPI document generated from route schemas', async () => {
    const res = await fetch(`${server.url}/docs/json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/healthz');
  });

  it('answers unknown routes with the decided error shape', async () => {
    const res = await fetch(`${server.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, error: 'not_found' });
  });

  it('generates MASTER_KEY and ADMIN_API_KEY into DATA_DIR with mode 0600', async () => {
    const fs = await import('node:fs');
    for (const file of ['master.key', 'admin-api-key']) {
      const stat = fs.statSync(`${server.dataDir}/${file}`);
      expect(stat.mode & 0o777).toBe(0o600);
    }
    expect(fs.readFileSync(`${server.dataDir}/master.key`, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
  });
});
