import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newClient, newUser, type User } from '../content/contentSupport.js';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The console's sections over the federation and session-key endpoints (decisions §8) in a real Chromium
 * against a real dauth — whose federation and session-key routes are built beside this work: until they
 * are on main, the browser's requests to those few endpoints are answered here (`page.route`) with the
 * shapes decisions §8 and the interface give, and every other call goes to the real service. What is
 * checked is the console's side: what it shows, what it sends, where it goes.
 */
const server: TestServer | undefined = chromiumAvailable ? await startTestServer() : undefined;

const PROVIDERS = {
  providers: [
    { id: 'google', kind: 'oidc', name: 'Google' },
    { id: 'discord', kind: 'oauth2', name: 'Discord' },
  ],
};
const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

describe.skipIf(!chromiumAvailable)('console sections over federation and session keys', () => {
  let browser: TestBrowser;
  let user: User;
  const base = () => server!.url;

  beforeAll(async () => {
    browser = await launchTestBrowser();
    user = await newUser(server!, 'sections');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signedIn(hash: string, routes: (page: Page) => Promise<void>): Promise<Page> {
    const page = await browser.context.newPage();
    await routes(page);
    await page.goto(`${base()}/console#/signin`);
    await page.evaluate(
      `sessionStorage.setItem('dauth.console.session', ${JSON.stringify(
        JSON.stringify({ token: user.token, uuid: String(user.uuid), email: '' }),
      )})`,
    );
    await page.goto(`${base()}/console${hash}`);
    return page;
  }

  it('offers "Continue with …" for each provider, and redeems the ticket the provider flow comes back with', async () => {
    const page = await browser.context.newPage();
    const redeemed: unknown[] = [];
    await page.route('**/v1/federation/providers', (route) => json(route, 200, PROVIDERS));
    await page.route('**/v1/federation/login-ticket', (route) => {
      redeemed.push(route.request().postDataJSON());
      return json(route, 200, { success: true, token: user.token, uuid: String(user.uuid), created: false });
    });
    await page.goto(`${base()}/console#/signin`);
    const google = page.locator('#signin-federation a[data-provider=google]');
    expect(await google.textContent()).toBe('Continue with Google');
    expect(await google.getAttribute('href')).toBe('/v1/federation/google/start?return_to=%2Fconsole');
    expect(await page.locator('#signin-federation a').allTextContents()).toEqual([
      'Continue with Google',
      'Continue with Discord',
    ]);

    await page.goto(`${base()}/console#login_ticket=t-123`);
    await page.waitForSelector('#app-list');
    expect(redeemed).toEqual([{ ticket: 't-123' }]);
    expect(page.url()).toMatch(/\/console#\/apps$/);
    expect(await page.evaluate("JSON.parse(sessionStorage.getItem('dauth.console.session')).token")).toBe(
      user.token,
    );
    await page.close();
  });

  it('lists linked sign-ins, links another through the URL the service gives, and says why the last cannot go', async () => {
    const linkBodies: unknown[] = [];
    const page = await signedIn('#/account', async (p) => {
      await p.route('**/v1/federation/providers', (route) => json(route, 200, PROVIDERS));
      await p.route('**/v1/wallet/session-keys', (route) => json(route, 200, { session_keys: [] }));
      await p.route('**/v1/dev-user/identities', (route) =>
        json(route, 200, {
          identities: [
            {
              id: 'id-1',
              provider: 'google',
              provider_name: 'Google',
              subject: '109876543210',
              email: 'player@gmail.example',
              created_at: '2026-11-20T08:05:00.000Z',
            },
          ],
        }),
      );
      await p.route('**/v1/dev-user/identities/id-1', (route) =>
        json(route, 409, {
          success: false,
          error: 'last_sign_in_method',
          message: 'This is your only way to sign in',
        }),
      );
      await p.route('**/v1/dev-user/identities/link', (route) => {
        linkBodies.push(route.request().postDataJSON());
        return json(route, 200, { url: `${base()}/console#/passkeys` });
      });
    });
    const card = page.locator('#identities [data-identity=id-1]');
    await card.waitFor();
    expect(await card.locator('h3').textContent()).toBe('Google');
    expect(await card.locator('dd').allTextContents()).toEqual([
      '109876543210',
      'player@gmail.example',
      '2026-11-20 08:05 UTC',
    ]);
    expect(await page.textContent('#session-key-list')).toContain('No app may use your wallet');

    await page.click('[data-unlink=id-1]');
    await page.click('#identities [data-confirm=yes]');
    await page.locator('#identities [role=status]', { hasText: 'only way to sign in' }).waitFor();

    await page.click('[data-link-provider=discord]');
    await page.waitForURL(/#\/passkeys$/);
    expect(linkBodies).toEqual([{ provider: 'discord' }]);
    await page.close();
  });

  it("shows an app's session key with its policy in words and today's use, and revokes it", async () => {
    const revoked: string[] = [];
    let keys = [
      {
        client_id: 'game-1',
        client_name: 'Space Game',
        session_key: '0x1111111111111111111111111111111111111111',
        valid_until: '2026-12-03T10:00:00.000Z',
        policy: {
          calls: [{ to: '0x2222222222222222222222222222222222222222', selectors: ['0xa9059cbb'] }],
          max_value_per_call_wei: '10000000000000000',
          max_value_per_day_wei: '50000000000000000',
          token_limits: [{ token: '0x3333333333333333333333333333333333333333', per_day: '1000' }],
          valid_for_seconds: 604800,
        },
        spent_today: {
          value_wei: '20000000000000000',
          tokens: [{ token: '0x3333333333333333333333333333333333333333', amount: '250' }],
        },
        created_at: '2026-11-26T10:00:00.000Z',
        tx_hash: `0x${'ab'.repeat(32)}`,
      },
    ];
    const page = await signedIn('#/account', async (p) => {
      await p.route('**/v1/federation/providers', (route) =>
        json(route, 404, {
          success: false,
          error: 'not_found',
          message: 'No route for GET /v1/federation/providers',
        }),
      );
      await p.route('**/v1/dev-user/identities', (route) =>
        json(route, 404, {
          success: false,
          error: 'not_found',
          message: 'No route for GET /v1/dev-user/identities',
        }),
      );
      await p.route('**/v1/wallet/session-keys', (route) => json(route, 200, { session_keys: keys }));
      await p.route('**/v1/wallet/session-keys/game-1', (route) => {
        revoked.push(route.request().method());
        keys = [];
        return json(route, 200, { success: true, tx_hash: `0x${'cd'.repeat(32)}` });
      });
    });
    const card = page.locator('#session-keys [data-session-key=game-1]');
    await card.waitFor();
    const text = (await card.textContent())!;
    expect(text).toContain('Space Game');
    expect(text).toContain('0x2222222222222222222222222222222222222222: functions 0xa9059cbb');
    expect(text).toContain('up to 0.01 ETH');
    expect(text).toContain('up to 0.05 ETH (0.02 ETH used today)');
    expect(text).toContain('up to 1,000 (250 used today)');
    expect(text).toContain('7 days');
    expect(text).toContain('2026-12-03 10:00 UTC');
    expect(await card.locator('.amount').first().getAttribute('title')).toBe('10000000000000000 wei');
    // Without federation the linked sign-ins section is simply absent.
    expect(await page.$('#identities')).toBeNull();

    await page.click('[data-revoke-session-key=game-1]');
    await page.click('#session-keys [data-confirm=yes]');
    await page.locator('[role=status]', { hasText: 'can no longer use your wallet' }).waitFor();
    expect(revoked).toEqual(['DELETE']);
    expect(await page.textContent('#session-key-list')).toContain('No app may use your wallet');
    await page.close();
  });

  it("edits an app's wallet policy and sends it as the policy fields, wei as decimal strings", async () => {
    const clientId = await newClient(server!, user);
    const puts: unknown[] = [];
    const page = await signedIn(`#/apps/${clientId}`, async (p) => {
      await p.route(`**/v1/dev-user/clients/${clientId}/wallet-policy`, (route) => {
        if (route.request().method() === 'GET') {
          return json(route, 404, {
            success: false,
            error: 'wallet_policy_not_found',
            message: 'This app has no wallet policy',
          });
        }
        const body = route.request().postDataJSON() as Record<string, unknown>;
        puts.push(body);
        return json(route, 200, { ...body, updated_at: '2026-11-26T10:00:00.000Z' });
      });
    });
    // The policy is asked for when the owner opens the section, not on every app page.
    await page.click('#policy-open');
    await page.waitForSelector('#wallet-policy-form');
    expect(await page.textContent('#policy-current')).toContain('No policy yet');
    await page.fill(
      '#policy-calls',
      '0x2222222222222222222222222222222222222222 0xa9059cbb 0x095ea7b3\n0x4444444444444444444444444444444444444444',
    );
    await page.fill('#policy-per-call', '10000000000000000');
    await page.fill('#policy-per-day', '50000000000000000');
    await page.fill('#policy-tokens', '0x3333333333333333333333333333333333333333 1000');
    await page.fill('#policy-days', '7');
    await page.click('#policy-submit');
    await page.locator('#wallet-policy-form [role=status]', { hasText: 'Policy saved' }).waitFor();
    expect(puts).toEqual([
      {
        calls: [
          { to: '0x2222222222222222222222222222222222222222', selectors: ['0xa9059cbb', '0x095ea7b3'] },
          { to: '0x4444444444444444444444444444444444444444', selectors: [] },
        ],
        max_value_per_call_wei: '10000000000000000',
        max_value_per_day_wei: '50000000000000000',
        token_limits: [{ token: '0x3333333333333333333333333333333333333333', per_day: '1000' }],
        valid_for_seconds: 604800,
      },
    ]);
    expect(await page.textContent('#policy-current')).toContain('up to 0.05 ETH');
    await page.close();
  });
});
