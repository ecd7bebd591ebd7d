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
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks.database).toBe('ok');
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
