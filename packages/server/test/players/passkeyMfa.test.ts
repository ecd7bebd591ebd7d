import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { newClient, newUser, post, type User } from '../content/contentSupport.js';
import { stepNow, totpCode, totpSecretOf } from '../helpers/totp.js';
import { type CreationOptions, SoftAuthenticator } from './softAuthenticator.js';

/** The console's first-party binding: only its fresh login JWTs change an account's ways in (decisions §9). */
const CONSOLE = { clientId: 'dauth:console' };

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

/**
 * A passkey is two factors only when the authenticator verified the user (issue 37): an assertion without
 * UV (a PIN-less security key) of an account with TOTP takes the second step, as a password does.
 */
for (const database of ['sqlite', 'postgres'] as const) {
  describe(`passkey sign-in of an account with TOTP (${database})`, () => {
    let server: TestServer;

    beforeAll(async () => {
      if (database === 'postgres') {
        const { postgresAvailable } = await import('../helpers/environment.js');
        if (!postgresAvailable) return;
      }
      server = await startTestServer({ postgres: database === 'postgres' });
    });
    afterAll(() => server?.close());

    /** An account with a passkey and a confirmed TOTP; the step its confirmation used. */
    async function enrolled(): Promise<{
      user: User;
      authenticator: SoftAuthenticator;
      secret: Buffer;
      step: number;
    }> {
      const user = await newUser(server, 'pkmfa', CONSOLE);
      const authenticator = new SoftAuthenticator(new URL(server.url).hostname, new URL(server.url).origin);
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        user.token,
      );
      expect(
        (await post(server, '/v1/dev-user/passkeys', authenticator.register(options.body), user.token))
          .status,
      ).toBe(201);
      const started = await post<{ otpauth_uri: string }>(server, '/v1/dev-user/mfa/totp', {}, user.token);
      expect(started.status).toBe(201);
      const secret = totpSecretOf(started.body.otpauth_uri);
      const step = stepNow();
      const confirmed = await post(
        server,
        '/v1/dev-user/mfa/totp/confirm',
        { code: totpCode(secret, step) },
        user.token,
      );
      expect(confirmed.status).toBe(200);
      return { user, authenticator, secret, step };
    }

    const challenge = async () =>
      (await post<{ challenge: string }>(server, '/v1/dev-user/passkeys/authentication-options', {})).body
        .challenge;

    it('without user verification: mfa_required and no token; the code then gives hwk user otp mfa', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, authenticator, secret, step } = await enrolled();
      const first = await post(server, '/v1/dev-user/passkeys/login', {
        ...authenticator.assert(await challenge(), { userVerified: false }),
        client_id: CONSOLE.clientId,
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        success: true,
        mfa_required: true,
        mfa_token: expect.any(String),
        methods: ['totp', 'recovery_code'],
        expires_in: 300,
      });
      expect(first.body.token).toBeUndefined();
      const done = await post<{ token: string; uuid: string }>(server, '/v1/dev-user/login/mfa', {
        mfa_token: first.body.mfa_token,
        code: totpCode(secret, step + 1),
      });
      expect(done.status).toBe(200);
      expect(done.body.uuid).toBe(String(user.uuid));
      const claims = claimsOf(done.body.token);
      expect(claims.amr).toEqual(['hwk', 'user', 'otp', 'mfa']);
      expect(claims.azp).toBe(CONSOLE.clientId);
    });

    it('with user verification: a token at once, mfa in its amr', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, authenticator } = await enrolled();
      const res = await post<{ token: string; uuid: string }>(
        server,
        '/v1/dev-user/passkeys/login',
        authenticator.assert(await challenge()),
      );
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['success', 'token', 'uuid']);
      expect(res.body.uuid).toBe(String(user.uuid));
      expect(claimsOf(res.body.token).amr).toEqual(['hwk', 'user', 'mfa']);
    });

    it('without user verification and without TOTP: a token at once, one factor', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await newUser(server, 'pkone', CONSOLE);
      const authenticator = new SoftAuthenticator(new URL(server.url).hostname, new URL(server.url).origin);
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        user.token,
      );
      await post(server, '/v1/dev-user/passkeys', authenticator.register(options.body), user.token);
      const res = await post<{ token: string }>(
        server,
        '/v1/dev-user/passkeys/login',
        authenticator.assert(await challenge(), { userVerified: false }),
      );
      expect(res.status).toBe(200);
      expect(claimsOf(res.body.token).amr).toEqual(['hwk', 'user']);
    });

    it('the login page: a passkey without user verification shows the code form, with no session yet', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, authenticator } = await enrolled();
      const clientId = await newClient(server, user);
      const redirectUri = 'https://game.example/cb'; // newClient's
      const fields = { client_id: clientId, redirect_uri: redirectUri, response_type: 'code' };
      const shown = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(fields).toString()}`);
      expect(shown.status).toBe(200);
      const cookie = shown.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(await shown.text())![1]!;
      const credential = JSON.stringify(authenticator.assert(await challenge(), { userVerified: false }));
      const res = await fetch(`${server.url}/oauth/authorize/passkey`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ ...fields, csrf_token: csrf, credential }).toString(),
        redirect: 'manual',
      });
      const page = await res.text();
      expect(res.status).toBe(200);
      expect(page).toContain('Enter your code');
      const setCookies = res.headers.getSetCookie().join('\n');
      expect(setCookies).toContain('dauth_mfa=');
      expect(setCookies).not.toContain('dauth_session=');
    });
  });
}
