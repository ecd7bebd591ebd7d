/**
 * The console's step-up for an account that signs in only through a provider (no password, no passkey): the
 * prompt offers the provider's sign-in, which leaves the page; the console then comes back to the page the
 * change was made on (not the app list), signed in afresh as the same account, and the change goes through.
 * Real Chromium, a real OpenID Provider (oidc-provider from npm) as the upstream, a real dauth on the embedded
 * chain. dauth is `localhost` and the provider `127.0.0.1` (two sites, as in production).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { type OidcUpstream, providerEntry, startOidcUpstream } from '../helpers/oidcUpstream.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, post } from '../oauth/support.js';
import { fillWalletPolicy } from './walletPolicyForm.js';

/** A login older than this many seconds must be confirmed again (the step-up rule). */
const STEP_UP_SECONDS = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!chromiumAvailable)('console step-up of a provider-only account, in Chromium', () => {
  let server: TestServer;
  let base: string;
  let upstream: OidcUpstream;
  let browser: TestBrowser;
  let page: Page;

  /**
   * Clicks `trigger` and goes through the provider (its login form and consent, whichever it shows) until the
   * browser is back at dauth; answers whether the provider asked for the login again.
   */
  async function throughUpstream(trigger: () => Promise<void>, login: string): Promise<boolean> {
    await Promise.all([page.waitForURL((url) => url.origin === upstream.issuer), trigger()]);
    let askedToSignIn = false;
    while (new URL(page.url()).origin === upstream.issuer) {
      if ((await page.locator('input[name="login"]').count()) > 0) {
        askedToSignIn = true;
        await page.fill('input[name="login"]', login);
        await page.fill('input[name="password"]', 'anything');
        await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
      } else if ((await page.locator('button[autofocus]').count()) > 0) {
        await Promise.all([page.waitForNavigation(), page.click('button[autofocus]')]);
      } else {
        await sleep(100);
      }
    }
    return askedToSignIn;
  }

  const consoleSession = async () =>
    JSON.parse((await page.evaluate(`sessionStorage.getItem('dauth.console.session')`)) as string) as {
      token: string;
      uuid: string;
      email: string;
    };

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startOidcUpstream({
      port: await freePort(),
      redirectUris: [`http://localhost:${port}/v1/federation/upstream/callback`],
    });
    // The upstream does not vouch for this player's address, so the account has none: no password reset
    // either, the provider is its only way in.
    upstream.accounts.set('dana', { name: 'Dana', email: 'dana@upstream.example', email_verified: false });
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
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await upstream?.close();
  });

  it('comes back from the provider to the page it left, as the same account, and the save goes through', async () => {
    await page.goto(`${base}/console#/signin`);
    await throughUpstream(() => page.click('#signin-federation a[data-provider="upstream"]'), 'dana');
    await page.waitForURL((url) => url.hash === '#/apps');
    const first = await consoleSession();
    expect(first.email).toBe('');

    const created = await post(
      `${base}/v1/dev-user/clients`,
      { name: 'Provider-only Quest', redirect_uris: ['http://127.0.0.1:9/cb'] },
      bearer(first.token),
    );
    expect(created.status).toBe(201);
    const { client_id: clientId } = (await created.json()) as { client_id: string };
    const token = server.services.chainInfo.contracts.token;

    await page.goto(`${base}/console#/apps/${clientId}`);
    await fillWalletPolicy(page, { token, perDay: '1000', days: 2, open: true });
    await sleep(STEP_UP_SECONDS * 1000 + 200); // the provider login is now stale
    await page.click('#policy-submit');
    const again = page.locator('dialog a', { hasText: 'Continue with Upstream ID' });
    await again.waitFor();
    // Neither a password (the account has none) nor a save behind the user's back.
    expect(await page.locator('#stepup-password').count()).toBe(0);
    const unsaved = await fetch(`${base}/v1/dev-user/clients/${clientId}/wallet-policy`, {
      headers: bearer(first.token),
    });
    expect(unsaved.status).toBe(404);

    // The provider still has Dana's session; a step-up makes it ask for the sign-in again all the same.
    expect(await throughUpstream(() => again.click(), 'dana')).toBe(true);
    // Back on the app's page it left, not the app list, with a fresh login of the same account.
    await page.waitForURL((url) => url.hash === `#/apps/${clientId}`);
    await page.locator('[role=status], .notice', { hasText: 'signed in again' }).first().waitFor();
    const second = await consoleSession();
    expect(second.uuid).toBe(first.uuid);
    expect(second.token).not.toBe(first.token);
    expect(await page.evaluate(`sessionStorage.getItem('dauth.console.returnRoute')`)).toBeNull();

    await fillWalletPolicy(page, { token, perDay: '1000', days: 2, open: true });
    await page.click('#policy-submit');
    await page.locator('#policy-current', { hasText: 'Tokens per day' }).waitFor();
    const stored = await fetch(`${base}/v1/dev-user/clients/${clientId}/wallet-policy`, {
      headers: bearer(second.token),
    });
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({
      token_limits: [{ token, per_day: '1000' }],
      valid_for_seconds: 2 * 86_400,
    });
  });
});
