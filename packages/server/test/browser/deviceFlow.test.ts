import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, createUser, type TestUser } from '../oauth/support.js';
import { createOidcClient, discover, type OidcTestClient } from '../oidc/support.js';

/**
 * A console signs in with the device authorization grant (RFC 8628): openid-client's own device
 * functions, unchanged, on the console; the player on the `/device` page in a real Chromium (sign in,
 * check the code, allow or deny).
 */
describe.skipIf(!chromiumAvailable)(
  'device authorization grant on the /device page in a real Chromium',
  () => {
    let server: TestServer;
    let user: TestUser;
    let app: OidcTestClient;
    let config: client.Configuration;
    let browser: TestBrowser;

    beforeAll(async () => {
      server = await startTestServer({ env: { DEVICE_CODE_INTERVAL_SECONDS: '1' } });
      user = await createUser(server.url);
      app = await createOidcClient(server.url, user, ['http://127.0.0.1:9/callback'], {
        name: 'Space Console',
      });
      config = await discover(server.url, app);
      browser = await launchTestBrowser();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    const text = async (selector: string, page: Awaited<ReturnType<TestBrowser['context']['newPage']>>) =>
      (await page.textContent(selector))!.replace(/\s+/g, ' ');

    it('pending, then approved on the page: the console gets an id_token for the player and a working refresh token', async () => {
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile email' });
      const polling = client.pollDeviceAuthorizationGrant(config, started);
      const page = await browser.context.newPage();

      // The TV shows verification_uri_complete as a QR code; the phone opens it and lands on sign-in.
      await page.goto(started.verification_uri_complete!);
      expect(new URL(page.url()).pathname).toBe('/oauth/device');
      expect(await text('h1', page)).toContain('Sign in to dauth');
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      const signedInAt = Math.floor(Date.now() / 1000);
      await Promise.all([page.waitForURL(`${server.url}/oauth/device?user_code=*`), page.click('#sign-in')]);

      // Confirm: the code, the app's name, what it receives, whose account.
      expect(await text('h1', page)).toContain('Connect Space Console?');
      expect(await text('#shown-code', page)).toBe(started.user_code);
      const main = await text('main', page);
      expect(main).toContain('your user id, your e-mail address, your name, and tokens');
      expect(main).toContain(`Signed in as ${user.email}`);
      await Promise.all([page.waitForURL(`${server.url}/oauth/device/decision`), page.click('#allow')]);
      expect(await text('#done', page)).toBe('Device connected');

      const tokens = await polling;
      const claims = tokens.claims()!;
      expect(claims).toMatchObject({ iss: server.url, aud: app.clientId, sub: user.uuid, email: user.email });
      expect(claims.name).toBe(user.nickname);
      // auth_time: the sign-in on the page.
      expect(Math.abs(Number(claims.auth_time) - signedInAt)).toBeLessThanOrEqual(2);
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(refreshed.claims()!.sub).toBe(user.uuid);

      // The approval recorded the consent like the code flow's page does.
      const consents = (await (
        await fetch(`${server.url}/v1/dev-user/consents`, { headers: bearer(user.loginToken) })
      ).json()) as { consents: { client_id: string }[] };
      expect(consents.consents.map((c) => c.client_id)).toContain(app.clientId);
      await page.close();
    });

    it('the code typed by hand (any case, no dash), then denied: access_denied; a wrong code says so', async () => {
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
      // Its refusal may come while the page is still being driven: handled from the start, not unhandled.
      const polling = client.pollDeviceAuthorizationGrant(config, started).then(
        () => ({ error: 'granted' }),
        (err: unknown) => err,
      );
      const page = await browser.context.newPage();

      // Still signed in from the first test: the page asks for the code.
      await page.goto(started.verification_uri);
      expect(await text('h1', page)).toBe('Connect a device');
      await page.fill('#user_code', 'BCDF-GHJK');
      await Promise.all([page.waitForURL(`${server.url}/oauth/device?user_code=*`), page.click('#continue')]);
      expect(await text('[role=alert]', page)).toContain('This code is wrong or has expired');

      await page.fill('#user_code', started.user_code.toLowerCase().replace('-', ''));
      await Promise.all([page.waitForURL(`${server.url}/oauth/device?user_code=*`), page.click('#continue')]);
      expect(await text('#shown-code', page)).toBe(started.user_code);
      await Promise.all([page.waitForURL(`${server.url}/oauth/device/decision`), page.click('#deny')]);
      expect(await text('#done', page)).toBe('Device not connected');
      expect(await polling).toMatchObject({ error: 'access_denied' });
      await page.close();
    });
  },
);
