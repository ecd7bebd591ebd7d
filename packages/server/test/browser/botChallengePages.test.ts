import { solveChallenge } from 'altcha-lib/v1';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * challenge"), in a real Chromium: the page's own solver fetches and solves a challenge on submit under
 * the page's CSP, and the sign-up form shows the weak-password hint.
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

  it('signs in: the form solves a challenge before it posts, and reaches the consent page', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(url('pow-1'));
    expect(await page.locator('input[name="altcha"]').count()).toBe(1);
    await page.fill('#email', owner.email);
    await page.fill('#password', owner.password);
    await page.click('#sign-in');
    await page.waitForSelector('#allow', { timeout: 60_000 });
    // No CSP refusal of the challenge fetch or the solver.
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
