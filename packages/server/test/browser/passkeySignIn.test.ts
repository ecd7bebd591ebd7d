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
 * The browser's own WebAuthn ceremony on `options` (JSON from the API), as page-side source: this file is
 * type-checked without the DOM library. Resolves with the credential's `toJSON()`.
 */
const ceremony = (kind: 'create' | 'get', options: unknown) => {
  const parse = kind === 'create' ? 'parseCreationOptionsFromJSON' : 'parseRequestOptionsFromJSON';
  return `(async () => {
    const publicKey = PublicKeyCredential.${parse}(${JSON.stringify(options)});
    return (await navigator.credentials.${kind}({ publicKey })).toJSON();
  })()`;
};

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
    user = await createUser(base, undefined, { clientId: 'dauth:console' });
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
    const registration = (await page.evaluate(ceremony('create', await options.json()))) as unknown;
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
    const assertion = (await page.evaluate(ceremony('get', await options.json()))) as Record<string, unknown>;
    const login = await post(`${base}/v1/dev-user/passkeys/login`, {
      ...assertion,
      client_id: client.clientId,
    });
    expect(login.status, await login.clone().text()).toBe(200);
    expect(await login.json()).toMatchObject({ success: true, uuid: user.uuid });
    // The same assertion a second time: refused.
    const replay = await post(`${base}/v1/dev-user/passkeys/login`, assertion);
    expect(replay.status).toBe(401);
  });

  it('console: adds a passkey, signs in with it (no e-mail typed), lists and deletes it', async () => {
    await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    const owner = await createUser(base);
    await page.goto(`${base}/console#/signin`);
    await page.fill('#signin-email', owner.email);
    await page.fill('#signin-password', owner.password);
    await page.click('#signin-submit');
    await page.waitForURL(/#\/apps$/);
    await page.goto(`${base}/console#/passkeys`);
    await page.click('#add-passkey');
    await page.waitForSelector('[data-passkey]');
    const rows = await server.services.database.db
      .selectFrom('passkeys')
      .select('id')
      .where('user_uuid', '=', Number(owner.uuid))
      .execute();
    expect(rows).toHaveLength(1);

    // Signed out, back in with the passkey alone.
    await page.evaluate('sessionStorage.clear()');
    await page.goto(`${base}/console#/signin`);
    await page.click('#signin-passkey');
    await page.waitForURL(/#\/apps$/);
    expect(await page.textContent('.who')).toContain(`account ${owner.uuid}`);

    await page.goto(`${base}/console#/passkeys`);
    await page.click(`[data-delete-passkey="${rows[0]!.id}"]`);
    await page.click('[data-confirm="yes"]');
    await page.waitForSelector('p#passkey-list');
    expect(
      await server.services.database.db
        .selectFrom('passkeys')
        .select('id')
        .where('user_uuid', '=', Number(owner.uuid))
        .execute(),
    ).toEqual([]);
  });

  it('console: a guest handed over to the console upgrades with e-mail and password, keeping its uuid', async () => {
    const guest = await post(`${base}/v1/dev-user/guest`, { client_id: client.clientId });
    const { token, uuid, guest_secret } = (await guest.json()) as {
      token: string;
      uuid: string;
      guest_secret: string;
    };
    await page.goto(`${base}/console#/signin`);
    const handedOver = JSON.stringify(JSON.stringify({ token, uuid, email: '' }));
    await page.evaluate(`sessionStorage.setItem('dauth.console.session', ${handedOver})`);
    await page.goto(`${base}/console#/passkeys`);
    const email = `console-guest-${Date.now()}@example.com`;
    await page.fill('#upgrade-email', email);
    await page.fill('#upgrade-password', 'correct horse battery');
    await page.click('#upgrade-submit');
    await page.waitForURL(/#\/account$/);
    expect(await page.textContent('.who')).toContain(email);
    const login = await post(`${base}/v1/dev-user/login_devuser`, {
      email,
      password: 'correct horse battery',
    });
    expect(((await login.json()) as { uuid: string }).uuid).toBe(uuid);
    const secret = await post(`${base}/v1/dev-user/guest/login`, { uuid, guest_secret });
    expect(secret.status).toBe(401);
  });
});
