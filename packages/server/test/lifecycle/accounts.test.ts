import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
  expectError,
  post,
  type TokenResult,
} from '../oauth/support.js';

/** Account lifecycle (docs/accounts.md): consents, password reset and change, the account overview. */
const backends = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(backends)('account lifecycle on %s', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ postgres: backend === 'postgres' });
  });
  afterAll(async () => server?.close());

  const get = (p: string, token: string) => fetch(`${server.url}${p}`, { headers: bearer(token) });
  const validate = async (token: string) => (await get('/v1/oauth/validate', token)).status;

  /** The newest mail to `email` written since `since` (the embedded mailer writes .eml files). */
  const mailTo = async (email: string, since = 0) =>
    (await waitForMail(server.dataDir, email, { since })).text;
  const codeIn = (mail: string) => /reset code is (\d{8})/.exec(mail)![1]!;

  it('lists the apps a user approved and revokes one: its tokens fail validation, the other app keeps working', async () => {
    const dev = await createUser(server.url);
    const user = await createUser(server.url);
    const a = await createClient(server.url, dev, ['http://127.0.0.1:9/a'], { name: 'App A' });
    const b = await createClient(server.url, dev, ['http://127.0.0.1:9/b'], { name: 'App B' });
    const tokensA = (await (
      await exchange(server.url, a, (await authorizeWithBearer(server.url, user, a)).code)
    ).json()) as TokenResult;
    const tokensB = (await (
      await exchange(server.url, b, (await authorizeWithBearer(server.url, user, b)).code)
    ).json()) as TokenResult;
    const list = (await (await get('/v1/dev-user/consents', user.loginToken)).json()) as {
      consents: { client_id: string; name: string; since: string; scopes: string[] }[];
    };
    expect(list.consents.map((c) => [c.client_id, c.name])).toEqual([
      [a.clientId, 'App A'],
      [b.clientId, 'App B'],
    ]);
    expect(Date.parse(list.consents[0]!.since)).toBeLessThanOrEqual(Date.now());
    // Another user cannot see them.
    const dev2 = (await (await get('/v1/dev-user/consents', dev.loginToken)).json()) as {
      consents: unknown[];
    };
    expect(dev2.consents).toEqual([]);

    const res = await fetch(`${server.url}/v1/dev-user/consents/${a.clientId}`, {
      method: 'DELETE',
      headers: bearer(user.loginToken),
    });
    expect(res.status).toBe(200);
    expect(await validate(tokensA.access_token)).toBe(401);
    expect(await validate(tokensB.access_token)).toBe(200);
    const refresh = await post(`${server.url}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: tokensA.refresh_token,
      client_id: a.clientId,
      client_secret: a.clientSecret,
    });
    expect(refresh.status).toBe(400);
    const after = (await (await get('/v1/dev-user/consents', user.loginToken)).json()) as {
      consents: { client_id: string }[];
    };
    expect(after.consents.map((c) => c.client_id)).toEqual([b.clientId]);
    await expectError(
      await fetch(`${server.url}/v1/dev-user/consents/${a.clientId}`, {
        method: 'DELETE',
        headers: bearer(user.loginToken),
      }),
      404,
      'consent_not_found',
    );
  });

  it('resets a password with the mailed code: single use, old login JWTs and the old password stop working', async () => {
    const user = await createUser(server.url);
    const started = Date.now();
    expect(
      (await post(`${server.url}/v1/dev-user/password/reset-request`, { email: user.email })).status,
    ).toBe(200);
    const mail = await mailTo(user.email, started);
    const code = codeIn(mail);
    // The link carries its own unguessable token (decisions §8), not the code to type.
    expect(mail).toMatch(
      new RegExp(`/console#/reset/confirm\\?email=${encodeURIComponent(user.email)}&code=[A-Za-z0-9_-]{32}`),
    );
    await expectError(
      await post(`${server.url}/v1/dev-user/password/reset`, {
        email: user.email,
        code: '00000000',
        new_password: 'a perfectly strong passphrase 42',
      }),
      400,
      'invalid_reset_code',
    );
    const ok = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code,
      new_password: 'a brand new passphrase',
    });
    expect(ok.status).toBe(200);
    expect(await validate(user.loginToken)).toBe(401);
    await expectError(await get('/v1/dev-user/clients', user.loginToken), 401, 'invalid_token');
    await expectError(
      await post(`${server.url}/v1/dev-user/login_devuser`, { email: user.email, password: user.password }),
      401,
      'invalid_credentials',
    );
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: 'a brand new passphrase',
    });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    expect((await get('/v1/dev-user/clients', token)).status).toBe(200);
    // Single use: the same code again is refused and changes nothing.
    await expectError(
      await post(`${server.url}/v1/dev-user/password/reset`, {
        email: user.email,
        code,
        new_password: 'another passphrase',
      }),
      400,
      'invalid_reset_code',
    );
    expect((await get('/v1/dev-user/clients', token)).status).toBe(200);
  });

  it('does not tell whether an address has an account, and a code allows five guesses only', async () => {
    const unknown = await post(`${server.url}/v1/dev-user/password/reset-request`, {
      email: 'nobody-here@example.com',
    });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({ success: true });
    await expectError(
      await post(`${server.url}/v1/dev-user/password/reset`, {
        email: 'nobody-here@example.com',
        code: '12345678',
        new_password: 'whatever passphrase',
      }),
      400,
      'invalid_reset_code',
    );
    const user = await createUser(server.url);
    const started = Date.now();
    const known = await post(`${server.url}/v1/dev-user/password/reset-request`, { email: user.email });
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual({ success: true });
    const code = codeIn(await mailTo(user.email, started));
    const wrong = code === '99999999' ? '99999998' : '99999999';
    for (let i = 0; i < 5; i++) {
      await expectError(
        await post(`${server.url}/v1/dev-user/password/reset`, {
          email: user.email,
          code: wrong,
          new_password: 'new passphrase!',
        }),
        400,
        'invalid_reset_code',
      );
    }
    await expectError(
      await post(`${server.url}/v1/dev-user/password/reset`, {
        email: user.email,
        code,
        new_password: 'new passphrase!',
      }),
      429,
      'too_many_attempts',
    );
    expect(
      (await post(`${server.url}/v1/dev-user/login_devuser`, { email: user.email, password: user.password }))
        .status,
    ).toBe(200);
  });

  it('changes the password with the current one: every other login JWT of the user is void afterwards', async () => {
    const user = await createUser(server.url);
    const second = (await (
      await post(`${server.url}/v1/dev-user/login_devuser`, { email: user.email, password: user.password })
    ).json()) as { token: string };
    const change = (current: string, token = user.loginToken) =>
      post(
        `${server.url}/v1/dev-user/password`,
        { current_password: current, new_password: 'changed passphrase' },
        bearer(token),
      );
    await expectError(await change('wrong password'), 401, 'invalid_credentials');
    expect((await get('/v1/dev-user/clients', user.loginToken)).status).toBe(200);
    expect((await change(user.password)).status).toBe(200);
    // Decisions §8: the login JWT that changed the password stays signed in, every other one ends.
    expect((await get('/v1/dev-user/clients', user.loginToken)).status).toBe(200);
    expect((await get('/v1/dev-user/clients', second.token)).status).toBe(401);
    expect(
      (
        await post(`${server.url}/v1/dev-user/login_devuser`, {
          email: user.email,
          password: 'changed passphrase',
        })
      ).status,
    ).toBe(200);
  });

  it('shows a user without a wallet an empty overview', async () => {
    const user = await createUser(server.url);
    expect(await (await get('/v1/dev-user/wallet', user.loginToken)).json()).toEqual({
      success: true,
      address: null,
      native_balance: null,
      token_balance: null,
    });
    expect(await (await get('/v1/dev-user/slots', user.loginToken)).json()).toEqual({
      success: true,
      slots: [],
    });
    expect(await (await get('/v1/dev-user/operations', user.loginToken)).json()).toEqual({
      success: true,
      operations: [],
    });
    await expectError(await fetch(`${server.url}/v1/dev-user/wallet`), 401, 'missing_token');
  });
});
