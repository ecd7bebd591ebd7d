import { solveChallenge } from 'altcha-lib/v1';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALTCHA_ASSETS_PATH } from '../../src/http/pages/altchaWidget.js';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeUrl, bearer, type CallbackServer, post, startCallbackServer } from '../oauth/support.js';

/** A solved challenge, as a game or the SDKs send it (altcha-lib's own solver). */
async function altcha(server: TestServer): Promise<string> {
  const c = (await (await fetch(`${server.url}/v1/challenge`)).json()) as Record<string, string> & {
    maxnumber: number;
  };
  const solved = await solveChallenge(c.challenge!, c.salt!, c.algorithm, c.maxnumber).promise;
  const { algorithm, challenge, salt, signature } = c;
  return Buffer.from(
    JSON.stringify({ algorithm, challenge, number: solved!.number, salt, signature }),
  ).toString('base64');
}

/**
 * The login page's sign-up and sign-in forms with `BOT_CHALLENGE=signup,login` (docs/security.md "Bot
 * challenge"), in a real Chromium: the ALTCHA widget (served by the service itself) fetches and solves a
 * challenge on submit under the page's CSP, and the sign-up form shows the weak-password hint.
 */
describe.skipIf(!chromiumAvailable)('bot challenge on the login page in a real Chromium', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let browser: TestBrowser;
  let context: BrowserContext;
  let clientId: string;
  const owner = { email: `dev${Date.now().toString(36)}@example.com`, password: 'copper kettle horizon' };

  beforeAll(async () => {
    server = await startTestServer({ env: { BOT_CHALLENGE: 'signup,login' } });
    callback = await startCallbackServer();
    expect(
      (await post(`${server.url}/v1/dev-user/register`, { ...owner, altcha: await altcha(server) })).status,
    ).toBe(201);
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      ...owner,
      altcha: await altcha(server),
    });
    const { token } = (await login.json()) as { token: string };
    const app = await post(
      `${server.url}/v1/dev-user/clients`,
      { name: 'Arcade', redirect_uris: [callback.url()] },
      bearer(token),
    );
    clientId = ((await app.json()) as { client_id: string }).client_id;
    browser = await launchTestBrowser();
    context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await server?.close();
  });

  const url = (state: string) =>
    authorizeUrl(server.url, {
      client_id: clientId,
      redirect_uri: callback.url(),
      response_type: 'code',
      state,
    });

  it('signs in: the ALTCHA widget solves a challenge before the form posts, and reaches the consent page', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    const posted = page.waitForRequest(
      (request) => request.method() === 'POST' && request.url().endsWith('/oauth/authorize/login'),
    );
    await page.goto(url('pow-1'));
    // The widget (the module this service serves from node_modules) is defined and owns the `altcha` field.
    await page.evaluate("customElements.whenDefined('altcha-widget').then(() => true)");
    expect(await page.locator('altcha-widget input[name="altcha"]').count()).toBe(1);
    expect(await page.locator('input[name="altcha"]').count()).toBe(1);
    await page.fill('#email', owner.email);
    await page.fill('#password', owner.password);
    await page.click('#sign-in');
    // The form carries the widget's v1 solution: a number found for the challenge of this app.
    const body = new URLSearchParams((await posted).postData() ?? '');
    const solution = JSON.parse(Buffer.from(body.get('altcha') ?? '', 'base64').toString('utf8')) as Record<
      string,
      unknown
    >;
    expect(solution).toMatchObject({ algorithm: 'SHA-256', number: expect.any(Number) });
    expect(solution.challenge).toMatch(/^[0-9a-f]{64}$/);
    expect(solution.salt).toMatch(/\?expires=\d+/);
    await page.waitForSelector('#allow', { timeout: 60_000 });
    // It fetched the challenge for the app and solved it in the worker this service serves.
    expect(fetched).toContain('/v1/challenge');
    expect(fetched.some((p) => /^\/assets\/altcha\/[\d.]+\/sha\.js$/.test(p))).toBe(true);
    // No CSP refusal of the widget's module, stylesheet, worker or challenge fetch.
    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    await page.close();
  });

  it('shows a status instead of failing silently when the widget cannot load', async () => {
    await context.clearCookies();
    const page = await context.newPage();
    await page.route(/\/assets\/altcha\/.*\/altcha\.js$/, (route) => route.abort());
    await page.goto(url('pow-0'));
    await page.waitForSelector('#altcha-status:not([hidden])');
    expect(await page.getAttribute('#altcha-status', 'role')).toBe('alert');
    expect(await page.textContent('#altcha-status')).toMatch(/could not load/);
    await page.close();
  });

  it('serves the widget files from node_modules: typed, cached for good, nothing else under the path', async () => {
    const module = await fetch(`${server.url}${ALTCHA_ASSETS_PATH}/altcha.js`);
    expect(module.status).toBe(200);
    expect(module.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(module.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(module.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await module.text()).toContain('customElements.define("altcha-widget"');
    const style = await fetch(`${server.url}${ALTCHA_ASSETS_PATH}/altcha.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const other of [`${ALTCHA_ASSETS_PATH}/package.json`, '/assets/altcha/0.0.1/altcha.js']) {
      expect((await fetch(`${server.url}${other}`)).status).toBe(404);
    }
  });

  it('the device page signs in through the widget too', async () => {
    await context.clearCookies();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${server.url}/oauth/device`);
    await page.evaluate("customElements.whenDefined('altcha-widget').then(() => true)");
    await page.fill('#email', owner.email);
    await page.fill('#password', owner.password);
    const posted = page.waitForRequest((request) => request.url().endsWith('/oauth/device/login'));
    await page.click('#sign-in');
    const body = new URLSearchParams((await posted).postData() ?? '');
    expect(body.get('altcha')).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    // Signed in: the page now asks for the device's code.
    await page.waitForSelector('h1:has-text("Connect a device")', { timeout: 60_000 });
    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    await page.close();
  });

  it('signs up: a weak password shows the hint, a strong one gets in after the challenge', async () => {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(url('pow-2'));
    await Promise.all([page.waitForNavigation(), page.click('#signup-link')]);
    const email = `p${Date.now().toString(36)}@example.com`;
    await page.fill('#email', email);
    await page.fill('#password', 'password123');
    await page.click('#sign-up');
    await page.waitForSelector('[role=alert]', { timeout: 60_000 });
    expect(await page.textContent('[role=alert]')).toMatch(/common passwords/);
    await page.fill('#password', 'saffron lagoon trellis');
    await page.click('#sign-up');
    await page.waitForSelector('#allow', { timeout: 60_000 });
    await page.close();
  });

  it('the console signs up and signs in by solving a challenge when the service asks for one', async () => {
    await context.clearCookies();
    const page = await context.newPage();
    const email = `c${Date.now().toString(36)}@example.com`;
    await page.goto(`${server.url}/console#/signup`);
    await page.fill('#signup-email', email);
    await page.fill('#signup-password', 'juniper satchel meridian');
    await page.click('#signup-submit');
    await page.waitForURL(/#\/apps$/, { timeout: 60_000 });
    await page.close();
    // A new tab: the console keeps its session in sessionStorage, per tab.
    const again = await context.newPage();
    await again.goto(`${server.url}/console#/signin`);
    await again.fill('#signin-email', email);
    await again.fill('#signin-password', 'juniper satchel meridian');
    await again.click('#signin-submit');
    await again.waitForURL(/#\/apps$/, { timeout: 60_000 });
    await again.close();
  });
});
