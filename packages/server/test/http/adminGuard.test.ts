import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, post } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A body no admin route accepts: every admin route requires fields this lacks. */
const INVALID_BODY = { unexpected: ['not', 'a', 'valid', 'body'] };

describe('admin routes: one guard, before the body is looked at', () => {
  let server: TestServer;
  let adminKey: string;
  let adminPaths: string[];

  beforeAll(async () => {
    server = await startTestServer();
    adminKey = fs.readFileSync(`${server.dataDir}/admin-api-key`, 'utf8').trim();
    // Every POST route the app serves under /v1/admin/, from the OpenAPI document the routes generate
    // (the printed route tree merges common prefixes such as /v1/admin/f…).
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    adminPaths = Object.entries(doc.paths)
      .filter(([path, methods]) => path.startsWith('/v1/admin/') && 'post' in methods)
      .map(([path]) => path);
  }, 60_000);
  afterAll(() => server.close());

  it('finds every admin route', () => {
    expect(adminPaths.sort()).toEqual([
      '/v1/admin/content/pool',
      '/v1/admin/content/release',
      '/v1/admin/content/terms',
      '/v1/admin/faucet',
      '/v1/admin/funding',
      '/v1/admin/slots/import',
      '/v1/admin/transfer-tickets',
    ]);
  });

  it('answers an invalid body without the admin key with 401, not 400', async () => {
    for (const adminPath of adminPaths) {
      for (const headers of [{}, bearer('not-the-admin-key')]) {
        const res = await post(`${server.url}${adminPath}`, INVALID_BODY, headers);
        expect({ adminPath, status: res.status }).toEqual({ adminPath, status: 401 });
        expect(await res.json()).toMatchObject({ success: false, error: 'invalid_admin_key' });
      }
    }
  });

  it('answers a body that is not even JSON without the admin key with 401', async () => {
    for (const adminPath of adminPaths) {
      const res = await fetch(`${server.url}${adminPath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      expect({ adminPath, status: res.status }).toEqual({ adminPath, status: 401 });
    }
  });

  it('still validates the body once the admin key is right', async () => {
    for (const adminPath of adminPaths) {
      const res = await post(`${server.url}${adminPath}`, INVALID_BODY, bearer(adminKey));
      expect({ adminPath, status: res.status }).toEqual({ adminPath, status: 400 });
      expect(await res.json()).toMatchObject({ success: false, error: 'invalid_request' });
    }
  });
});
