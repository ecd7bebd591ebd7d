import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaAuthorize, registerWallet } from '../backend/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { jwtPayload } from '../oidc/support.js';
import {
  authorizeUrl,
  authorizeWithBearer,
  bearer,
  type CallbackServer,
  createClient,
  createUser,
  expectError,
  post,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from './support.js';

/** `login_devuser` with `client_id`: a login JWT bound to that app (`azp`). */
async function boundLogin(server: TestServer, user: TestUser, clientId: string): Promise<string> {
  const res = await post(`${server.url}/v1/dev-user/login_devuser`, {
    email: user.email,
    password: user.password,
    client_id: clientId,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

/**
 * Login binding (decisions §8, docs/security.md): a login JWT made for app A carries `azp` = A, and
 * both authorize endpoints refuse it for any other app with 401 `client_mismatch` — the relay of
 * issue 24's first finding, where A's backend replays the user's JWT at B.
 */
describe('login binding', () => {
  let server: TestServer;
  let callbacks: CallbackServer;
  let user: TestUser;
  let appA: TestClient;
  let appB: TestClient;

  beforeAll(async () => {
    server = await startTestServer();
    callbacks = await startCallbackServer();
    const owner = await createUser(server.url);
    appA = await createClient(server.url, owner, [callbacks.url('/a')], { name: 'App A' });
    appB = await createClient(server.url, owner, [callbacks.url('/b')], { name: 'App B' });
    user = await createUser(server.url);
  });
  afterAll(async () => {
    await callbacks?.close();
    await server?.close();
  });

  it('login_devuser with client_id issues a JWT whose azp is that app; without, no azp', async () => {
    expect(jwtPayload(await boundLogin(server, user, appA.clientId))).toMatchObject({
      azp: appA.clientId,
      token_use: 'login',
      sub: user.uuid,
    });
    expect(jwtPayload(user.loginToken)).not.toHaveProperty('azp');
  });

  it("the console's binding (dauth:console): the JWT works for the account and opens no app", async () => {
    const token = await boundLogin(server, user, 'dauth:console');
    expect(jwtPayload(token).azp).toBe('dauth:console');
    const apps = await fetch(`${server.url}/v1/dev-user/clients`, { headers: bearer(token) });
    expect(apps.status).toBe(200);
    for (const app of [appA, appB]) {
      const res = await fetch(
        authorizeUrl(server.url, {
          client_id: app.clientId,
          redirect_uri: app.redirectUri,
          response_type: 'code',
        }),
        { headers: bearer(token), redirect: 'manual' },
      );
      await expectError(res, 401, 'client_mismatch');
    }
  });

  it('an unknown client_id is a 400 naming the field, and no token', async () => {
    const res = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
      client_id: 'no-such-app',
    });
    const body = await expectError(res, 400, 'invalid_request');
    expect(body.field).toBe('client_id');
    expect(body).not.toHaveProperty('token');
  });

  it('/oauth/authorize: a JWT bound to A gets a code for A and 401 client_mismatch for B, no redirect', async () => {
    const token = await boundLogin(server, user, appA.clientId);
    const own = await authorizeWithBearer(server.url, { ...user, loginToken: token }, appA, { state: 's1' });
    expect(own.state).toBe('s1');

    const res = await fetch(
      authorizeUrl(server.url, {
        client_id: appB.clientId,
        redirect_uri: appB.redirectUri,
        response_type: 'code',
        state: 's2',
      }),
      { headers: bearer(token), redirect: 'manual' },
    );
    expect(res.headers.get('location')).toBeNull();
    await expectError(res, 401, 'client_mismatch');
  });

  it('/v1/oauth-meta/authorize: a JWT bound to A runs the flow for A and answers 401 client_mismatch for B', async () => {
    const player = await createUser(server.url);
    await registerWallet(server.url, player);
    const token = await boundLogin(server, player, appA.clientId);

    const other = await metaAuthorize(server.url, token, {
      client_id: appB.clientId,
      redirect_uri: appB.redirectUri,
      respose_type: 'code',
      state: 'relayed',
    });
    expect(other.status).toBe(401);
    expect(other.body).toMatchObject({ code: 401, data: [] });
    expect(String(other.body.message)).toMatch(/another app/);
    // No slot was made for B and no callback went out.
    const slots = await fetch(`${server.url}/v1/dev-user/slots`, { headers: bearer(player.loginToken) });
    expect(((await slots.json()) as { slots: unknown[] }).slots).toEqual([]);

    const own = await metaAuthorize(server.url, token, {
      client_id: appA.clientId,
      redirect_uri: appA.redirectUri,
      respose_type: 'code',
      state: 'own',
    });
    expect(own.status, own.text).toBe(200);
    expect((await callbacks.waitFor('own')).code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(callbacks.requests.some((r) => r.body.includes('relayed'))).toBe(false);
  });
});
