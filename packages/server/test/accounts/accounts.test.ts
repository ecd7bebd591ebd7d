import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe.each([{ postgres: false }, { postgres: true }])(
  'sign-up and developer login (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    beforeAll(async () => {
      const { postgresAvailable } = await import('../helpers/environment.js');
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
    });
    afterAll(() => server?.close());

    it('registers, logs in and issues an ES256 JWT verifiable through the published JWKS', async (ctx) => {
      if (!server) return ctx.skip();
      const email = `Dev${Date.now()}@Example.com`;
      const reg = await post(`${server.url}/v1/dev-user/register`, {
        email,
        password: 'correct horse',
        nickname: 'Dev',
      });
      expect(reg.status).toBe(201);
      const { success, uuid } = (await reg.json()) as { success: boolean; uuid: string };
      expect(success).toBe(true);
      expect(uuid).toMatch(/^[1-9]\d*$/);
      expect(Number(uuid)).toBeLessThan(2 ** 53);

      const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
        email: email.toLowerCase(),
        password: 'correct horse',
      });
      expect(login.status).toBe(200);
      const body = (await login.json()) as { success: boolean; token: string; uuid: string };
      expect(body).toMatchObject({ success: true, uuid });

      const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
      const { payload, protectedHeader } = await jwtVerify(body.token, jwks, {
        issuer: server.config.publicUrl,
      });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload.sub).toBe(uuid);
      expect(payload.exp! - payload.iat!).toBe(3600);
    });

    it('refuses a taken e-mail with 409, a short password with 400, and a wrong password with 401', async (ctx) => {
      if (!server) return ctx.skip();
      const email = `taken${Date.now()}@example.com`;
      expect(
        (await post(`${server.url}/v1/dev-user/register`, { email, password: 'first sturdy passphrase' }))
          .status,
      ).toBe(201);
      const again = await post(`${server.url}/v1/dev-user/register`, {
        email: email.toUpperCase(),
        password: 'second sturdy passphrase',
      });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ success: false, error: 'email_taken' });
      const short = await post(`${server.url}/v1/dev-user/register`, {
        email: `x${email}`,
        password: 'short',
      });
      expect(short.status).toBe(400);
      expect(await short.json()).toMatchObject({ success: false, error: 'weak_password', field: 'password' });
      const wrong = await post(`${server.url}/v1/dev-user/login_devuser`, {
        email,
        password: 'second sturdy passphrase',
      });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ success: false, error: 'invalid_credentials' });
      const missing = await post(`${server.url}/v1/dev-user/login_devuser`, { email });
      expect(missing.status).toBe(400);
      expect(await missing.json()).toMatchObject({
        success: false,
        error: 'invalid_request',
        field: 'password',
      });
    });
  },
);
