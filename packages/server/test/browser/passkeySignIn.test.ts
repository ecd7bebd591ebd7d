import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeUrl,
  bearer,
  type CallbackServer,
  createClient,
  createUser,
  exchange,
  post,
  startCallbackServer,
  type TestClient,
  type TestUser,
  type TokenResult,
} from '../oauth/support.js';

/**
 * Passkeys in a real Chromium with its CDP virtual authenticator (CTAP2, internal, resident keys,
 * user verification). PUBLIC_URL names `localhost`: WebAuthn refuses an IP address as relying party id.
 */
describe.skipIf(!chromiumAvailable)('passkeys in Chromium with a virtual authenticator', () => {
  let server: TestServer;
  /** The service as the browser names it: PUBLIC_URL, on localhost. */
  let base: string;
  let callback: CallbackServer;
  let user: TestUser;
  let client: TestClient;
  let browser: TestBrowser;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` } });
    base = server.config.publicUrl;
    callback = await startCallbackServer();
    user = await createUser(base);
    client = await createClient(base, user, [callback.url()], { name: 'Passkey Quest' });
    browser = await launchTestBrowser();
    page = await browser.context.newPage();
    cdp = await browser.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await server?.close();
  });

  it('registers a passkey with the authenticator, then signs in with it on the login page and gets a code', async () => {
    expect(base).toMatch(/^http:\/\/localhost:/);
    // Registration: the browser's own WebAuthn API on the service's origin, options from the API.
    await page.goto(`${base}/healthz`);
    const options = await post(
      `${base}/v1/dev-user/passkeys/registration-options`,
      {},
      bearer(user.loginToken),
    );
    expect(options.status).toBe(200);
    const registration = await page.evaluate(
      async (json) => {
        const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(
          json as PublicKeyCredentialCreationOptionsJSON,
        );
        const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential;
        return credential.toJSON();
      },
      await options.json(),
    );
    const saved = await post(`${base}/v1/dev-user/passkeys`, registration, bearer(user.loginToken));
    expect(saved.status).toBe(201);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);

    // Sign-in on the authorize flow's page: no e-mail, no password typed.
    const state = 'passkey-state';
    const response = await page.goto(
      authorizeUrl(base, {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        state,
      }),
    );
    expect(response!.headers()['content-security-policy']).toContain("connect-src 'self'");
    await page.waitForSelector('#passkey-sign-in:not([hidden])');
    await Promise.all([
      page.waitForResponse((r) => r.url() === `${base}/oauth/authorize/passkey`),
      page.click('#passkey-sign-in'),
    ]);
    await page.waitForLoadState('load');
    expect(await page.textContent('h1')).toContain('Passkey Quest');
    await Promise.all([page.waitForURL(`${callback.url()}?**`), page.click('#allow')]);
    const landed = callback.requests.at(-1)!.url;
    expect(landed.searchParams.get('state')).toBe(state);
    const tokens = await exchange(base, client, landed.searchParams.get('code')!);
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as TokenResult).user_id).toBe(user.uuid);

    // The counter the authenticator signed is the one the service stored.
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    const row = await server.services.database.db
      .selectFrom('passkeys')
      .select('sign_count')
      .where('user_uuid', '=', Number(user.uuid))
      .executeTakeFirstOrThrow();
    expect(Number(row.sign_count)).toBe(after.credentials[0]!.signCount);
  });

  it('signs in through the JSON API with an assertion the authenticator made', async () => {
    await page.goto(`${base}/healthz`);
    const options = await post(`${base}/v1/dev-user/passkeys/authentication-options`, {});
    const assertion = await page.evaluate(
      async (json) => {
        const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(
          json as PublicKeyCredentialRequestOptionsJSON,
        );
        const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential;
        return credential.toJSON();
      },
      await options.json(),
    );
    const login = await post(`${base}/v1/dev-user/passkeys/login`, {
      ...assertion,
      client_id: client.clientId,
    });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({ success: true, uuid: user.uuid });
    // The same assertion a second time: refused.
    const replay = await post(`${base}/v1/dev-user/passkeys/login`, assertion);
    expect(replay.status).toBe(401);
  });
});
