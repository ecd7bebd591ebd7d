import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MeteredLogController } from '../../src/http/requestMetrics.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Fastify builds Request and Reply classes per encapsulated scope, and its per-request code is shared by every
 * route: with a scope per route module, requests of dozens of classes went through it, and V8 handles a
 * property access that has seen more than four hidden classes through its slow megamorphic path, for the life
 * of the process (docs/performance-http.md, round 11). The API's routes share the root's classes; the cookie
 * pages and the admin routes have one scope each. Each request's classes are read where Fastify reports it
 * started (the app's log controller), on the real app.
 */
describe('Request and Reply classes by route', () => {
  let server: TestServer;
  const classes = new Map<string, { route: string | undefined; request: unknown; reply: unknown }>();
  const original = MeteredLogController.prototype.incomingRequest;

  beforeAll(async () => {
    MeteredLogController.prototype.incomingRequest = function (
      this: MeteredLogController,
      request: FastifyRequest,
      reply: FastifyReply,
    ) {
      classes.set(`${request.method} ${request.url}`, {
        route: request.routeOptions.url,
        request: request.constructor,
        reply: reply.constructor,
      });
      original.call(this, request, reply);
    };
    server = await startTestServer();
  });
  afterAll(async () => {
    MeteredLogController.prototype.incomingRequest = original;
    await server?.close();
  });

  const slot = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const api = [
    { method: 'GET', url: '/healthz' },
    { method: 'GET', url: '/v1/oauth/validate' },
    { method: 'GET', url: `/v1/development-api/balance_adex/${slot}?cuid=bench-game` },
    { method: 'POST', url: '/oauth/token', payload: { grant_type: 'authorization_code' } },
    { method: 'GET', url: '/.well-known/jwks.json' },
    { method: 'GET', url: '/.well-known/oauth-authorization-server' },
    { method: 'GET', url: '/v1/dev-user/wallet' },
    { method: 'GET', url: '/v1/dev-user/slots' },
  ] as const;
  const cookiePages = [
    { method: 'GET', url: '/oauth/authorize' },
    { method: 'GET', url: '/locale?lang=de&return_to=/' },
    { method: 'GET', url: '/oauth/device' },
  ] as const;
  const admin = [{ method: 'GET', url: '/v1/admin/audit' }] as const;

  it('every API route answers with the root scope’s two classes; the cookie pages and the admin routes from a scope each', async () => {
    for (const request of [...api, ...cookiePages, ...admin]) {
      await server.app.inject(request);
    }
    const classesOf = (requests: readonly { method: string; url: string }[]) =>
      requests.map(({ method, url }) => {
        const answered = classes.get(`${method} ${url}`);
        // Answered by the route itself, not by the not-found handler.
        expect(answered?.route, url).toBeDefined();
        return answered!;
      });
    const apiClasses = classesOf(api);
    expect(new Set(apiClasses.map((c) => c.request)).size).toBe(1);
    expect(new Set(apiClasses.map((c) => c.reply)).size).toBe(1);
    const pageClasses = classesOf(cookiePages);
    expect(new Set(pageClasses.map((c) => c.request)).size).toBe(1);
    expect(new Set(pageClasses.map((c) => c.reply)).size).toBe(1);
    const all = [...classes.values()];
    // The root's, the cookie pages', the admin routes' (whose answer here, a refusal by the admin scope's hook,
    // came with the root's Reply class): within V8's default bound of four, which the server raises anyway
    // (src/polymorphicCaches.ts).
    expect(new Set(all.map((c) => c.request)).size).toBe(3);
    expect(new Set(all.map((c) => c.reply)).size).toBeLessThanOrEqual(3);
  });
});
