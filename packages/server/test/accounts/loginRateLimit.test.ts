import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../../src/http/rateLimits.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LIMIT = 10;

describe('password sign-in is rate limited per address and e-mail', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const apiLogin = (email: string) =>
    fetch(`${server.url}/v1/dev-user/login_devuser`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'wrong password' }),
    });

  const pageLogin = (email: string) =>
    fetch(`${server.url}/oauth/authorize/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: 'any-client',
        redirect_uri: 'http://127.0.0.1:1/cb',
        response_type: 'code',
        csrf_token: 'not-a-real-token',
        email,
        password: 'wrong password',
      }).toString(),
      redirect: 'manual',
    });

  it.each([
    ['the developer login API', apiLogin],
    ['the login page', pageLogin],
  ])(
    '%s answers 429 rate_limited after 10 guesses for one e-mail, and not for another',
    async (_name, login) => {
      const victim = `victim-${Math.random().toString(36).slice(2)}@example.com`;
      for (let i = 0; i < LIMIT; i++) expect((await login(victim)).status).not.toBe(429);
      const blocked = await login(victim);
      expect(blocked.status).toBe(429);
      expect(await blocked.json()).toMatchObject({ success: false, error: 'rate_limited' });
      // Another account from the same address is counted separately.
      expect((await login(`other-${Math.random().toString(36).slice(2)}@example.com`)).status).not.toBe(429);
    },
  );

  it('counts guesses on both routes in one bucket: 10 on the API leave none for the page', async () => {
    expect(LOGIN_ATTEMPTS_PER_MINUTE).toBe(LIMIT);
    const victim = `shared-${Math.random().toString(36).slice(2)}@example.com`;
    for (let i = 0; i < LIMIT / 2; i++) {
      expect((await apiLogin(victim)).status).toBe(401);
      expect((await pageLogin(victim)).status).not.toBe(429);
    }
    for (const login of [pageLogin, apiLogin]) {
      const blocked = await login(victim);
      expect(blocked.status).toBe(429);
      expect(await blocked.json()).toMatchObject({ success: false, error: 'rate_limited' });
    }
  });
});
