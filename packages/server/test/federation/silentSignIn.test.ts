/**
 * Authentication time is the real one (decisions §9, docs/federation.md "Authentication time"): a
 * federated sign-in's login JWT carries the upstream's `auth_time`, so a sign-in the provider answers
 * silently from its own session (no password typed) is not a fresh login and passes no step-up; the
 * console's step-up (`reauthenticate=true`) still does. Real Chromium against a real dauth and a real
 * OpenID Provider (oidc-provider from npm), whose session cookie is what answers the silent sign-in.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { type OidcUpstream, providerEntry, startOidcUpstream } from '../helpers/oidcUpstream.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, post } from '../oauth/support.js';

/** A login older than this many seconds must be confirmed again; short, so the test outlives it. */
const STEP_UP_SECONDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { auth_time: number };

describe.skipIf(!chromiumAvailable)('a silent upstream sign-in is not a fresh login', () => {
  let server: TestServer;
  let base: string;
  let upstream: OidcUpstream;
  let browser: TestBrowser;
  let page: Page;

  /**
   * A console sign-in through the provider: goes through whatever it shows until the browser is back at
   * the console; the login JWT of the ticket it brings, and whether the provider asked for the password.
   */
  async function signIn(query: string): Promise<{ token: string; askedToSignIn: boolean }> {
    let askedToSignIn = false;
    await page.goto(`${base}/v1/federation/upstream/start?return_to=/console${query}`);
    while (new URL(page.url()).origin === upstream.issuer) {
      await page.waitForSelector('input[name="login"], button[autofocus]');
      if ((await page.locator('input[name="login"]').count()) > 0) {
        askedToSignIn = true;
        await page.fill('input[name="login"]', 'sam');
        await page.fill('input[name="password"]', 'anything');
        await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
      } else {
        await Promise.all([page.waitForNavigation(), page.click('button[autofocus]')]);
      }
    }
    await page.waitForURL((u) => u.pathname === '/console');
    const ticket = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('login_ticket');
    const redeemed = await post(`${base}/v1/federation/login-ticket`, { ticket });
    expect(redeemed.status).toBe(200);
    return { token: ((await redeemed.json()) as { token: string }).token, askedToSignIn };
  }

  /** An account-critical change that needs a fresh login (STEP_UP_MAX_AGE). */
  const stepUpGuarded = (token: string) =>
    post(`${base}/v1/dev-user/identities/link`, { provider: 'upstream' }, bearer(token));

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
        STEP_UP_MAX_AGE: String(STEP_UP_SECONDS),
        IDENTITY_PROVIDERS: JSON.stringify([providerEntry(upstream)]),
      },
    });
    base = server.config.publicUrl;
    browser = await launchTestBrowser();
    page = await browser.context.newPage();
    // The console page itself is not under test: a stand-in keeps the URL (and its ticket) as it lands.
    await page.route(`${base}/console**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>console</title>' }),
    );
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await upstream?.close();
  });

  it('carries the upstream auth_time; a silent sign-in after STEP_UP_MAX_AGE is stale; reauthenticate is fresh', async () => {
    const startedAt = Math.floor(Date.now() / 1000);
    const first = await signIn('');
    expect(first.askedToSignIn).toBe(true);
    const typedAt = claimsOf(first.token).auth_time;
    expect(typedAt).toBeGreaterThanOrEqual(startedAt - 1);
    expect(typedAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));

    await sleep((typedAt + STEP_UP_SECONDS + 1) * 1000 - Date.now()); // the password typed is now stale

    // The provider still has the session: it answers at once, nobody typed anything.
    const silent = await signIn('');
    expect(silent.askedToSignIn).toBe(false);
    expect(claimsOf(silent.token).auth_time).toBe(typedAt);
    const refused = await stepUpGuarded(silent.token);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ success: false, error: 'reauthentication_required' });

    // The console's step-up makes the provider ask again: that login is fresh.
    const again = await signIn('&reauthenticate=true');
    expect(again.askedToSignIn).toBe(true);
    expect(claimsOf(again.token).auth_time).toBeGreaterThan(typedAt);
    expect((await stepUpGuarded(again.token)).status).toBe(200);
  });
});
