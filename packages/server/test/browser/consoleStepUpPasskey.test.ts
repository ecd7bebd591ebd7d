/**
 * The console's step-up for a session without a password (signed in with a passkey or a federated identity):
 * the prompt cannot ask for a password the account may not have, so it offers a passkey of the same account
 * (and the provider's sign-in). Real Chromium with its CDP virtual authenticator, a real dauth on the embedded
 * chain; PUBLIC_URL names `localhost` because WebAuthn refuses an IP address as relying party id.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { fillWalletPolicy } from './walletPolicyForm.js';

/** A login older than this many seconds must be confirmed again (the step-up rule). */
const STEP_UP_SECONDS = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The browser's own WebAuthn registration on options from the API, as page-side source (no DOM types here). */
const createCredential = (options: unknown) => `(async () => {
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(${JSON.stringify(options)});
  return (await navigator.credentials.create({ publicKey })).toJSON();
})()`;

describe.skipIf(!chromiumAvailable)('console step-up without a password, in Chromium', () => {
  let server: TestServer;
  let base: string;
  let browser: TestBrowser;
  let page: Page;
  let dev: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({
      env: {
        PORT: String(port),
        PUBLIC_URL: `http://localhost:${port}`,
        STEP_UP_MAX_AGE: String(STEP_UP_SECONDS),
      },
    });
    base = server.config.publicUrl;
    browser = await launchTestBrowser();
    page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    // The passkey is registered while the sign-up's login is fresh (registration needs a fresh console login): the
    // account is made once the browser is up, so a loaded machine's slow Chromium start does not age it.
    await page.goto(`${base}/healthz`);
    dev = await createUser(base, undefined, { clientId: 'dauth:console' });
    const options = await post(
      `${base}/v1/dev-user/passkeys/registration-options`,
      {},
      bearer(dev.loginToken),
    );
    expect(options.status).toBe(200);
    const registration = (await page.evaluate(createCredential(await options.json()))) as unknown;
    expect((await post(`${base}/v1/dev-user/passkeys`, registration, bearer(dev.loginToken))).status).toBe(
      201,
    );
    client = await createClient(base, dev, ['http://127.0.0.1:9/cb'], { name: 'Step-up Quest' });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a passkey session confirms a stale login with its passkey, not a password, and the save goes through', async () => {
    const token = server.services.chainInfo.contracts.token;
    await page.goto(`${base}/console#/signin`);
    await page.click('#signin-passkey');
    await page.waitForURL((url) => url.hash !== '#/signin');
    const session = JSON.parse(
      (await page.evaluate(`sessionStorage.getItem('dauth.console.session')`)) as string,
    ) as {
      token: string;
      uuid: string;
      email: string;
    };
    expect(session).toMatchObject({ uuid: dev.uuid, email: '' });
    // The console binds every login to its first-party id (decisions §8), the passkey one included.
    const claims = JSON.parse(Buffer.from(session.token.split('.')[1]!, 'base64url').toString()) as {
      azp?: string;
    };
    expect(claims.azp).toBe('dauth:console');

    await page.goto(`${base}/console#/apps/${client.clientId}`);
    await fillWalletPolicy(page, { token, perDay: '1000', days: 2, open: true });
    await sleep(STEP_UP_SECONDS * 1000 + 200); // the passkey login is now stale
    await page.click('#policy-submit');
    await page.waitForSelector('#stepup-passkey');
    // No password field: this account is signed in without one.
    expect(await page.locator('#stepup-password').count()).toBe(0);
    await page.click('#stepup-passkey');
    await page.locator('#policy-current', { hasText: 'Tokens per day' }).waitFor();

    const stored = await fetch(`${base}/v1/dev-user/clients/${client.clientId}/wallet-policy`, {
      headers: { authorization: `Bearer ${dev.loginToken}` },
    });
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({
      token_limits: [{ token, per_day: '1000' }],
      valid_for_seconds: 2 * 86_400,
    });
  });
});
