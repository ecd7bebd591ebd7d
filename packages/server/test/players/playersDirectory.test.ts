import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createPgSchema } from '../helpers/databases.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';
import { freePort } from '../helpers/server.js';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../oauth/support.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * The players directory and service accounts (decisions §9, docs/players.md, docs/machines.md) over two
 * replicas on one PostgreSQL schema: what one replica writes (grants, service accounts, revocations), the
 * other lists, finds and refuses at once.
 */
describe.skipIf(!postgresAvailable)('players directory and service accounts across two replicas', () => {
  const replicas: RunningServer[] = [];
  let dropSchema: () => Promise<void>;
  let a: string;
  let b: string;
  let owner: TestUser;
  let app: TestClient;
  let org: string;
  let publicUrl: string;
  const players: { user: TestUser; token: string; email: boolean }[] = [];

  beforeAll(async () => {
    const schema = await createPgSchema();
    dropSchema = schema.drop;
    const publicPort = await freePort();
    publicUrl = `http://127.0.0.1:${publicPort}`;
    for (let i = 0; i < 2; i++) {
      const env = {
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        PUBLIC_URL: publicUrl,
        DATA_DIR: `/tmp/dauth-replica-${randomUUID()}`,
        LOG_LEVEL: 'silent',
        DATABASE_URL: TEST_DATABASE_URL,
        MASTER_KEY: 'cd'.repeat(32),
        ADMIN_API_KEY: 'replica-admin-key-0123456789',
        SCRYPT_LOG_N: '14',
        RATE_LIMITS: 'login_address=1000/1m',
      };
      replicas.push(
        await startServer(loadConfig(env), { logger: pino({ level: 'silent' }), pgSchema: schema.schema }),
      );
    }
    [a, b] = replicas.map((r) => r.url) as [string, string];
    owner = await createUser(a);
    app = await createClient(a, owner, ['https://game.example/cb']);
    org = `org_u${owner.uuid}`;
    for (const withEmail of [true, false, false]) {
      const user = await createUser(b);
      const login = await post(`${b}/v1/dev-user/login_devuser`, {
        email: user.email,
        password: user.password,
        client_id: app.clientId,
      });
      const bound = ((await login.json()) as { token: string }).token;
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        ...(withEmail ? { scope: 'openid email', nonce: 'n' } : {}),
      });
      const redirect = await fetch(`${b}/oauth/authorize?${query}`, {
        headers: bearer(bound),
        redirect: 'manual',
      });
      expect(redirect.status).toBe(302);
      const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
      const tokens = await post(`${b}/oauth/token`, {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code,
        redirect_uri: app.redirectUri,
      });
      expect(tokens.status).toBe(200);
      players.push({
        user,
        token: ((await tokens.json()) as { access_token: string }).access_token,
        email: withEmail,
      });
    }
    players.sort((x, y) => Number(x.user.uuid) - Number(y.user.uuid));
  }, 180_000);
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await dropSchema?.();
  });

  const get = async (base: string, path: string, token: string) => {
    const res = await fetch(`${base}${path}`, { headers: bearer(token) });
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown> & { players?: Record<string, unknown>[] },
    };
  };
  const playersPath = (query = '') => `/v1/orgs/${org}/apps/${app.clientId}/players${query}`;

  it('lists the players page by page across replicas, in uuid order, e-mail only where consented', async () => {
    const first = await get(a, playersPath('?limit=2'), owner.loginToken);
    expect(first.status).toBe(200);
    expect(first.body.players!.map((p) => p.user_id)).toEqual(players.slice(0, 2).map((p) => p.user.uuid));
    const cursor = first.body.next_cursor as string;
    expect(cursor).toMatch(/^p1\./);
    const second = await get(
      b,
      playersPath(`?limit=2&cursor=${encodeURIComponent(cursor)}`),
      owner.loginToken,
    );
    expect(second.body.players!.map((p) => p.user_id)).toEqual([players[2]!.user.uuid]);
    expect(second.body.next_cursor).toBeNull();
    for (const row of [...first.body.players!, ...second.body.players!]) {
      const player = players.find((p) => p.user.uuid === row.user_id)!;
      expect(row).toMatchObject({ guest: false, wallet_address: null });
      if (player.email) expect(row.email).toBe(player.user.email);
      else expect(row).not.toHaveProperty('email');
    }
  });

  it('finds a player by uuid, and by e-mail only where the player let the app see it', async () => {
    const withEmail = players.find((p) => p.email)!;
    const without = players.find((p) => !p.email)!;
    const byEmail = await get(
      b,
      playersPath(`?q=${encodeURIComponent(withEmail.user.email)}`),
      owner.loginToken,
    );
    expect(byEmail.body.players!.map((p) => p.user_id)).toEqual([withEmail.user.uuid]);
    const hidden = await get(
      a,
      playersPath(`?q=${encodeURIComponent(without.user.email)}`),
      owner.loginToken,
    );
    expect(hidden.body.players).toEqual([]);
    const byUuid = await get(a, playersPath(`?q=${without.user.uuid}`), owner.loginToken);
    expect(byUuid.body.players!.map((p) => p.user_id)).toEqual([without.user.uuid]);
    const detail = await get(b, playersPath(`/${without.user.uuid}`), owner.loginToken);
    expect(detail.body).toMatchObject({
      success: true,
      user_id: without.user.uuid,
      slots: [],
      purchases: [],
      consumption: [],
      session_keys: [],
    });
  });

  it('refuses non-members and another org’s app alike (404 client_not_found)', async () => {
    const stranger = await createUser(a);
    const res = await get(b, playersPath(), stranger.loginToken);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('client_not_found');
    const theirApp = await createClient(a, stranger, ['https://other.example/cb']);
    const crossed = await get(a, `/v1/orgs/${org}/apps/${theirApp.clientId}/players`, owner.loginToken);
    expect(crossed.status).toBe(404);
    expect(crossed.body.error).toBe('client_not_found');
  });

  it('a service account reads with players:read, lacks players:write (403), and is refused by PIN and wallet routes', async () => {
    const made = await post(
      `${a}/v1/orgs/${org}/service-accounts`,
      { name: 'Support desk', scopes: ['players:read'] },
      bearer(owner.loginToken),
    );
    expect(made.status).toBe(201);
    const account = (await made.json()) as { client_id: string; client_secret: string; scopes: string[] };
    expect(account.client_id).toMatch(/^sa_[0-9a-f]{32}$/);
    expect(account.scopes).toEqual(['players:read']);

    const as: oauth.AuthorizationServer = {
      issuer: publicUrl,
      token_endpoint: `${b}/oauth/token`,
    };
    const client: oauth.Client = { client_id: account.client_id };
    const result = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(account.client_secret),
        new URLSearchParams(),
        insecure,
      ),
    );
    expect(result.scope).toBe('players:read');
    const token = result.access_token;

    expect((await get(a, playersPath('?limit=1'), token)).status).toBe(200);
    const revoke = await post(`${a}${playersPath(`/${players[0]!.user.uuid}/revoke`)}`, {}, bearer(token));
    expect(revoke.status).toBe(403);
    expect(await revoke.json()).toMatchObject({ error: 'insufficient_scope' });
    // Never a person: the PIN and wallet routes refuse it.
    const pin = await post(`${b}/v1/pin/verify`, { pin: '123456' }, bearer(token));
    expect(pin.status).toBe(401);
    expect((await fetch(`${a}/v1/dev-user/wallet`, { headers: bearer(token) })).status).toBe(401);
    // Nor may it manage service accounts, whatever its scopes.
    expect((await get(b, `/v1/orgs/${org}/service-accounts`, token)).status).toBe(401);

    // Deleted on one replica: its token stops on the other at once.
    const deleted = await fetch(`${b}/v1/orgs/${org}/service-accounts/${account.client_id}`, {
      method: 'DELETE',
      headers: bearer(owner.loginToken),
    });
    expect(deleted.status).toBe(200);
    await expect.poll(async () => (await get(a, playersPath(), token)).status, { timeout: 5000 }).toBe(401);
  });

  it('players:write revokes a player’s grant: their token dies on both replicas and they leave the list', async () => {
    const made = await post(
      `${b}/v1/orgs/${org}/service-accounts`,
      { name: 'Ops', scopes: ['players:read', 'players:write'] },
      bearer(owner.loginToken),
    );
    const account = (await made.json()) as { client_id: string; client_secret: string };
    const issued = await post(`${a}/oauth/token`, {
      grant_type: 'client_credentials',
      client_id: account.client_id,
      client_secret: account.client_secret,
      scope: 'players:write',
    });
    const { access_token: token, scope } = (await issued.json()) as { access_token: string; scope: string };
    expect(scope).toBe('players:write');
    const victim = players[2]!;
    expect((await fetch(`${a}/v1/oauth/validate`, { headers: bearer(victim.token) })).status).toBe(200);
    const revoked = await post(`${b}${playersPath(`/${victim.user.uuid}/revoke`)}`, {}, bearer(token));
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ success: true, revoked_grants: 1 });
    const validate = async (base: string) =>
      (await fetch(`${base}/v1/oauth/validate`, { headers: bearer(victim.token) })).status;
    // At once on the replica that revoked; on the other as soon as the revocation bus carries it.
    expect(await validate(b)).toBe(401);
    await expect.poll(() => validate(a), { timeout: 5000, interval: 20 }).toBe(401);
    const list = await get(a, playersPath(), owner.loginToken);
    expect(list.body.players!.map((p) => p.user_id)).not.toContain(victim.user.uuid);
    // players:write alone does not read.
    expect((await get(a, playersPath(), token)).status).toBe(403);
  });
});
