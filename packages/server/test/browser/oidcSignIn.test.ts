import * as client from 'openid-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { type CallbackServer, createUser, startCallbackServer, type TestUser } from '../oauth/support.js';
import { createOidcClient, discover, type OidcTestClient, startAuthorization } from '../oidc/support.js';

/**
 * "Sign in with dauth" in a real Chromium: an app built on openid-client sends the browser to the
 * login page, the user signs in and approves, and the app validates the ID token and reads the
 * user's claims. Then silent authentication, forced re-authentication and RP-initiated logout.
 */
describe.skipIf(!chromiumAvailable)('OpenID Connect sign-in in a real Chromium', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let user: TestUser;
  let app: OidcTestClient;
  let config: client.Configuration;
  let context: BrowserContext;
  let browser: TestBrowser;

  beforeAll(async () => {
    server = await startTestServer();
    callback = await startCallbackServer();
    user = await createUser(server.url);
    app = await createOidcClient(server.url, user, [callback.url()], {
      name: 'Space Game',
      postLogoutRedirectUris: [callback.url('/logged-out')],
    });
    config = await discover(server.url, app);
    browser = await launchTestBrowser();
    context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await server?.close();
  });
  beforeEach(async () => {
    await context.clearCookies();
    callback.requests.length = 0;
  });

  async function signIn(page: Page) {
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/oauth/authorize/login`),
      page.click('#sign-in'),
    ]);
    await page.waitForLoadState('load');
  }

  /** The URL the browser landed on at the app (the last request the callback server saw). */
  const landed = () => callback.requests.at(-1)!.url;
  const hasSession = async () =>
    (await context.cookies(`${server.url}/oauth/authorize`)).some((c) => c.name === 'dauth_session');

  it('signs a user in through the login page; the app gets validated claims; prompt, max_age and logout work', async () => {
    const page = await context.newPage();
    const first = await startAuthorization(config, callback.url(), { scope: 'openid profile email' });
    const signedInAt = Math.floor(Date.now() / 1000);
    await page.goto(first.url.href);
    expect(await page.textContent('h1')).toContain('Sign in to dauth');
    await signIn(page);
    expect(await page.textContent('h1')).toContain('Space Game');
    // The consent page says what the scope shares.
    expect((await page.textContent('main'))!.replace(/\s+/g, ' ')).toContain(
      'your user id, your e-mail address, your name, and tokens',
    );
    await Promise.all([page.waitForURL(`${callback.url()}?**`), page.click('#allow')]);

    const tokens = await client.authorizationCodeGrant(config, landed(), {
      pkceCodeVerifier: first.verifier,
      expectedNonce: first.nonce,
      expectedState: first.state,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      sub: user.uuid,
      aud: app.clientId,
      email: user.email,
      name: user.nickname,
    });
    expect(claims.auth_time).toBeGreaterThanOrEqual(signedInAt - 1);
    expect(claims.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(await client.fetchUserInfo(config, tokens.access_token, user.uuid)).toMatchObject({
      sub: user.uuid,
      email: user.email,
    });

    // Silent authentication: session and consent exist, so prompt=none returns a code at once.
    const silent = await startAuthorization(config, callback.url(), { prompt: 'none' });
    await page.goto(silent.url.href);
    expect(landed().searchParams.has('code')).toBe(true);
    const silentTokens = await client.authorizationCodeGrant(config, landed(), {
      pkceCodeVerifier: silent.verifier,
      expectedNonce: silent.nonce,
      expectedState: silent.state,
    });
    expect(silentTokens.claims()!.auth_time).toBe(claims.auth_time);

    // prompt=login: the sign-in form again despite the session; afterwards straight back to the app
    // (the app is approved), with a newer auth_time. max_age=0 asks the same way.
    let latestAuthTime = claims.auth_time!;
    for (const extra of [{ prompt: 'login' }, { max_age: '0' }] as Record<string, string>[]) {
      // auth_time has a resolution of seconds: let the last sign-in be a second old.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const again = await startAuthorization(config, callback.url(), extra);
      await page.goto(again.url.href);
      expect(await page.textContent('h1')).toContain('Sign in to dauth');
      await Promise.all([page.waitForURL(`${callback.url()}?**`), signIn(page)]);
      const fresh = await client.authorizationCodeGrant(config, landed(), {
        pkceCodeVerifier: again.verifier,
        expectedNonce: again.nonce,
        expectedState: again.state,
        ...(extra.max_age ? { maxAge: 0 } : {}),
      });
      expect(fresh.claims()!.auth_time).toBeGreaterThan(latestAuthTime);
      latestAuthTime = fresh.claims()!.auth_time!;
    }

    // RP-initiated logout with the library's end-session URL: back at the registered URI with state,
    // the browser session gone, and prompt=none now reports login_required.
    const endUrl = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: callback.url('/logged-out'),
      state: 'bye',
    });
    expect(await hasSession()).toBe(true);
    await page.goto(endUrl.href);
    expect(page.url()).toBe(`${callback.url('/logged-out')}?state=bye`);
    expect(await hasSession()).toBe(false);
    expect((await server.services.loginStatus.getStatus(user.uuid, app.clientId)).status).toBe('logged_out');
    const after = await startAuthorization(config, callback.url(), { prompt: 'none' });
    await page.goto(after.url.href);
    expect(landed().searchParams.get('error')).toBe('login_required');
    await page.close();
  });

  it('signing in again for an approved app lands on the app (form-action allows the redirect chain)', async () => {
    // The first test approved the app; this browser has no session any more.
    const page = await context.newPage();
    const start = await startAuthorization(config, callback.url());
    await page.goto(start.url.href);
    expect(await page.textContent('h1')).toContain('Sign in to dauth');
    await Promise.all([page.waitForURL(`${callback.url()}?**`), signIn(page)]);
    expect(landed().searchParams.get('state')).toBe(start.state);
    await page.close();
  });

  it('prompt=none without a session returns login_required to the app, which the library reports', async () => {
    const page = await context.newPage();
    const start = await startAuthorization(config, callback.url(), { prompt: 'none' });
    await page.goto(start.url.href);
    expect(page.url().startsWith(`${callback.url()}?`)).toBe(true);
    expect(landed().searchParams.get('state')).toBe(start.state);
    const err = (await client
      .authorizationCodeGrant(config, landed(), {
        pkceCodeVerifier: start.verifier,
        expectedNonce: start.nonce,
        expectedState: start.state,
      })
      .catch((e: unknown) => e)) as { error?: string };
    expect(err).toBeInstanceOf(client.AuthorizationResponseError);
    expect(err.error).toBe('login_required');
    // Nothing was shown and nothing was set.
    expect(await hasSession()).toBe(false);
    await page.close();
  });

  it('asks before a logout without id_token_hint, then signs out on confirmation', async () => {
    const page = await context.newPage();
    const start = await startAuthorization(config, callback.url());
    await page.goto(start.url.href);
    await signIn(page);
    expect(await hasSession()).toBe(true);
    await page.goto(
      `${server.url}/oauth/end_session?client_id=${app.clientId}&post_logout_redirect_uri=${encodeURIComponent(callback.url('/logged-out'))}&state=s2`,
    );
    expect(await page.textContent('h1')).toContain('Sign out of dauth?');
    expect(await hasSession()).toBe(true);
    await Promise.all([page.waitForURL(`${callback.url('/logged-out')}?**`), page.click('#sign-out')]);
    expect(page.url()).toBe(`${callback.url('/logged-out')}?state=s2`);
    expect(await hasSession()).toBe(false);
    await page.close();
  });
});
