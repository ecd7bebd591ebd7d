import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeUrl,
  type CallbackServer,
  createClient,
  createUser,
  exchange,
  expectError,
  post,
  startCallbackServer,
  type TestClient,
} from '../oauth/support.js';

/** Sign-up and password reset from the authorize login page (docs/accounts.md), in a real Chromium. */
describe.skipIf(!chromiumAvailable)('account forms of the authorize page in a real Chromium', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let client: TestClient;
  let context: BrowserContext;
  let browser: TestBrowser;

  beforeAll(async () => {
    server = await startTestServer();
    callback = await startCallbackServer();
    const developer = await createUser(server.url);
    client = await createClient(server.url, developer, [callback.url()], { name: 'Arcade' });
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

  const url = (state: string) =>
    authorizeUrl(server.url, {
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      state,
    });

  /** Approves on the consent page and returns the code the app's callback received with `state`. */
  async function allowAndGetCode(page: Page, state: string): Promise<string> {
    await page.waitForSelector('#allow');
    await page.click('#allow');
    for (let i = 0; i < 100 && callback.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    const received = callback.requests[0]!.url;
    expect(received.searchParams.get('state')).toBe(state);
    return received.searchParams.get('code')!;
  }

  it('signs up from the login page and returns to the app', async () => {
    const page = await context.newPage();
    await page.goto(url('signup-1'));
    const [response] = await Promise.all([page.waitForNavigation(), page.click('#signup-link')]);
    expect(response?.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toMatch(/default-src 'none'/);
    expect(await page.textContent('h1')).toContain('Create');
    const email = `s${Date.now().toString(36)}@example.com`;
    await page.fill('#email', email);
    await page.fill('#password', 'short');
    await page.click('#sign-up');
    await page.waitForSelector('[role=alert]');
    expect(await page.textContent('[role=alert]')).toMatch(/8/);
    await page.fill('#password', 'a long enough passphrase');
    await page.click('#sign-up');
    const code = await allowAndGetCode(page, 'signup-1');
    expect((await exchange(server.url, client, code)).status).toBe(200);
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email,
      password: 'a long enough passphrase',
    });
    expect(login.status).toBe(200);
    await page.close();
  });

  it('resets the password through the mailed code and returns to the app', async () => {
    const user = await createUser(server.url);
    const page = await context.newPage();
    await page.goto(url('reset-1'));
    await Promise.all([page.waitForNavigation(), page.click('#reset-link')]);
    const started = Date.now();
    await page.fill('#email', user.email);
    await Promise.all([page.waitForNavigation(), page.click('#send-code')]);
    expect(await page.textContent('[role=status]')).toContain('code is on its way');
    expect(await page.inputValue('#email')).toBe(user.email);
    const mail = await waitForMail(server.dataDir, user.email, { since: started, includes: 'reset code' });
    const code = /reset code is (\d{8})/.exec(mail.text)?.[1];
    expect(code).toBeTruthy();
    await page.fill('#code', '00000000' === code ? '11111111' : '00000000');
    await page.fill('#new_password', 'the new passphrase');
    await Promise.all([page.waitForNavigation(), page.click('#set-password')]);
    expect(await page.textContent('[role=alert]')).toMatch(/wrong|expired/);
    await page.fill('#code', code!);
    await page.fill('#new_password', 'the new passphrase');
    await Promise.all([page.waitForNavigation(), page.click('#set-password')]);
    expect(await page.textContent('[role=status]')).toContain('password was changed');
    await page.fill('#email', user.email);
    await page.fill('#password', 'the new passphrase');
    await page.click('#sign-in');
    const authCode = await allowAndGetCode(page, 'reset-1');
    expect((await exchange(server.url, client, authCode)).status).toBe(200);
    await expectError(
      await post(`${server.url}/v1/dev-user/login_devuser`, { email: user.email, password: user.password }),
      401,
      'invalid_credentials',
    );
    await page.close();
  });

  it('refuses a sign-up form posted without the page CSRF token (403), creating nothing', async () => {
    const email = `csrf${Date.now().toString(36)}@example.com`;
    const res = await fetch(`${server.url}/oauth/authorize/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        email,
        password: 'a long enough passphrase',
      }).toString(),
    });
    expect(res.status).toBe(403);
    expect(
      (await post(`${server.url}/v1/dev-user/login_devuser`, { email, password: 'a long enough passphrase' }))
        .status,
    ).toBe(401);
  });
});
