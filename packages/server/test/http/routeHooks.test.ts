import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHooks } from '../helpers/routeTable.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The hooks each route of the real app runs, read from Fastify's own route table (`printRoutes` with
 * hooks). A hook of the root runs on every answer, token validation included, so what concerns a few
 * routes (a form body where JSON is due, the admin key's rate limit, writing the cookies a reply set) is
 * a hook of those routes only (docs/performance-http.md, round 10).
 */
describe('hooks by route', () => {
  let server: TestServer;
  let hooks: Map<string, string[]>;
  beforeAll(async () => {
    server = await startTestServer();
    hooks = routeHooks(server.app.printRoutes({ includeHooks: true, commonPrefix: false }));
  });
  afterAll(() => server?.close());

  const of = (route: string) => {
    expect(hooks.has(route), route).toBe(true);
    return hooks.get(route)!;
  };
  const onRequestOf = (route: string) => of(route).filter((hook) => hook.startsWith('onRequest: '));

  it('token validation and liveness run no hook but their own; balance_adex its own limit', () => {
    expect(of('GET /v1/oauth/validate')).toEqual(['preHandler: handler']);
    expect(of('GET /healthz')).toEqual([]);
    expect(of('GET /v1/development-api/balance_adex/:slot_address')).toEqual(['onRequest: countRequest']);
  });

  it('the form-body refusal runs first on JSON routes that take a body, and nowhere else', () => {
    expect(onRequestOf('POST /v1/dev-user/register')[0]).toBe('onRequest: refuseFormBody');
    expect(onRequestOf('POST /v1/pin/register')[0]).toBe('onRequest: refuseFormBody');
    // The endpoints that take forms.
    for (const route of ['POST /oauth/token', 'POST /v1/federation/:id/callback', 'POST /account/secure']) {
      expect(of(route)).not.toContain('onRequest: refuseFormBody');
    }
    for (const [route, names] of hooks) {
      if (route.startsWith('GET ') || route.startsWith('HEAD '))
        expect(names, route).not.toContain('onRequest: refuseFormBody');
    }
  });

  it('the admin-key limit runs first on every route that compares the key, and nowhere else', () => {
    const admin = [...hooks].filter(([route]) => /^[A-Z]+ \/v1\/admin\//.test(route));
    expect(admin.length).toBeGreaterThan(5);
    for (const [route, names] of admin) expect(names[0], route).toBe('onRequest: adminRateLimit');
    expect(onRequestOf('GET /metrics')[0]).toBe('onRequest: adminRateLimit');
    const counted = [...hooks]
      .filter(([, names]) => names.includes('onRequest: adminRateLimit'))
      .map(([route]) => route);
    expect(
      counted.every((route) => /^[A-Z]+ (\/v1\/admin\/|\/metrics$)/.test(route)),
      counted.join(),
    ).toBe(true);
  });

  it('the cookie writer runs only on the routes of the modules that set cookies', () => {
    const writer = 'onSend: fastifyCookieOnSendHandler';
    for (const route of [
      'GET /oauth/authorize',
      'GET /oauth/device',
      'POST /oauth/device/decision',
      'GET /oauth/end_session',
      'GET /v1/federation/:id/start',
      'GET /locale',
      'POST /oauth/authorize/login',
    ]) {
      expect(of(route), route).toContain(writer);
    }
    const writing = [...hooks].filter(([, names]) => names.includes(writer)).map(([route]) => route);
    expect(writing.length).toBeGreaterThan(5);
    expect(writing.length, 'routes with the cookie writer').toBeLessThan(hooks.size / 3);
  });
});
