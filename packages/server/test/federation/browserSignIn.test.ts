import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { type OidcUpstream, providerEntry, startOidcUpstream } from '../helpers/oidcUpstream.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeUrl,
  type CallbackServer,
  createClient,
  createUser,
  exchange,
  post,
  startCallbackServer,
  type TestClient,
  type TokenResult,
} from '../oauth/support.js';

/**
 * "Continue with …" in a real Chromium: an app's `/oauth/authorize` → dauth's login page → the
 * provider's button → a real OpenID Provider (oidc-provider from npm, its own login and consent pages)
 * → dauth's callback → the authorize request goes on (dauth's consent) → the app's callback with a code.
 * dauth is `localhost` and the provider `127.0.0.1`: two sites, so the flow cookie (SameSite=Lax) rides
 * the provider's cross-site redirect back as it would in production.
 */
describe.skipIf(!chromiumAvailable)('federated sign-in in Chromium through an oidc-provider upstream', () => {
  let server: TestServer;
  let base: string;
  let upstream: OidcUpstream;
  let callback: CallbackServer;
  let client: TestClient;
  let browser: TestBrowser;
  let other: TestBrowser;

  const identityCount = async () =>
    Number(
      (
        await server.services.database.db
          .selectFrom('federated_identities')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** At the provider: its login form (any name) and its consent, whichever it shows. */
  async function signInUpstream(page: Page, login: string): Promise<void> {
    await page.waitForURL((url) => url.origin === upstream.issuer);
    await page.waitForSelector('input[name="login"]');
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'anything');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    if (
      new URL(page.url()).origin === upstream.issuer &&
      (await page.locator('button[autofocus]').count()) > 0
    ) {
      await Promise.all([page.waitForNavigation(), page.click('button[autofocus]')]);
    }
  }

  beforeAll(async () => {
    const port = await freePort();
    const upstreamPort = await freePort();
    upstream = await startOidcUpstream({
      port: upstreamPort,
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
    callback = await startCallbackServer();
    const owner = await createUser(base);
    client = await createClient(base, owner, [callback.url()], { name: 'Federated Quest' });
    browser = await launchTestBrowser();
    other = await launchTestBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await other?.close();
    await callback?.close();
    await server?.close();
    await upstream?.close();
  });

  it('from the app through "Continue with Upstream ID" and the provider back to the app with a code', async () => {
    const page = await browser.context.newPage();
    const state = 'federated-state';
    await page.goto(
      authorizeUrl(base, {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        state,
      }),
    );
    expect(await page.textContent('#federation-upstream')).toBe('Continue with Upstream ID');
    await Promise.all([
      page.waitForURL((u) => u.origin === upstream.issuer),
      page.click('#federation-upstream'),
    ]);
    await signInUpstream(page, 'alice');

    // Back at dauth, signed in: the authorize request continues with dauth's consent for the app.
    await page.waitForSelector('#allow');
    expect(await page.textContent('h1')).toContain('Federated Quest');
    await Promise.all([page.waitForURL(`${callback.url()}?**`), page.click('#allow')]);
    const landed = callback.requests.at(-1)!.url;
    expect(landed.searchParams.get('state')).toBe(state);
    const tokens = await exchange(base, client, landed.searchParams.get('code')!);
    expect(tokens.status).toBe(200);
    const { user_id: userId } = (await tokens.json()) as TokenResult;

    // The account the first sign-in made: the upstream's verified e-mail, the identity (provider, sub).
    const identity = await server.services.database.db
      .selectFrom('federated_identities')
      .selectAll()
      .where('provider', '=', 'upstream')
      .where('subject', '=', 'alice')
      .executeTakeFirstOrThrow();
    expect(String(identity.user_uuid)).toBe(String(userId));
    expect((await server.services.users.findById(Number(userId)))?.email).toBe('alice@upstream.example');
    await page.close();
  });

  it('the console flow ends at /console with a one-time login ticket for a console-bound login JWT', async () => {
    const page = await other.context.newPage();
    // The console page itself is not under test: a stand-in keeps the URL (and its fragment) as it lands.
    await page.route(`${base}/console**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>console</title>' }),
    );
    await page.goto(`${base}/v1/federation/upstream/start?return_to=/console`);
    await signInUpstream(page, 'bob');
    await page.waitForURL((u) => u.pathname === '/console');
    const ticket = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('login_ticket');
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const redeemed = await post(`${base}/v1/federation/login-ticket`, { ticket });
    expect(redeemed.status).toBe(200);
    expect(await redeemed.json()).toMatchObject({ success: true, created: true });
    await page.close();
  });

  it('a callback opened in another browser than the one that started the flow is refused, nothing created', async () => {
    // Browser A starts and completes the upstream sign-in; its way back to dauth is caught, not followed.
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    let captured: string | undefined;
    // Playwright's routes skip a redirect's target, so the DevTools protocol's own interception catches
    // the provider's redirect back to dauth's callback before it is sent.
    const cdp = await browser.context.newCDPSession(page);
    cdp.on('Fetch.requestPaused', (event: { requestId: string; request: { url: string } }) => {
      captured = event.request.url;
      void cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'Aborted' });
    });
    await cdp.send('Fetch.enable', {
      patterns: [{ urlPattern: `${base}/v1/federation/upstream/callback*`, requestStage: 'Request' }],
    });
    await page.goto(
      authorizeUrl(base, {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
      }),
    );
    await page.click('#federation-upstream');
    await signInUpstream(page, 'mallory').catch(() => undefined); // its last navigation is aborted
    await expect.poll(() => captured, { timeout: 15_000 }).toBeDefined();
    expect(new URL(captured!).searchParams.get('code')).toBeTruthy();

    // Browser B opens that very callback (a valid code and state): refused, no account, no identity.
    const before = await identityCount();
    const victim = await other.context.newPage();
    const response = await victim.goto(captured!);
    expect(response!.status()).toBe(400);
    expect(await victim.textContent('#error-code')).toContain('flow_browser_mismatch');
    expect(await identityCount()).toBe(before);
    expect(
      await server.services.database.db
        .selectFrom('federated_identities')
        .select('id')
        .where('subject', '=', 'mallory')
        .execute(),
    ).toEqual([]);
    await page.close();
    await victim.close();
  });
});
