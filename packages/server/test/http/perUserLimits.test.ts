import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createUser, post } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Per-user and per-session limits count after the route's token check: every player behind one address
 * (a game backend, a NAT) has an allowance of their own, and one user's allowance holds from any address.
 * They were counted in `onRequest`, before any token was read, so they were per address.
 */
describe('per-user route limits are per user, not per address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { RATE_LIMITS: 'login_address=1000/1m,passkey_register=2/1m', TRUST_PROXY: 'true' },
    });
  });
  afterAll(() => server?.close());

  const options = (token: string, address: string) =>
    post(
      `${server.url}/v1/dev-user/passkeys/registration-options`,
      {},
      {
        ...bearer(token),
        'x-forwarded-for': address,
      },
    );

  it("two users behind one address each get their own allowance; one user's holds from any address", async () => {
    const first = await createUser(server.url, undefined, { clientId: 'dauth:console' });
    const second = await createUser(server.url, undefined, { clientId: 'dauth:console' });
    const shared = '198.51.100.7';
    expect((await options(first.loginToken, shared)).status).toBe(200);
    expect((await options(first.loginToken, shared)).status).toBe(200);
    const spent = await options(first.loginToken, shared);
    expect(spent.status).toBe(429);
    expect(await spent.json()).toMatchObject({ success: false, error: 'rate_limited' });
    // Another address does not reset the first user's allowance.
    expect((await options(first.loginToken, '203.0.113.9')).status).toBe(429);
    // The second user, behind the same address, still has theirs.
    expect((await options(second.loginToken, shared)).status).toBe(200);
  });
});
