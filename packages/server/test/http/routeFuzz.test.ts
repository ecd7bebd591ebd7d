import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, type TestClient, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  type FuzzOperation,
  type FuzzRequest,
  fuzzRequest,
  operationsOf,
  type OpenApiDocument,
} from './openApiArbitraries.js';

/**
 * Property-based fuzz of every route in the OpenAPI document (issue 18): requests shaped after
 * each route's own schema, then mutated (junk values, huge numbers, wrong types, odd Unicode,
 * malformed bodies, forged and real bearers). Whatever arrives, the service answers below 500,
 * and every JSON error has the shape of decisions §2 for its route family.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

describe('route fuzz from the OpenAPI document', () => {
  let server: TestServer;
  let user: TestUser;
  let client: TestClient;
  let operations: FuzzOperation[];

  beforeAll(async () => {
    server = await startTestServer({ env: { CALLBACK_ALLOW_PRIVATE: 'true' } });
    user = await createUser(server.url);
    client = await createClient(server.url, user, ['http://127.0.0.1:9/callback']);
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json<OpenApiDocument>();
    operations = operationsOf(doc);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('documents the routes it fuzzes', () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain('POST /v1/pin/verify');
  });

  it(`answers ${RUNS} generated requests below 500, every error in the decisions §2 shape`, async () => {
    const known = {
      loginJwt: user.loginToken,
      adminKey: fs.readFileSync(path.join(server.dataDir, 'admin-api-key'), 'utf8').trim(),
      clientId: client.clientId,
      clientSecret: client.clientSecret,
    };
    await fc.assert(
      fc.asyncProperty(fuzzRequest(operations, known), async (request: FuzzRequest) => {
        const response = await server.app.inject({
          method: request.method,
          url: request.url,
          headers: request.headers,
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        });
        const where = `${request.method} ${request.url.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
        expect(response.statusCode, where).toBeLessThan(500);
        if (response.statusCode >= 400) assertErrorShape(request.url, response, where);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);
});

type InjectResponse = { statusCode: number; headers: Record<string, unknown>; body: string };

function assertErrorShape(url: string, response: InjectResponse, where: string): void {
  const contentType = String(response.headers['content-type'] ?? '');
  if (contentType.startsWith('text/html')) {
    // Only the browser-facing pages answer HTML, and only to a GET or their own form posts.
    expect(url.startsWith('/oauth/authorize') || url.startsWith('/console'), where).toBe(true);
    return;
  }
  expect(contentType, where).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  if (url.startsWith('/v1/oauth-meta/')) {
    expect(typeof body.code, where).toBe('number');
    expect(typeof body.message, where).toBe('string');
    expect(body.data, where).toBeDefined();
    return;
  }
  expect(body.success, where).toBe(false);
  expect(body.error, where).toMatch(/^[a-z][a-z0-9_]*$/);
  expect(typeof body.message, where).toBe('string');
  if (url.startsWith('/oauth/')) expect(typeof body.error_description, where).toBe('string');
  expect(response.body, where).not.toMatch(/\n\s+at .+:\d+:\d+/); // never a stack trace
}
