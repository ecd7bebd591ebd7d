import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
  expectError,
  post,
  type TestClient,
  type TestUser,
  type TokenResult,
} from '../oauth/support.js';

describe.each([{ postgres: false }, { postgres: true }])('login status (postgres: $postgres)', (opts) => {
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let app: TestClient;
  let otherApp: TestClient;
  let aliceToken: string;
  let bobToken: string;
  let aliceOtherAppToken: string;

  async function accessToken(user: TestUser, client: TestClient): Promise<string> {
    const { code } = await authorizeWithBearer(server.url, user, client);
    return ((await (await exchange(server.url, client, code)).json()) as TokenResult).access_token;
  }

  beforeAll(async () => {
    if (opts.postgres && !postgresAvailable) return;
    server = await startTestServer(opts);
    alice = await createUser(server.url, 'Alice');
    bob = await createUser(server.url, 'Bob');
    app = await createClient(server.url, alice, ['https://game.example/cb']);
    otherApp = await createClient(server.url, alice, ['https://other.example/cb']);
    aliceToken = await accessToken(alice, app);
    bobToken = await accessToken(bob, app);
    aliceOtherAppToken = await accessToken(alice, otherApp);
  });
  afterAll(() => server?.close());

  const check = (token: string, userId: string, clientId: string) =>
    fetch(
      `${server.url}/v1/oauth/status/check?${new URLSearchParams({ user_id: userId, client_id: clientId }).toString()}`,
      { headers: bearer(token) },
    );
  const update = (transition: 'login' | 'logout', token: string, body: unknown) =>
    post(`${server.url}/v1/oauth/status/${transition}`, body, bearer(token));
  const statusOfAlice = async () => {
    const res = await check(aliceToken, alice.uuid, app.clientId);
    expect(res.status).toBe(200);
    return ((await res.json()) as { status: string }).status;
  };

  it('starts logged_out (transfer allowed), then follows login and logout', async (ctx) => {
    if (!server) return ctx.skip();
    const initial = await check(aliceToken, alice.uuid, app.clientId);
    expect(initial.status).toBe(200);
    const first = (await initial.json()) as Record<string, unknown>;
    expect(first).toMatchObject({
      success: true,
      user_id: alice.uuid,
      status: 'logged_out',
      transfer_enabled: true,
    });
    expect(typeof first.message).toBe('string');

    const before = Date.now();
    const login = await update('login', aliceToken, { user_id: alice.uuid, client_id: app.clientId });
    expect(login.status).toBe(200);
    const loggedIn = (await login.json()) as Record<string, unknown>;
    expect(loggedIn).toMatchObject({
      success: true,
      message: 'Login status updated',
      user_id: alice.uuid,
      status: 'logged_in',
      transfer_enabled: false,
    });
    expect(loggedIn.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(loggedIn.timestamp as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(await statusOfAlice()).toBe('logged_in');
    expect(
      (await server.services.loginStatus.getStatus(Number(alice.uuid), app.clientId)).transferEnabled,
    ).toBe(false);

    const logout = await update('logout', aliceToken, { user_id: alice.uuid, client_id: app.clientId });
    expect(await logout.json()).toMatchObject({
      success: true,
      message: 'Logout status updated',
      status: 'logged_out',
      transfer_enabled: true,
    });
    expect(await statusOfAlice()).toBe('logged_out');
    // Per app: the other app's status was never touched.
    expect(
      ((await (await check(aliceOtherAppToken, alice.uuid, otherApp.clientId)).json()) as { status: string })
        .status,
    ).toBe('logged_out');
  });

  it("refuses another user's token or another app's token with 403, changing nothing", async (ctx) => {
    if (!server) return ctx.skip();
    await update('login', aliceToken, { user_id: alice.uuid, client_id: app.clientId });
    const asBob = await update('logout', bobToken, { user_id: alice.uuid, client_id: app.clientId });
    await expectError(asBob, 403, 'forbidden');
    const otherAppToken = await update('logout', aliceOtherAppToken, {
      user_id: alice.uuid,
      client_id: app.clientId,
    });
    await expectError(otherAppToken, 403, 'forbidden');
    await expectError(await check(bobToken, alice.uuid, app.clientId), 403, 'forbidden');
    expect(await statusOfAlice()).toBe('logged_in');
  });

  it('refuses missing, login-JWT and revoked bearer tokens with 401', async (ctx) => {
    if (!server) return ctx.skip();
    const body = { user_id: alice.uuid, client_id: app.clientId };
    await expectError(await post(`${server.url}/v1/oauth/status/logout`, body), 401, 'missing_token');
    await expectError(await update('logout', alice.loginToken, body), 401, 'invalid_token');
    expect(await statusOfAlice()).toBe('logged_in');
  });

  it('refuses malformed, mistyped and oversized bodies, changing nothing', async (ctx) => {
    if (!server) return ctx.skip();
    await update('login', aliceToken, { user_id: alice.uuid, client_id: app.clientId });
    const raw = (body: string, type = 'application/json') =>
      fetch(`${server.url}/v1/oauth/status/logout`, {
        method: 'POST',
        headers: { 'content-type': type, ...bearer(aliceToken) },
        body,
      });
    await expectError(await raw('{"user_id": '), 400, 'invalid_json');
    expect(
      (await expectError(await raw(JSON.stringify({ client_id: app.clientId })), 400, 'invalid_request'))
        .field,
    ).toBe('user_id');
    expect(
      (
        await expectError(
          await raw(JSON.stringify({ user_id: Number(alice.uuid), client_id: app.clientId })),
          400,
          'invalid_request',
        )
      ).field,
    ).toBe('user_id');
    await expectError(
      await raw(
        JSON.stringify({ user_id: alice.uuid, client_id: app.clientId, pad: 'x'.repeat(1024 * 1024) }),
      ),
      413,
      'payload_too_large',
    );
    await expectError(await raw('<user_id>1</user_id>', 'application/xml'), 415, 'unsupported_media_type');
    expect(await statusOfAlice()).toBe('logged_in');
    const missingQuery = await fetch(`${server.url}/v1/oauth/status/check?user_id=${alice.uuid}`, {
      headers: bearer(aliceToken),
    });
    expect((await expectError(missingQuery, 400, 'invalid_request')).field).toBe('client_id');
  });
});
