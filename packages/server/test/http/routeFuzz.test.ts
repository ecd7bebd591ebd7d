import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_DEFAULTS } from '../../src/rateLimitSettings.js';
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

/**
 * Every per-route limit raised far above what the run sends from its one address, so requests reach
 * the routes' validation and handlers instead of stopping at 429 (the limits themselves have their
 * own tests). Built from the list of names, so a limit added later is raised too.
 */
const GENEROUS_RATE_LIMITS = Object.keys(RATE_LIMIT_DEFAULTS)
  .map((name) => `${name}=10000000/1h`)
  .join(',');

/** At most this share of all answers may be 429 (the few limits that are not RATE_LIMITS settings, such as the e-mail code resend interval). */
const MAX_RATE_LIMITED_SHARE = 0.01;

describe('route fuzz from the OpenAPI document', () => {
  let server: TestServer;
  let user: TestUser;
  let client: TestClient;
  let operations: FuzzOperation[];

  beforeAll(async () => {
    server = await startTestServer({
      env: { CALLBACK_ALLOW_PRIVATE: 'true', RATE_LIMITS: GENEROUS_RATE_LIMITS },
    });
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

  it('starts its server with every RATE_LIMITS limit raised', () => {
    for (const [name, limit] of Object.entries(server.config.rateLimits)) {
      expect(limit.max, name).toBeGreaterThanOrEqual(1_000_000);
    }
  });

  it(`answers ${RUNS} generated requests below 500, every error in the decisions §2 shape`, async () => {
    const known = {
      loginJwt: user.loginToken,
      adminKey: fs.readFileSync(path.join(server.dataDir, 'admin-api-key'), 'utf8').trim(),
      clientId: client.clientId,
      clientSecret: client.clientSecret,
    };
    /** Per operation: answers in all, and the 429 answers among them. */
    const tally = new Map<string, { answers: number; rateLimited: number }>(
      operations.map((o) => [operationKey(o), { answers: 0, rateLimited: 0 }]),
    );
    const rateLimitedCodes = new Map<string, number>();
    // One operation at a time, so every answer is counted against the operation it was generated from.
    const requests = fc
      .constantFrom(...operations)
      .chain((operation) =>
        fuzzRequest([operation], known).map((request) => ({ key: operationKey(operation), request })),
      );
    await fc.assert(
      fc.asyncProperty(requests, async ({ key, request }: { key: string; request: FuzzRequest }) => {
        const response = await server.app.inject({
          method: request.method,
          url: request.url,
          headers: request.headers,
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        });
        const where = `${request.method} ${request.url.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
        const counts = tally.get(key)!;
        counts.answers += 1;
        if (response.statusCode === 429) {
          counts.rateLimited += 1;
          const code = `${key} ${response.body.slice(0, 80)}`;
          rateLimitedCodes.set(code, (rateLimitedCodes.get(code) ?? 0) + 1);
        }
        expect(response.statusCode, where).toBeLessThan(500);
        if (response.statusCode >= 400) assertErrorShape(request.url, response, where);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );

    // The requests reached validation: 429 answers are a small share, and no operation only ever got 429.
    const all = [...tally.values()];
    const answers = all.reduce((sum, t) => sum + t.answers, 0);
    const rateLimited = all.reduce((sum, t) => sum + t.rateLimited, 0);
    const summary = JSON.stringify(Object.fromEntries(rateLimitedCodes));
    expect(answers).toBe(RUNS);
    expect(rateLimited / answers, `${rateLimited} of ${answers} answers were 429: ${summary}`).toBeLessThan(
      MAX_RATE_LIMITED_SHARE,
    );
    // A short run (FUZZ_RUNS) may not draw every operation; the default run draws each about 150 times.
    const mustDrawEvery = RUNS >= operations.length * 20;
    for (const [key, t] of tally) {
      if (t.answers === 0 && !mustDrawEvery) continue;
      expect(
        t.answers - t.rateLimited,
        `${key}: ${t.rateLimited} of ${t.answers} answers were 429`,
      ).toBeGreaterThan(0);
    }
  }, 600_000);
});

const operationKey = (operation: FuzzOperation): string => `${operation.method} ${operation.path}`;

type InjectResponse = { statusCode: number; headers: Record<string, unknown>; body: string };

function assertErrorShape(url: string, response: InjectResponse, where: string): void {
  const contentType = String(response.headers['content-type'] ?? '');
  if (contentType.startsWith('text/html')) {
    // Only the browser-facing pages answer HTML, and only to a GET or their own form posts: the login
    // and consent page, the device page, the console, and the confirm pages of the sign-up mail's
    // verification link and the security mail's "this wasn't me" link.
    const pages = [
      '/oauth/authorize',
      '/oauth/device',
      '/device',
      '/console',
      '/v1/dev-user/verify-email?',
      '/v1/dev-user/verify-email/confirm',
      '/account/secure',
    ];
    expect(
      pages.some((page) => url.startsWith(page)),
      where,
    ).toBe(true);
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
