import type * as FastifyModule from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  api,
  createOrg,
  createOrgApp,
  createUser,
  GENEROUS_LIMITS,
  type TestUser,
} from './support.js';

/** Every route the app registers, with the guards of http/auth.ts its preHandlers enforce. */
const registered = vi.hoisted(() => [] as { method: string; url: string; access: string[] }[]);

vi.mock('fastify', async (importOriginal) => {
  const actual = await importOriginal<typeof FastifyModule>();
  const { routeAccessOf } = await import('../../src/http/auth.js');
  const withRouteLog = ((options?: Parameters<typeof actual.default>[0]) => {
    const app = actual.default(options);
    app.addHook('onRoute', (route) => {
      const hooks = [route.onRequest, route.preValidation, route.preHandler].flat().filter(Boolean);
      const access = hooks.map((hook) => routeAccessOf(hook)).flatMap((a) => (a === undefined ? [] : [a]));
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD') registered.push({ method, url: route.url, access });
      }
    });
    return app;
  }) as unknown as typeof actual.default;
  return { ...actual, default: withRouteLog };
});

type Role = 'owner' | 'admin' | 'developer' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'developer', 'viewer'];
const RANK: Record<Role, number> = { viewer: 1, developer: 2, admin: 3, owner: 4 };

interface Ctx {
  orgId: string;
  /** The app the request is about (an app of the org, or another org's app). */
  clientId: string;
  webhookId: string;
}

interface Row {
  /** The lowest role the route serves (decisions §9). */
  min: Role;
  body?: (c: Ctx) => unknown;
  query?: (c: Ctx) => string;
  /** A route that ends what it acts on gets a fresh app (or webhook) for every request. */
  fresh?: 'app' | 'webhook';
  /** Routes keyed by the body's client_id keep their codes for a non-member (403 not_client_owner). */
  bodyKeyed?: true;
  /** The route names an org, not an app (another org's app cannot be asked for). */
  orgLevel?: true;
}

const policy = {
  calls: [],
  max_value_per_call_wei: '0',
  max_value_per_day_wei: '0',
  token_limits: [],
  valid_for_seconds: 3600,
};

/**
 * Every management route of an app, with the lowest role that may call it. The test fails when a
 * management route is registered that this table does not list (a new route must say who may call it).
 */
const MATRIX: Record<string, Row> = {
  'PATCH /v1/dev-user/clients/:id': { min: 'developer', body: () => ({ name: 'Renamed game' }) },
  'DELETE /v1/dev-user/clients/:id': { min: 'admin', fresh: 'app' },
  'POST /v1/dev-user/clients/:id/rotate-secret': { min: 'admin', fresh: 'app' },
  'POST /v1/dev-user/clients/:id/webhooks': {
    min: 'developer',
    body: () => ({ url: 'http://127.0.0.1:9/hook', events: ['grant.created'] }),
  },
  'GET /v1/dev-user/clients/:id/webhooks': { min: 'viewer' },
  'GET /v1/dev-user/clients/:id/webhooks/:wid': { min: 'viewer' },
  'PATCH /v1/dev-user/clients/:id/webhooks/:wid': {
    min: 'developer',
    body: () => ({ events: ['grant.created', 'grant.revoked'] }),
  },
  'DELETE /v1/dev-user/clients/:id/webhooks/:wid': { min: 'developer', fresh: 'webhook' },
  'POST /v1/dev-user/clients/:id/webhooks/:wid/rotate-secret': { min: 'developer' },
  'GET /v1/dev-user/clients/:id/webhooks/:wid/deliveries': { min: 'viewer' },
  'POST /v1/dev-user/clients/:id/webhooks/:wid/deliveries/:did/retry': { min: 'developer' },
  'GET /v1/dev-user/clients/:id/activity': { min: 'viewer' },
  'PUT /v1/dev-user/clients/:id/wallet-policy': { min: 'developer', body: () => policy },
  'GET /v1/dev-user/clients/:id/wallet-policy': { min: 'viewer' },
  'DELETE /v1/dev-user/clients/:id/wallet-policy': { min: 'developer' },
  'PUT /v1/dev-user/clients/:id/sponsorship': {
    min: 'developer',
    body: () => ({
      daily_gas_per_player: 1_000_000,
      daily_gas_per_guest: null,
      daily_gas_app: null,
      ops_per_player_per_minute: null,
    }),
  },
  'GET /v1/dev-user/clients/:id/sponsorship': { min: 'viewer' },
  'GET /v1/orgs/:id/apps': { min: 'viewer', orgLevel: true },
  'GET /v1/orgs/:id/apps/:client_id': { min: 'viewer' },
  // The players directory and pre-generation (docs/players.md).
  'GET /v1/orgs/:id/apps/:client_id/players': { min: 'viewer' },
  'GET /v1/orgs/:id/apps/:client_id/players/:user_id': { min: 'viewer' },
  'POST /v1/orgs/:id/apps/:client_id/players/:user_id/revoke': { min: 'developer' },
  'POST /v1/orgs/:id/apps/:client_id/players/pregenerate': {
    min: 'developer',
    body: () => ({ email: `pre-${Math.random().toString(36).slice(2)}@example.com` }),
  },
  'POST /v1/development-api/init_permission_provider': {
    min: 'developer',
    bodyKeyed: true,
    body: (c) => ({
      client_id: c.clientId,
      cuid: `cuid-${c.clientId.slice(0, 8)}`,
      release_per: 10,
      owner_addr: '0x00000000000000000000000000000000000000a1',
    }),
  },
  'GET /v1/development-api/payload_mode': {
    min: 'viewer',
    bodyKeyed: true,
    query: (c) => `client_id=${c.clientId}`,
  },
  'POST /v1/development-api/payload_mode': {
    min: 'developer',
    bodyKeyed: true,
    body: (c) => ({ client_id: c.clientId, mode: 'ctr' }),
  },
  'POST /v1/development-api/test_encryption': {
    min: 'developer',
    bodyKeyed: true,
    body: (c) => ({ client_id: c.clientId, test_string: 'hello' }),
  },
  'POST /v1/development-api/consume_auth': {
    min: 'developer',
    bodyKeyed: true,
    body: (c) => ({ client_id: c.clientId, consume_auth: 'none' }),
  },
  'POST /v1/development-api/release_used_balance': {
    min: 'developer',
    bodyKeyed: true,
    body: (c) => ({
      client_id: c.clientId,
      cuid: 'cuid-never-registered',
      slot: '0x00000000000000000000000000000000000000b2',
    }),
  },
};

/** Routes that name an app but are not its management: a player's own PIN-gated purchase. */
const NOT_MANAGEMENT = new Set(['POST /v1/development-api/user_buy_content_token']);

/** The management routes the server registered: under an app's id, an org's apps, or a provider route a member's login calls. */
function managementRoutes(): string[] {
  return registered
    .filter(
      (r) =>
        r.url.startsWith('/v1/dev-user/clients/:id') ||
        r.url.startsWith('/v1/orgs/:id/apps') ||
        (r.url.startsWith('/v1/development-api/') &&
          r.access.some((a) => a === 'login' || a === 'fresh_login')),
    )
    .map((r) => `${r.method} ${r.url}`)
    .filter((key) => !NOT_MANAGEMENT.has(key));
}

describe('roles on every management route of an app (decisions §9, docs/orgs.md)', () => {
  let server: TestServer;
  const members = {} as Record<Role, TestUser>;
  let outsider: TestUser;
  let orgId: string;
  let appId: string;
  let outsiderAppId: string;
  let webhookId: string;

  const newWebhook = async (clientId: string) => {
    const created = await api(
      server,
      'POST',
      `/v1/dev-user/clients/${clientId}/webhooks`,
      members.owner.loginToken,
      {
        url: 'http://127.0.0.1:9/hook',
        events: ['grant.created'],
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMITS: GENEROUS_LIMITS, CALLBACK_ALLOW_PRIVATE: 'true' } });
    for (const role of ROLES) members[role] = await createUser(server.url, role);
    outsider = await createUser(server.url, 'outsider');
    orgId = await createOrg(server, members.owner, 'Matrix Studio');
    for (const role of ['admin', 'developer', 'viewer'] as const) {
      await addMember(server, members.owner, orgId, members[role], role);
    }
    appId = (await createOrgApp(server, members.owner, orgId)).clientId;
    outsiderAppId = (await createOrgApp(server, outsider, undefined, 'Their game')).clientId;
    webhookId = await newWebhook(appId);
  }, 120_000);
  afterAll(() => server?.close());

  it('lists every management route the server registers, and no route it does not', () => {
    const routes = managementRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(
      routes.filter((key) => !(key in MATRIX)),
      'management routes missing from MATRIX',
    ).toEqual([]);
    expect(
      Object.keys(MATRIX).filter((key) => !routes.includes(key)),
      'rows without a route',
    ).toEqual([]);
  });

  const request = async (key: string, row: Row, user: TestUser, ctx: Ctx) => {
    const [method, template] = key.split(' ') as [string, string];
    const path = template
      .replace(':id', template.startsWith('/v1/orgs/') ? ctx.orgId : ctx.clientId)
      .replace(':client_id', ctx.clientId)
      .replace(':wid', ctx.webhookId)
      .replace(':did', 'msg_missing')
      .replace(':user_id', '1000000001');
    const query = row.query ? `?${row.query(ctx)}` : '';
    const body = row.body?.(ctx) ?? (method === 'GET' || method === 'DELETE' ? undefined : {});
    return api(server, method, `${path}${query}`, user.loginToken, body);
  };

  it('serves each role what its rank allows and answers 403 forbidden_role below it', async () => {
    const wrong: string[] = [];
    for (const [key, row] of Object.entries(MATRIX)) {
      for (const role of ROLES) {
        const ctx: Ctx = { orgId, clientId: appId, webhookId };
        if (row.fresh === 'app') ctx.clientId = (await createOrgApp(server, members.owner, orgId)).clientId;
        if (row.fresh === 'webhook') ctx.webhookId = await newWebhook(appId);
        const answer = await request(key, row, members[role], ctx);
        const code = answer.body.error;
        const allowed = RANK[role] >= RANK[row.min];
        if (allowed) {
          const refused =
            answer.status >= 500 ||
            [
              'forbidden_role',
              'client_not_found',
              'not_client_owner',
              'unknown_client',
              'org_not_found',
            ].includes(String(code));
          if (refused)
            wrong.push(`${key} as ${role}: ${answer.status} ${String(code)}, expected to be served`);
        } else if (answer.status !== 403 || code !== 'forbidden_role') {
          wrong.push(`${key} as ${role}: ${answer.status} ${String(code)}, expected 403 forbidden_role`);
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it("answers 404 client_not_found for another organization's app, whatever the caller's role elsewhere", async () => {
    const wrong: string[] = [];
    for (const [key, row] of Object.entries(MATRIX)) {
      if (row.orgLevel) continue;
      const ctx: Ctx = { orgId, clientId: outsiderAppId, webhookId };
      const answer = await request(key, row, members.owner, ctx);
      const [status, code] = row.bodyKeyed ? [403, 'not_client_owner'] : [404, 'client_not_found'];
      if (answer.status !== status || answer.body.error !== code) {
        wrong.push(`${key}: ${answer.status} ${String(answer.body.error)}, expected ${status} ${code}`);
      }
    }
    expect(wrong).toEqual([]);
    const listed = await api(server, 'GET', `/v1/orgs/${orgId}/apps`, members.owner.loginToken);
    const ids = (listed.body.apps as { client_id: string }[]).map((a) => a.client_id);
    expect(ids).toContain(appId);
    expect(ids).not.toContain(outsiderAppId);
    // And the outsider, a stranger to the org, learns nothing of it or its apps.
    expect((await api(server, 'GET', `/v1/orgs/${orgId}/apps`, outsider.loginToken)).body.error).toBe(
      'org_not_found',
    );
    const patched = await api(server, 'PATCH', `/v1/dev-user/clients/${appId}`, outsider.loginToken, {
      name: 'x',
    });
    expect([patched.status, patched.body.error]).toEqual([404, 'client_not_found']);
  }, 120_000);

  it("records every change to the org's apps in the org's audit log", async () => {
    const log = await api(server, 'GET', `/v1/orgs/${orgId}/audit?limit=200`, members.admin.loginToken);
    expect(log.status).toBe(200);
    const entries = log.body.entries as { action: string; client_id?: string; actor_user?: string }[];
    const actions = new Set(entries.map((e) => e.action));
    for (const action of [
      'org.create',
      'invitation.create',
      'invitation.accept',
      'app.create',
      'app.update',
      'app.delete',
      'app.rotate_secret',
      'webhook.create',
      'webhook.update',
      'webhook.delete',
      'webhook.rotate_secret',
      'wallet_policy.set',
      'provider.register',
    ]) {
      expect(actions, action).toContain(action);
    }
    const update = entries.find((e) => e.action === 'app.update' && e.client_id === appId);
    expect([members.owner.uuid, members.admin.uuid, members.developer.uuid]).toContain(update?.actor_user);
    // Viewers never changed anything, and a viewer cannot read the log.
    expect(
      entries.some((e) => e.actor_user === members.viewer.uuid && e.action !== 'invitation.accept'),
    ).toBe(false);
    const asViewer = await api(server, 'GET', `/v1/orgs/${orgId}/audit`, members.viewer.loginToken);
    expect([asViewer.status, asViewer.body.error]).toEqual([403, 'forbidden_role']);
  });
});
