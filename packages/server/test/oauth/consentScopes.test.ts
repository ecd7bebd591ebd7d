import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { boundLoginToken, createOidcClient, type OidcTestClient } from '../oidc/support.js';
import { PageBrowser } from './pageBrowser.js';
import { authorizeUrl, bearer, createUser, exchange, type TestUser } from './support.js';

/**
 * Consent records its scopes (decisions §8, issue 24's second finding): an app approved for plain
 * OAuth cannot then get the user's name, e-mail or wallet with `prompt=none` — the consent page
 * comes back for the new scopes, and silently the answer is `consent_required`. Over real HTTP,
 * the page driven with its own cookies and CSRF tokens.
 */
describe.each([{ postgres: false }, { postgres: true }])(
  'consent and scopes (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let owner: TestUser;
    const redirectUri = 'http://127.0.0.1:9/callback';

    beforeAll(async () => {
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
      owner = await createUser(server.url);
    });
    afterAll(() => server?.close());

    const live = (ctx: { skip: () => void }) => {
      if (!server) ctx.skip();
    };

    const url = (app: OidcTestClient, extra: Record<string, string> = {}) =>
      authorizeUrl(server.url, {
        client_id: app.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        state: 'st',
        ...extra,
      });

    /** A fresh user approving a fresh app for plain OAuth on the page; their browser stays signed in. */
    async function approvedForPlainOAuth() {
      const user = await createUser(server.url);
      const app = await createOidcClient(server.url, owner, [redirectUri], { name: 'Scoped app' });
      const browser = new PageBrowser(server.url);
      const consent = await browser.signIn(url(app), user);
      expect(consent.status).toBe(200);
      const approved = await browser.allow(await consent.text());
      expect(approved.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      return { user, app, browser };
    }

    it('prompt=none asking for scopes beyond the approval: consent_required and no code', async (ctx) => {
      live(ctx);
      const { app, browser } = await approvedForPlainOAuth();
      // What was approved still goes through silently: plain OAuth, and `openid` alone (only the sub).
      for (const extra of [{ prompt: 'none' }, { prompt: 'none', scope: 'openid' }] as Record<
        string,
        string
      >[]) {
        const res = await browser.get(url(app, extra));
        expect(res.status).toBe(302);
        expect(new URL(res.headers.get('location')!).searchParams.has('code')).toBe(true);
      }
      const res = await browser.get(url(app, { prompt: 'none', scope: 'openid email profile wallet' }));
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('consent_required');
      expect(location.searchParams.get('state')).toBe('st');
      expect(location.searchParams.has('code')).toBe(false);
    });

    it('shows the consent page again for new scopes, naming them; once allowed, prompt=none works and userinfo has them', async (ctx) => {
      live(ctx);
      const { user, app, browser } = await approvedForPlainOAuth();
      const again = await browser.get(url(app, { scope: 'openid email profile' }));
      expect(again.status).toBe(200);
      const html = await again.text();
      expect(html).toContain('Allow');
      expect(html.replace(/\s+/g, ' ')).toContain('your e-mail address, your name');
      const approved = await browser.allow(html);
      const code = approved.searchParams.get('code')!;
      const tokens = (await (await exchange(server.url, app, code)).json()) as { access_token: string };
      const info = await fetch(`${server.url}/oauth/userinfo`, { headers: bearer(tokens.access_token) });
      expect(await info.json()).toMatchObject({ sub: user.uuid, email: user.email, name: user.nickname });

      // Approvals add up: the new scopes, and the earlier plain approval, both silent now; wallet is not.
      for (const scope of ['openid email', 'openid profile email']) {
        const res = await browser.get(url(app, { prompt: 'none', scope }));
        expect(new URL(res.headers.get('location')!).searchParams.has('code')).toBe(true);
      }
      const wallet = await browser.get(url(app, { prompt: 'none', scope: 'openid wallet' }));
      expect(new URL(wallet.headers.get('location')!).searchParams.get('error')).toBe('consent_required');
      const stored = await server.services.browserSessions.hasConsent(
        Number(user.uuid),
        app.clientId,
        'openid email profile',
      );
      expect(stored).toBe(true);
    });

    it('a consent row from before scopes were recorded covers plain OAuth and openid, nothing that releases a claim', async (ctx) => {
      live(ctx);
      const user = await createUser(server.url);
      const app = await createOidcClient(server.url, owner, [redirectUri]);
      // As migration 0130 leaves an old row: no scope column written, so its default ''.
      await server.services.database.db
        .insertInto('oauth_consents')
        .values({
          user_uuid: Number(user.uuid),
          client_id: app.clientId,
          granted_at: Date.now() - 86_400_000,
        })
        .execute();
      const sessions = server.services.browserSessions;
      expect(await sessions.hasConsent(Number(user.uuid), app.clientId)).toBe(true);
      expect(await sessions.hasConsent(Number(user.uuid), app.clientId, 'openid offline_access')).toBe(true);
      for (const scope of ['openid email', 'openid profile', 'openid wallet']) {
        expect(await sessions.hasConsent(Number(user.uuid), app.clientId, scope)).toBe(false);
      }
    });

    it('an unbound bearer JWT gets an OpenID code only within the consent on record; a bound one always', async (ctx) => {
      live(ctx);
      const { user, app } = await approvedForPlainOAuth();
      const authorize = (token: string, scope: string) =>
        fetch(url(app, { scope }), { headers: bearer(token), redirect: 'manual' }).then((res) => {
          expect(res.status).toBe(302);
          return new URL(res.headers.get('location')!).searchParams;
        });
      expect((await authorize(user.loginToken, 'openid')).has('code')).toBe(true);
      const beyond = await authorize(user.loginToken, 'openid email');
      expect(beyond.get('error')).toBe('consent_required');
      expect(beyond.has('code')).toBe(false);
      const bound = await boundLoginToken(server.url, user, app.clientId);
      expect((await authorize(bound, 'openid email')).has('code')).toBe(true);
    });
  },
);
