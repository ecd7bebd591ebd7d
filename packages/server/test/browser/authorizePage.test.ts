import * as oauth from 'oauth4webapi';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeUrl,
  type CallbackServer,
  createClient,
  createUser,
  exchange,
  startCallbackServer,
  type TestClient,
  type TestUser,
  type TokenResult,
} from '../oauth/support.js';

const APP_NAME = 'Space <Game> & "Co"';

describe.skipIf(!chromiumAvailable)('login-and-consent page in a real Chromium', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let user: TestUser;
  let client: TestClient;
  let context: BrowserContext;
  let browser: TestBrowser;

  beforeAll(async () => {
    server = await startTestServer();
    callback = await startCallbackServer();
    user = await createUser(server.url);
    client = await createClient(server.url, user, [callback.url()], { name: APP_NAME });
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

  const url = (extra: Record<string, string | undefined> = {}) =>
    authorizeUrl(server.url, {
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      ...extra,
    });

  async function signIn(page: Page, password = user.password) {
    await page.fill('#email', user.email);
    await page.fill('#password', password);
    await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/oauth/authorize/login`),
      page.click('#sign-in'),
    ]);
    await page.waitForLoadState('load');
  }

  it('signs in, asks consent and lands on the callback with code and state, which exchange once', async () => {
    const page = await context.newPage();
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const response = await page.goto(
      url({
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }),
    );
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['content-security-policy']).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(headers['cache-control']).toBe('no-store');
    // The app name is shown as text, never as markup.
    expect(await page.textContent('.app')).toBe(APP_NAME);
    expect(await response!.text()).toContain('Space &lt;Game&gt; &amp; &quot;Co&quot;');

    await signIn(page);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    expect(await page.textContent('h1')).toContain(APP_NAME);
    const session = (await context.cookies(`${server.url}/oauth/authorize`)).find(
      (c) => c.name === 'dauth_session',
    );
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/oauth' });

    await Promise.all([page.waitForURL(`${callback.url()}?**`), page.click('#allow')]);
    expect(callback.requests).toHaveLength(1);
    const landed = callback.requests[0]!.url;
    expect(landed.searchParams.get('state')).toBe(state);
    const code = landed.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const tokens = await exchange(server.url, client, code, { code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as TokenResult).user_id).toBe(user.uuid);
    expect((await exchange(server.url, client, code, { code_verifier: verifier })).status).toBe(400);

    // Same browser, app approved: the next authorize redirects at once, no page shown.
    callback.requests.length = 0;
    const again = await page.goto(url({ state: 'second' }));
    expect(again?.url()).toMatch(new RegExp(`^${callback.url()}\\?code=`));
    expect(callback.requests[0]!.url.searchParams.get('state')).toBe('second');
    await page.close();
  });

  it('shows an error for a wrong password, sets no session, and grants nothing', async () => {
    const page = await context.newPage();
    await page.goto(url({ state: 's' }));
    await signIn(page, 'wrong password!');
    expect(await page.textContent('[role=alert]')).toContain('E-mail or password is wrong');
    expect(await page.inputValue('#email')).toBe(user.email);
    expect(
      (await context.cookies(`${server.url}/oauth/authorize`)).some((c) => c.name === 'dauth_session'),
    ).toBe(false);
    expect(callback.requests).toHaveLength(0);
    await page.close();
  });

  it('sends access_denied with the state when the user denies', async () => {
    const other = await createClient(server.url, user, [callback.url()], { name: 'Other app' });
    const page = await context.newPage();
    await page.goto(
      authorizeUrl(server.url, {
        client_id: other.clientId,
        redirect_uri: other.redirectUri,
        response_type: 'code',
        state: 'deny-me',
      }),
    );
    await signIn(page);
    await Promise.all([page.waitForURL(`${callback.url()}?**`), page.click('#deny')]);
    const landed = callback.requests[0]!.url;
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('state')).toBe('deny-me');
    expect(landed.searchParams.get('code')).toBeNull();
    await page.close();
  });

  it('shows whose account it is and signs out on request: the old session cookie no longer works', async () => {
    const other = await createClient(server.url, user, [callback.url()], { name: 'Sign-out app' });
    const page = await context.newPage();
    const authorize = authorizeUrl(server.url, {
      client_id: other.clientId,
      redirect_uri: other.redirectUri,
      response_type: 'code',
      state: 'sign-out',
    });
    await page.goto(authorize);
    await signIn(page);
    expect(await page.textContent('.email')).toBe(user.email);
    const sessionCookie = (await context.cookies(`${server.url}/oauth/authorize`)).find(
      (c) => c.name === 'dauth_session',
    )!;
    expect(sessionCookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // A sign-out posted without the page's CSRF token is refused and ends nothing.
    const forged = await fetch(`${server.url}/oauth/authorize/logout`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `dauth_session=${sessionCookie.value}`,
      },
      body: new URLSearchParams({
        client_id: other.clientId,
        redirect_uri: other.redirectUri,
        response_type: 'code',
      }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    await page.reload();
    expect(await page.textContent('.email')).toBe(user.email);

    await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/oauth/authorize/logout`),
      page.click('#sign-out'),
    ]);
    await page.waitForLoadState('load');
    // Back on the sign-in form of the same request; the browser holds no session any more.
    expect(await page.textContent('h1')).toBe('Sign in to dauth');
    expect(new URL(page.url()).searchParams.get('state')).toBe('sign-out');
    expect(
      (await context.cookies(`${server.url}/oauth/authorize`)).some((c) => c.name === 'dauth_session'),
    ).toBe(false);
    // The session is gone on the server too: the old cookie value gets the sign-in form, not consent.
    const replayed = await fetch(authorize, {
      headers: { cookie: `dauth_session=${sessionCookie.value}` },
      redirect: 'manual',
    });
    expect(replayed.status).toBe(200);
    expect(await replayed.text()).toContain('id="sign-in"');
    expect(callback.requests).toHaveLength(0);
    await page.close();
  });

  it('refuses a consent forged by another site (CSRF) and grants nothing', async () => {
    const target = await createClient(server.url, user, [callback.url()], { name: 'Not yet approved' });
    const page = await context.newPage();
    await page.goto(
      authorizeUrl(server.url, {
        client_id: target.clientId,
        redirect_uri: target.redirectUri,
        response_type: 'code',
      }),
    );
    await signIn(page); // the victim has a live session and sits on the consent page
    await page.waitForSelector('#allow');
    const fields = { client_id: target.clientId, redirect_uri: target.redirectUri, response_type: 'code' };
    callback.pages.set(
      '/attack',
      `<!doctype html><form id="f" method="post" action="${server.url}/oauth/authorize/consent">${Object.entries(
        fields,
      )
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
        .join(
          '',
        )}<input type="hidden" name="decision" value="allow"><input type="hidden" name="csrf_token" value="guess"></form>
       <script>document.getElementById('f').submit()</script>`,
    );
    const attacker = await context.newPage();
    const [response] = await Promise.all([
      attacker.waitForResponse(`${server.url}/oauth/authorize/consent`),
      attacker.goto(`${callback.origin}/attack`),
    ]);
    expect(response.status()).toBe(403);
    // A browser's form post gets the HTML error page (issue 31), naming the refusal.
    expect(response.headers()['content-type']).toMatch(/^text\/html/);
    expect(await response.text()).toContain('invalid_csrf_token');
    expect(callback.requests).toHaveLength(0);
    await attacker.close();
    await page.close();
  });

  function openerPage(authorize: string): string {
    return `<!doctype html><title>opener</title>
<button id="go">Sign in with dauth</button>
<script>
  window.received = [];
  window.addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }));
  document.getElementById('go').addEventListener('click', () => window.open(${JSON.stringify(authorize)}, 'dauth', 'width=480,height=640'));
</script>`;
  }

  async function runPopup(openerOrigin: string, state: string) {
    callback.pages.set('/opener', openerPage(url({ state })));
    const opener = await context.newPage();
    await opener.goto(`${openerOrigin}/opener`);
    const [popup] = await Promise.all([context.waitForEvent('page'), opener.click('#go')]);
    await popup.waitForLoadState();
    const closed = popup.waitForEvent('close');
    await popup.fill('#email', user.email);
    await popup.fill('#password', user.password);
    await popup.click('#sign-in');
    // First time the consent page asks; an app approved before goes straight to the messages.
    const next = await Promise.race([
      popup.waitForSelector('#allow').then(
        () => 'consent',
        () => 'closed',
      ),
      closed.then(() => 'closed'),
    ]);
    if (next === 'consent') await popup.click('#allow');
    await closed;
    await opener.waitForTimeout(200);
    const received = (await opener.evaluate('window.received')) as {
      origin: string;
      data: Record<string, unknown>;
    }[];
    await opener.close();
    return received;
  }

  it('in a popup, posts the result twice (from dauth and dauth-v2) to the opener at the redirect origin', async () => {
    const received = await runPopup(callback.origin, 'popup-state');
    expect(received).toHaveLength(2);
    expect(received.map((m) => m.data.from)).toEqual(['dauth', 'dauth-v2']);
    for (const m of received) {
      expect(m.origin).toBe(server.config.publicUrl);
      expect(m.data.state).toBe('popup-state');
      expect(m.data.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    expect(received[1]!.data).toMatchObject({ type: 'authorization_response', client_id: client.clientId });
    expect(received[0]!.data.code).toBe(received[1]!.data.code);
    // Delivered by message only: the callback URL was not visited, and the code exchanges once.
    expect(callback.requests).toHaveLength(0);
    const res = await exchange(server.url, client, received[0]!.data.code as string);
    expect(res.status).toBe(200);
  });

  it('never delivers the messages to an opener on another origin than the redirect URI', async () => {
    const foreignOrigin = callback.origin.replace('127.0.0.1', 'localhost');
    const received = await runPopup(foreignOrigin, 'foreign');
    expect(received).toEqual([]);
  });
});
