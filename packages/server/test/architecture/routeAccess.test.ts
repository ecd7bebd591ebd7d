import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as FastifyModule from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routeAccessOf } from '../../src/http/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const docPath = path.resolve(here, '../../../../docs/security.md');

/** Every state-changing route the app registers, with the access its preHandlers enforce (auth.ts tags). */
const registered = vi.hoisted(() => [] as { method: string; url: string; access: string[] }[]);

vi.mock('fastify', async (importOriginal) => {
  const actual = await importOriginal<typeof FastifyModule>();
  const { routeAccessOf: accessOf } = await import('../../src/http/auth.js');
  const withRouteLog = ((options?: Parameters<typeof actual.default>[0]) => {
    const app = actual.default(options);
    app.addHook('onRoute', (route) => {
      const hooks = [route.onRequest, route.preValidation, route.preHandler].flat().filter(Boolean);
      const access = hooks.map((hook) => accessOf(hook)).flatMap((a) => (a === undefined ? [] : [a]));
      for (const method of [route.method].flat()) {
        if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method))
          registered.push({ method, url: route.url, access });
      }
    });
    return app;
  }) as unknown as typeof actual.default;
  return { ...actual, default: withRouteLog };
});

/** The rows of docs/security.md's "Who may change what" table: method, path, the token it accepts. */
function accessTable(): Map<string, string> {
  const doc = fs.readFileSync(docPath, 'utf8');
  const section = doc.slice(doc.indexOf('## Who may change what'));
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\|\s*(POST|PUT|PATCH|DELETE)\s*\|\s*`([^`]+)`\s*\|\s*`([^`]+)`/gm)) {
    rows.set(`${match[1]} ${match[2]}`, match[3]!);
  }
  return rows;
}

/** The guards of http/auth.ts; a row naming one of these must be enforced by the route's preHandler. */
const GUARDS = new Set([
  'any_token',
  'login',
  'access',
  'fresh_login',
  'first_party',
  'first_party_or_guest',
  'login_or_client',
  'fresh_login_or_client',
]);
/** Routes that authenticate otherwise (docs/security.md says how). */
const OTHER = new Set(['none', 'page_session', 'client', 'admin_key', 'ticket', 'provider', 'access_token']);

describe('docs/security.md "Who may change what" lists every state-changing route with the token it accepts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('reads the guards off the preHandlers', () => {
    expect(routeAccessOf(() => undefined)).toBeUndefined();
    const passkeyDelete = registered.find(
      (r) => r.method === 'DELETE' && r.url === '/v1/dev-user/passkeys/:id',
    );
    expect(passkeyDelete?.access).toEqual(['first_party']);
  });

  it('every registered route has a row, and every row a route', () => {
    expect(server.url).toMatch(/^http:/);
    const table = accessTable();
    const keys = registered.map((r) => `${r.method} ${r.url}`);
    expect(keys.length).toBeGreaterThan(60);
    expect(
      keys.filter((key) => !table.has(key)),
      'routes missing from docs/security.md',
    ).toEqual([]);
    expect(
      [...table.keys()].filter((key) => !keys.includes(key)),
      'rows without a route',
    ).toEqual([]);
  });

  it("each row's token is what the route enforces", () => {
    const table = accessTable();
    const wrong = registered.flatMap((route) => {
      const documented = table.get(`${route.method} ${route.url}`);
      if (documented === undefined) return [];
      const enforced = route.access.at(-1);
      if (enforced !== undefined)
        return documented === enforced ? [] : [`${route.method} ${route.url}: ${documented} ≠ ${enforced}`];
      return OTHER.has(documented) && !GUARDS.has(documented)
        ? []
        : [`${route.method} ${route.url}: ${documented}, but no guard of http/auth.ts runs`];
    });
    expect(wrong).toEqual([]);
  });

  it('every change to the ways in is first-party (decisions §9)', () => {
    const waysIn = registered.filter(
      (r) =>
        /^\/v1\/dev-user\/(passkeys(\/registration-options|\/:id)?|identities(\/link|\/:id)?|mfa\b.*|account\b.*|email\b.*)$/.test(
          r.url,
        ) &&
        // The language of the account's mails opens nothing: any login JWT sets it (docs/account.md "Language").
        r.url !== '/v1/dev-user/account/locale',
    );
    expect(waysIn.length).toBeGreaterThanOrEqual(6);
    for (const route of waysIn) {
      expect(['first_party', 'first_party_or_guest'], `${route.method} ${route.url}`).toContain(
        route.access.at(-1),
      );
    }
  });
});
