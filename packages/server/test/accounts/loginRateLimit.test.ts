import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../../src/http/rateLimits.js';
import { RATE_LIMIT_DEFAULTS } from '../../src/rateLimitSettings.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LIMIT = 10;

describe('password sign-in is rate limited per address and e-mail', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The per-address limit across e-mails is tested below; here only the per-account bucket counts.
    server = await startTestServer({ env: { RATE_LIMITS: 'login_address=1000/1m' } });
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

describe('password sign-in is also limited per address across e-mails (each guess costs a scrypt)', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The production default (the test helper raises it for suites that sign many users in).
    const { max } = RATE_LIMIT_DEFAULTS.login_address;
    server = await startTestServer({ env: { RATE_LIMITS: `login_address=${max}/1m` } });
  });
  afterAll(() => server?.close());

  it('50 logins with 50 different e-mails from one address get 429 after the per-address limit', async () => {
    const perAddress = RATE_LIMIT_DEFAULTS.login_address.max;
    expect(perAddress).toBeLessThan(50);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${server.url}/v1/dev-user/login_devuser`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `spray-${i}-${Math.random().toString(36).slice(2)}@example.com`,
          password: 'x',
        }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(await res.json()).toMatchObject({ success: false, error: 'rate_limited' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(statuses.slice(0, perAddress).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(perAddress).every((s) => s === 429)).toBe(true);
  });
});

describe('TRUST_PROXY: a spoofed X-Forwarded-For from an untrusted peer is not believed', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  /** One sign-in as seen from `peer` (the TCP address), claiming `forwardedFor`. */
  const loginFrom = (server: TestServer, peer: string, forwardedFor: string, email: string) =>
    server.app.inject({
      method: 'POST',
      url: '/v1/dev-user/login_devuser',
      remoteAddress: peer,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      payload: { email, password: 'wrong password' },
    });

  it('TRUST_PROXY=true trusts only loopback and private proxies: a public peer cannot rotate its address', async () => {
    const server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    servers.push(server);
    const victim = `xff-${Math.random().toString(36).slice(2)}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      statuses.push((await loginFrom(server, '203.0.113.7', `198.51.100.${i + 1}`, victim)).statusCode);
    }
    expect(statuses.slice(0, LIMIT).every((s) => s === 401)).toBe(true);
    expect(statuses[LIMIT]).toBe(429);

    // Behind a private load balancer the forwarded address is the client's own bucket.
    const other = `lb-${Math.random().toString(36).slice(2)}@example.com`;
    for (let i = 0; i < LIMIT; i++) {
      expect((await loginFrom(server, '10.0.0.2', `198.51.100.${i + 1}`, other)).statusCode).toBe(401);
    }
  });

  it('a hop count believes exactly that many proxies, the rest of the header is the client’s claim', async () => {
    const server = await startTestServer({ env: { TRUST_PROXY: '1' } });
    servers.push(server);
    const victim = `hops-${Math.random().toString(36).slice(2)}@example.com`;
    const statuses: number[] = [];
    // The client prepends a different fake address each time; the proxy appends the real one.
    for (let i = 0; i <= LIMIT; i++) {
      statuses.push(
        (await loginFrom(server, '10.0.0.2', `198.51.100.${i + 1}, 203.0.113.9`, victim)).statusCode,
      );
    }
    expect(statuses[LIMIT]).toBe(429);
  });

  it('a CIDR list believes only the proxies it names', async () => {
    const server = await startTestServer({ env: { TRUST_PROXY: '10.0.0.0/24, fd00::/8' } });
    servers.push(server);
    const victim = `cidr-${Math.random().toString(36).slice(2)}@example.com`;
    for (let i = 0; i < LIMIT; i++) {
      expect((await loginFrom(server, '10.0.1.5', `198.51.100.${i + 1}`, victim)).statusCode).toBe(401);
    }
    expect((await loginFrom(server, '10.0.1.5', '198.51.100.99', victim)).statusCode).toBe(429);
    const viaProxy = `cidr-ok-${Math.random().toString(36).slice(2)}@example.com`;
    for (let i = 0; i <= LIMIT; i++) {
      expect((await loginFrom(server, '10.0.0.9', `198.51.100.${i + 1}`, viaProxy)).statusCode).toBe(401);
    }
  });
});
