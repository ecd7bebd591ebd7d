/**
 * Linking happens in the account's own browser (decisions §9, docs/federation.md "Linking"): the link URL
 * the console asks for carries a ticket bound to an HttpOnly cookie set on that browser. Here the account
 * owner's console (browser A, real Chromium, the real console) asks for a link to a real OpenID Provider
 * (oidc-provider from npm); the URL is caught on its way out and opened first in another browser (B, the
 * account-linking CSRF: the attacker's link URL sent to a victim), which must link nothing, then in A,
 * which links. dauth is `localhost` and the provider `127.0.0.1` (two sites, as in production).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { type OidcUpstream, providerEntry, startOidcUpstream } from '../helpers/oidcUpstream.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, post } from '../oauth/support.js';

describe.skipIf(!chromiumAvailable)('a console link URL works only in the browser that asked for it', () => {
  let server: TestServer;
  let base: string;
  let upstream: OidcUpstream;
  let owner: TestBrowser;
  let victim: TestBrowser;
  let ownerToken: string;

  /** At the provider, whatever it shows (its login form, its consent), until the browser is back at dauth. */
  async function throughUpstream(page: Page, login: string): Promise<void> {
    await page.waitForURL((url) => url.origin === upstream.issuer);
    while (new URL(page.url()).origin === upstream.issuer) {
      await page.waitForSelector('input[name="login"], button[autofocus]');
      if ((await page.locator('input[name="login"]').count()) > 0) {
        await page.fill('input[name="login"]', login);
        await page.fill('input[name="password"]', 'anything');
        await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
      } else {
        await Promise.all([page.waitForNavigation(), page.click('button[autofocus]')]);
      }
    }
  }

  const identitiesOfOwner = async () =>
    (
      (await (await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(ownerToken) })).json()) as {
        identities: { provider: string; subject: string }[];
      }
    ).identities;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startOidcUpstream({
      port: await freePort(),
      redirectUris: [`http://localhost:${port}/v1/federation/upstream/callback`],
    });
    server = await startTestServer({
      env: {
        PORT: String(port),
        PUBLIC_URL: `http://localhost:${port}`,
        IDENTITY_PROVIDERS: JSON.stringify([providerEntry(upstream)]),
      },
    });
    base = server.config.publicUrl;
    const email = `owner-${Date.now()}@example.com`;
    const password = 'correct horse battery';
    expect((await post(`${base}/v1/dev-user/register`, { email, password, nickname: 'Owner' })).status).toBe(
      201,
    );
    const login = await post(`${base}/v1/dev-user/login_devuser`, {
      email,
      password,
      client_id: 'dauth:console',
    });
    ownerToken = ((await login.json()) as { token: string }).token;
    owner = await launchTestBrowser();
    victim = await launchTestBrowser();
  }, 120_000);
  afterAll(async () => {
    await owner?.close();
    await victim?.close();
    await server?.close();
    await upstream?.close();
  });

  it('opened in another browser it links nothing (error page); in the asking browser it links', async () => {
    // A: the owner's console, its account page, "Link Upstream ID". Its way to the provider is caught.
    const page = await owner.context.newPage();
    await page.goto(`${base}/console#/signin`);
    await page.evaluate(
      `sessionStorage.setItem('dauth.console.session', ${JSON.stringify(
        JSON.stringify({ token: ownerToken, uuid: '0', email: '' }),
      )})`,
    );
    let linkUrl: string | undefined;
    await page.route('**/v1/federation/upstream/start?link_ticket=*', async (route) => {
      linkUrl = route.request().url();
      // 204: the navigation ends where it is. An abort would show a network-error page, which Chromium
      // reloads by itself once the route is gone (auto-reload of net errors), spending the ticket.
      await route.fulfill({ status: 204 });
    });
    await page.goto(`${base}/console#/account`);
    await page.click('[data-link-provider=upstream]');
    await expect.poll(() => linkUrl, { timeout: 15_000 }).toBeDefined();
    await page.unrouteAll();
    // The console's fetch kept the link cookie (HttpOnly, only for /v1/federation).
    const cookies = await owner.context.cookies(`${base}/v1/federation/upstream/start`);
    expect(cookies.find((c) => c.name === 'dauth_federation_link')).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
      path: '/v1/federation',
    });

    // B: the same URL. Whatever it is shown, the owner's account gains no identity.
    const other = await victim.context.newPage();
    const response = await other.goto(linkUrl!);
    if (new URL(other.url()).origin === upstream.issuer) await throughUpstream(other, 'victim');
    expect(await identitiesOfOwner()).toEqual([]);
    expect(response!.status()).toBe(400);
    expect(new URL(other.url()).origin).toBe(base);
    expect(await other.textContent('#error-code')).toContain('link_browser_mismatch');
    await other.close();

    // A opens it: the provider's sign-in, back to the console, linked.
    await page.goto(linkUrl!);
    await throughUpstream(page, 'ann');
    await page.waitForURL((url) => url.hash === '#/account');
    await page.locator('#identity-list', { hasText: 'Upstream ID' }).waitFor();
    expect(await identitiesOfOwner()).toMatchObject([{ provider: 'upstream', subject: 'ann' }]);
    await page.close();
  });
});
