import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, createClient, createUser, expectError, post, type TestUser } from './support.js';

describe.each([{ postgres: false }, { postgres: true }])(
  'apps (OAuth clients) (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let dev: TestUser;
    let otherDev: TestUser;

    beforeAll(async () => {
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
      dev = await createUser(server.url);
      otherDev = await createUser(server.url);
    });
    afterAll(() => server?.close());

    const list = async (user: TestUser) => {
      const res = await fetch(`${server.url}/v1/dev-user/clients`, { headers: bearer(user.loginToken) });
      expect(res.status).toBe(200);
      return {
        text: await res.clone().text(),
        body: (await res.json()) as { success: boolean; clients: Record<string, unknown>[] },
      };
    };

    it('registers an app, shows the secret once, stores only a keyed hash, and lists it to its owner only', async (ctx) => {
      if (!server) return ctx.skip();
      const app = await createClient(
        server.url,
        dev,
        ['https://game.example/cb', 'http://127.0.0.1:3000/cb/'],
        {
          name: 'Space Game',
          dapp: true,
        },
      );
      expect(app.clientId).toMatch(/^[0-9a-f]{32}$/);
      expect(app.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const { text, body } = await list(dev);
      expect(body.success).toBe(true);
      expect(body.clients).toEqual([
        {
          client_id: app.clientId,
          name: 'Space Game',
          redirect_uris: ['https://game.example/cb', 'http://127.0.0.1:3000/cb/'],
          dapp: true,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          post_logout_redirect_uris: [],
          require_mfa: false,
          // The developer's personal organization (docs/orgs.md).
          org_id: `org_u${dev.uuid}`,
        },
      ]);
      expect(text).not.toContain(app.clientSecret);
      expect(text).not.toContain('secret');
      expect((await list(otherDev)).body.clients).toEqual([]);

      const stored = await server.services.clients.findClient(app.clientId);
      expect(stored?.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored?.secretHash).not.toContain(app.clientSecret);
      expect(await server.services.clients.verifyClientSecret(app.clientId, app.clientSecret)).toBe(true);
      expect(await server.services.clients.verifyClientSecret(app.clientId, `${app.clientSecret}x`)).toBe(
        false,
      );
      expect(await server.services.clients.verifyClientSecret('unknown', app.clientSecret)).toBe(false);
      // One lookup for get_token's two checks: the client, and whether the secret is its own.
      const checked = await server.services.clients.checkClientSecret(app.clientId, app.clientSecret);
      expect(checked).toEqual({ client: stored, secretMatches: true });
      expect(await server.services.clients.checkClientSecret(app.clientId, 'wrong')).toEqual({
        client: stored,
        secretMatches: false,
      });
      expect(await server.services.clients.checkClientSecret('unknown', app.clientSecret)).toEqual({
        client: undefined,
        secretMatches: false,
      });
      expect(server.services.clients.isRegisteredRedirect(stored!, 'http://127.0.0.1:3000/cb/')).toBe(true);
      expect(server.services.clients.isRegisteredRedirect(stored!, 'http://127.0.0.1:3000/cb')).toBe(false);
    });

    it('requires the developer login JWT', async (ctx) => {
      if (!server) return ctx.skip();
      const body = { name: 'x', redirect_uris: ['https://a.example/cb'] };
      await expectError(await post(`${server.url}/v1/dev-user/clients`, body), 401, 'missing_token');
      await expectError(
        await post(`${server.url}/v1/dev-user/clients`, body, bearer('x.y.z')),
        401,
        'invalid_token',
      );
      await expectError(await fetch(`${server.url}/v1/dev-user/clients`), 401, 'missing_token');
    });

    it('refuses bad registrations with 400 naming the field, and creates nothing', async (ctx) => {
      if (!server) return ctx.skip();
      const before = (await list(otherDev)).body.clients.length;
      const cases: [unknown, string, string][] = [
        [{ redirect_uris: ['https://a.example/cb'] }, 'invalid_request', 'name'],
        [{ name: 'x', redirect_uris: [] }, 'invalid_request', 'redirect_uris'],
        [{ name: 'x', redirect_uris: 'https://a.example/cb' }, 'invalid_request', 'redirect_uris'],
        [
          { name: 'x', redirect_uris: ['https://a.example/cb#frag'] },
          'invalid_redirect_uri',
          'redirect_uris',
        ],
        [{ name: 'x', redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri', 'redirect_uris'],
        [{ name: 'x', redirect_uris: ['/relative'] }, 'invalid_redirect_uri', 'redirect_uris'],
        [
          { name: 'x', redirect_uris: ['https://user:pw@a.example/cb'] },
          'invalid_redirect_uri',
          'redirect_uris',
        ],
        [{ name: '   ', redirect_uris: ['https://a.example/cb'] }, 'invalid_request', 'name'],
        [{ name: 'x', redirect_uris: ['https://a.example/cb'], dapp: 'yes' }, 'invalid_request', 'dapp'],
      ];
      for (const [body, error, field] of cases) {
        const res = await post(`${server.url}/v1/dev-user/clients`, body, bearer(otherDev.loginToken));
        expect((await expectError(res, 400, error)).field).toBe(field);
      }
      expect((await list(otherDev)).body.clients.length).toBe(before);
    });
  },
);
