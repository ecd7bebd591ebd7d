import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createUser, type TestUser } from '../helpers/http.js';
import { redisAvailable, TEST_REDIS_URL } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stepNow, totpCode, totpSecretOf, wrongCode } from '../helpers/totp.js';

const CONSOLE = { clientId: 'dauth:console' };

/**
 * Wrong second-step codes are counted per account across every mfa_token and address (issue 37,
 * `login_mfa_account`, docs/mfa.md): with the password, an attacker could otherwise sign in again and
 * again for 5 more codes each, from as many addresses as it has.
 */
for (const store of ['memory', 'redis'] as const) {
  describe(`wrong second-step codes per account (${store} rate-limit store)`, () => {
    let server: TestServer;

    beforeAll(async () => {
      if (store === 'redis' && !redisAvailable) return;
      server = await startTestServer({
        env: { TRUST_PROXY: 'true', ...(store === 'redis' ? { REDIS_URL: TEST_REDIS_URL } : {}) },
      });
    });
    afterAll(() => server?.close());

    async function send(path: string, body: unknown, from: string, token?: string) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': from,
          ...(token ? bearer(token) : {}),
        },
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        headers: res.headers,
        body: (await res.json()) as Record<string, unknown>,
      };
    }

    async function enrolled(): Promise<{ user: TestUser; secret: Buffer; step: number }> {
      const user = await createUser(server.url, undefined, CONSOLE);
      const started = await send('/v1/dev-user/mfa/totp', {}, '198.51.100.1', user.loginToken);
      expect(started.status).toBe(201);
      const secret = totpSecretOf(started.body.otpauth_uri as string);
      const step = stepNow();
      const confirmed = await send(
        '/v1/dev-user/mfa/totp/confirm',
        { code: totpCode(secret, step) },
        '198.51.100.1',
        user.loginToken,
      );
      expect(confirmed.status).toBe(200);
      return { user, secret, step };
    }

    const mfaToken = async (user: TestUser, from: string) => {
      const first = await send(
        '/v1/dev-user/login_devuser',
        { email: user.email, password: user.password },
        from,
      );
      expect(first.body.mfa_required).toBe(true);
      return first.body.mfa_token as string;
    };

    it('10 wrong codes over 3 mfa_tokens from 3 addresses: the 11th is refused (429) even with the right code', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, secret, step } = await enrolled();
      const addresses = ['203.0.113.10', '203.0.113.20', '2001:db8:7::1'];
      const tokens = await Promise.all(addresses.map((a) => mfaToken(user, a)));
      // 4 + 4 + 2 wrong codes: no token reaches its own 5.
      const plan = [4, 4, 2];
      for (const [i, count] of plan.entries()) {
        for (let n = 0; n < count; n++) {
          const wrong = await send(
            '/v1/dev-user/login/mfa',
            { mfa_token: tokens[i], code: wrongCode(secret) },
            addresses[i]!,
          );
          expect(wrong).toMatchObject({ status: 401, body: { success: false, error: 'invalid_mfa_code' } });
        }
      }
      const right = totpCode(secret, Math.max(step + 1, stepNow()));
      const refused = await send(
        '/v1/dev-user/login/mfa',
        { mfa_token: tokens[2], code: right },
        addresses[2]!,
      );
      expect(refused).toMatchObject({ status: 429, body: { success: false, error: 'rate_limited' } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body.token).toBeUndefined();
      // A new mfa_token from yet another address is refused too.
      const fresh = await mfaToken(user, '192.0.2.77');
      expect(
        (await send('/v1/dev-user/login/mfa', { mfa_token: fresh, code: right }, '192.0.2.77')).status,
      ).toBe(429);

      // Another account is not affected.
      const other = await enrolled();
      const otherToken = await mfaToken(other.user, addresses[0]!);
      const ok = await send(
        '/v1/dev-user/login/mfa',
        { mfa_token: otherToken, code: totpCode(other.secret, Math.max(other.step + 1, stepNow())) },
        addresses[0]!,
      );
      expect(ok.status).toBe(200);
    });
  });
}
