import * as client from 'openid-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import {
  bearer,
  type CallbackServer,
  createUser,
  startCallbackServer,
  type TestUser,
} from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stepNow, totpCode, totpSecretOf, wrongCode } from '../helpers/totp.js';
import { createOidcClient, discover, type OidcTestClient, startAuthorization } from '../oidc/support.js';

/** The console's first-party binding: only its fresh login JWTs enrol a second factor over the API. */
const CONSOLE = { clientId: 'dauth:console' };

/**
 * The second factor on the login page and the device page (issue 37, docs/mfa.md "The pages"), and
 * `acr`/`amr` through OpenID Connect (docs/oidc.md): a real dauth, a real Chromium, openid-client as the
 * app, codes computed by an RFC 6238 implementation of the test's own.
 */
describe.skipIf(!chromiumAvailable)('second factor on the login page in a real Chromium', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let owner: TestUser;
  let app: OidcTestClient;
  let config: client.Configuration;
  let browser: TestBrowser;
  let context: BrowserContext;

  beforeAll(async () => {
    server = await startTestServer({ env: { DEVICE_CODE_INTERVAL_SECONDS: '1' } });
    callback = await startCallbackServer();
    owner = await createUser(server.url);
    app = await createOidcClient(server.url, owner, [callback.url()], { name: 'Space Game' });
    config = await discover(server.url, app);
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

  const api = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  /** TOTP turned on over the API (a fresh console login JWT); codes after `step` are still unused. */
  async function enrolTotp(user: TestUser): Promise<{ secret: Buffer; step: number }> {
    const started = await api('POST', '/v1/dev-user/mfa/totp', user.loginToken);
    expect(started.status).toBe(201);
    const secret = totpSecretOf(started.body.otpauth_uri as string);
    const step = stepNow();
    const confirmed = await api('POST', '/v1/dev-user/mfa/totp/confirm', user.loginToken, {
      code: totpCode(secret, step),
    });
    expect(confirmed.status).toBe(200);
    return { secret, step };
  }

  /** A code of a later step than every one used (each step's code is accepted once). */
  const nextCode = (secret: Buffer, used: { step: number }) => {
    used.step = Math.max(used.step + 1, stepNow());
    return totpCode(secret, used.step);
  };

  const sessionCookie = async () =>
    (await context.cookies(`${server.url}/oauth/authorize`)).find((c) => c.name === 'dauth_session');

  async function password(page: Page, user: TestUser) {
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([page.waitForLoadState('load'), page.click('#sign-in')]);
  }

  /** Types the code and presses Enter (the form's submit), waiting for the answer's page. */
  async function enterCode(page: Page, code: string) {
    await page.fill('#code', code);
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/mfa')),
      page.press('#code', 'Enter'),
    ]);
    await page.waitForLoadState('load');
  }

  /** Allows the app and lets openid-client take the code to the token endpoint. */
  async function allowAndExchange(page: Page, start: Awaited<ReturnType<typeof startAuthorization>>) {
    await Promise.all([page.waitForURL(`${callback.url()}?**`), page.click('#allow')]);
    return client.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: start.verifier,
      expectedNonce: start.nonce,
      expectedState: start.state,
    });
  }

  it('discovery lists acr_values_supported ["mfa"] and keeps the other fields', () => {
    const meta = config.serverMetadata();
    expect(meta.acr_values_supported).toEqual(['mfa']);
    expect(meta.prompt_values_supported).toEqual(['none', 'login', 'consent']);
    expect(meta.claims_supported).toEqual(expect.arrayContaining(['auth_time', 'acr', 'amr']));
  });

  it('an account with TOTP: the password alone opens no session and issues no code; the code step does (amr pwd otp mfa, acr mfa, in the id_token and introspection)', async () => {
    const user = await createUser(server.url, undefined, CONSOLE);
    const totp = await enrolTotp(user);
    const start = await startAuthorization(config, callback.url());
    const page = await context.newPage();
    await page.goto(start.url.href);
    const signedInAt = Math.floor(Date.now() / 1000);
    await password(page, user);

    // The second step, not the consent page: no session yet, nothing at the app.
    expect(await page.textContent('h1')).toBe('Enter your code');
    expect(await sessionCookie()).toBeUndefined();
    expect(callback.requests).toHaveLength(0);
    const mfaCookie = (await context.cookies(`${server.url}/oauth/authorize`)).find(
      (c) => c.name === 'dauth_mfa',
    );
    expect(mfaCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // Keyboard and assistive technology: the label names the field, one-time-code autofill, digits.
    const field = page.getByLabel('Authentication code');
    expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await field.getAttribute('inputmode')).toBe('numeric');
    expect(await page.locator('#code').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);

    // A wrong code: the step again, the error tied to the field.
    await enterCode(page, wrongCode(totp.secret));
    expect(await page.textContent('#code-error')).toContain('wrong');
    expect(await page.getAttribute('#code', 'aria-describedby')).toContain('code-error');
    expect(await page.getAttribute('#code', 'aria-invalid')).toBe('true');
    expect(await sessionCookie()).toBeUndefined();

    await enterCode(page, nextCode(totp.secret, totp));
    expect(await sessionCookie()).toBeDefined();
    expect(await page.textContent('h1')).toContain('Allow');
    const tokens = await allowAndExchange(page, start);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.uuid);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe('mfa');
    // auth_time: the password step, not the code's.
    expect(Math.abs(Number(claims.auth_time) - signedInAt)).toBeLessThanOrEqual(2);

    const introspected = await client.tokenIntrospection(config, tokens.access_token);
    expect(introspected).toMatchObject({ active: true, acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    // A refresh's id_token keeps how the sign-in was proved, like auth_time.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()).toMatchObject({ acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    await page.close();
  });

  it('5 wrong codes end the step: back to the password form, the right code then opens nothing', async () => {
    const user = await createUser(server.url, undefined, CONSOLE);
    const totp = await enrolTotp(user);
    const start = await startAuthorization(config, callback.url());
    const page = await context.newPage();
    await page.goto(start.url.href);
    await password(page, user);
    for (let i = 0; i < 4; i++) {
      await enterCode(page, wrongCode(totp.secret));
      expect(await page.textContent('#code-error')).toContain('wrong');
    }
    await enterCode(page, wrongCode(totp.secret));
    expect(await page.textContent('h1')).toBe('Sign in to dauth');
    expect(await page.textContent('[role=alert]')).toContain('Too many wrong codes');
    expect(await sessionCookie()).toBeUndefined();

    // The ended step's cookie is gone; replaying the form with the right code finds no step.
    const csrf = await page.inputValue('input[name=csrf_token]');
    const fields = Object.fromEntries(new URL(start.url.href).searchParams);
    const replay = await page.request.post(`${server.url}/oauth/authorize/mfa`, {
      form: { ...fields, csrf_token: csrf, code: nextCode(totp.secret, totp) },
    });
    expect(replay.status()).toBe(401);
    expect(await sessionCookie()).toBeUndefined();
    expect(callback.requests).toHaveLength(0);
    await page.close();
  });

  it('acr_values=mfa steps a one-factor session up: the code, then acr mfa; without it, amr pwd and no acr', async () => {
    const user = await createUser(server.url, undefined, CONSOLE);
    const page = await context.newPage();
    // Signed in on the page before TOTP was on: a one-factor session.
    const first = await startAuthorization(config, callback.url());
    await page.goto(first.url.href);
    await password(page, user);
    const plain = await allowAndExchange(page, first);
    expect(plain.claims()!.amr).toEqual(['pwd']);
    expect(plain.claims()!.acr).toBeUndefined();
    expect(await client.tokenIntrospection(config, plain.access_token)).toMatchObject({ amr: ['pwd'] });

    const totp = await enrolTotp(user);
    const start = await startAuthorization(config, callback.url(), { acr_values: 'mfa' });
    await page.goto(start.url.href);
    expect(await page.textContent('h1')).toBe('Enter your code');
    await enterCode(page, nextCode(totp.secret, totp));
    // Approved before: the code goes to the app at once.
    await page.waitForURL(`${callback.url()}?**`);
    const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: start.verifier,
      expectedNonce: start.nonce,
      expectedState: start.state,
    });
    const claims = tokens.claims()!;
    expect(claims.acr).toBe('mfa');
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));

    // An acr_values dauth does not know is ignored (a voluntary claim): the code at once.
    const other = await startAuthorization(config, callback.url(), { acr_values: 'urn:example:gold' });
    await page.goto(other.url.href);
    expect(page.url()).toMatch(new RegExp(`^${callback.url()}\\?code=`));
    await page.close();
  });

  it("an app's require_mfa makes an account without a second factor enrol on the page (QR, URI, recovery codes), then the code is issued", async () => {
    const strictOwner = await createUser(server.url);
    const strict = await createOidcClient(server.url, strictOwner, [callback.url()], { name: 'Strict' });
    const patched = await api('PATCH', `/v1/dev-user/clients/${strict.clientId}`, strictOwner.loginToken, {
      require_mfa: true,
    });
    expect(patched.status).toBe(200);
    expect((patched.body.client as Record<string, unknown>).require_mfa).toBe(true);
    const listed = await api('GET', '/v1/dev-user/clients', strictOwner.loginToken);
    expect((listed.body.clients as Record<string, unknown>[])[0]!.require_mfa).toBe(true);
    const strictConfig = await discover(server.url, strict);

    const user = await createUser(server.url);
    const start = await startAuthorization(strictConfig, callback.url());
    const page = await context.newPage();
    await page.goto(start.url.href);
    await password(page, user);
    expect(await page.textContent('h1')).toBe('Add a second factor');
    expect(await page.locator('.qr svg').count()).toBe(1);
    const uri = (await page.textContent('#otpauth-uri'))!.trim();
    const secret = totpSecretOf(uri);

    // A wrong code shows the same secret again (a scanned code stays good), from the form's marker.
    await enterCode(page, wrongCode(secret));
    expect(await page.textContent('#code-error')).toContain('wrong');
    expect((await page.textContent('#otpauth-uri'))!.trim()).toBe(uri);
    await enterCode(page, totpCode(secret, stepNow()));
    expect(await page.textContent('h1')).toBe('Save your recovery codes');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await Promise.all([page.waitForLoadState('load'), page.click('#continue')]);
    await Promise.all([page.waitForURL(`${callback.url()}?**`), page.click('#allow')]);
    const tokens = await client.authorizationCodeGrant(strictConfig, new URL(page.url()), {
      pkceCodeVerifier: start.verifier,
      expectedNonce: start.nonce,
      expectedState: start.state,
    });
    expect(tokens.claims()).toMatchObject({ acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    const status = await api('GET', '/v1/dev-user/mfa', user.loginToken);
    expect(status.body).toMatchObject({ totp: true, recovery_codes_left: 10 });
    await page.close();
  });

  it('the page never shows (nor confirms) a pending secret made elsewhere: another browser with the password enrolled first (issue 37)', async () => {
    const user = await createUser(server.url, undefined, CONSOLE);
    // "Another browser" (the attacker with the password) leaves a pending secret and does not confirm it.
    const planted = await api('POST', '/v1/dev-user/mfa/totp', user.loginToken);
    expect(planted.status).toBe(201);
    const plantedSecret = totpSecretOf(planted.body.otpauth_uri as string);

    const start = await startAuthorization(config, callback.url(), { acr_values: 'mfa' });
    const page = await context.newPage();
    await page.goto(start.url.href);
    await password(page, user);
    expect(await page.textContent('h1')).toBe('Add a second factor');
    const uri = (await page.textContent('#otpauth-uri'))!.trim();
    expect(uri).not.toContain(planted.body.secret as string);
    const secret = totpSecretOf(uri);
    expect(secret.equals(plantedSecret)).toBe(false);
    // A reload is a new visit: a new secret again (only the form's marker shows one twice).
    await page.reload();
    const reloaded = (await page.textContent('#otpauth-uri'))!.trim();
    expect(reloaded).not.toBe(uri);

    // A code of the planted secret does not confirm on the page.
    await enterCode(page, totpCode(plantedSecret, stepNow()));
    expect(await page.textContent('h1')).toBe('Add a second factor');
    expect(await page.textContent('#code-error')).toContain('wrong');
    expect((await api('GET', '/v1/dev-user/mfa', user.loginToken)).body).toMatchObject({ totp: false });

    // The attacker replaces the pending secret while the page shows its own: the page's code of its own
    // secret does not confirm the attacker's either; the page starts over with a new secret.
    const shown = totpSecretOf(reloaded);
    const replaced = await api('POST', '/v1/dev-user/mfa/totp', user.loginToken);
    const replacedSecret = totpSecretOf(replaced.body.otpauth_uri as string);
    await enterCode(page, totpCode(replacedSecret, stepNow()));
    expect(await page.textContent('h1')).toBe('Add a second factor');
    expect((await api('GET', '/v1/dev-user/mfa', user.loginToken)).body).toMatchObject({ totp: false });
    const fresh = totpSecretOf((await page.textContent('#otpauth-uri'))!.trim());
    expect(fresh.equals(replacedSecret) || fresh.equals(shown)).toBe(false);

    // The page's own secret confirms.
    await enterCode(page, totpCode(fresh, stepNow()));
    expect(await page.textContent('h1')).toBe('Save your recovery codes');
    await page.close();
  });

  it('the device page: an account with TOTP gets the code step before its session, then connects the device (acr mfa)', async () => {
    const user = await createUser(server.url, undefined, CONSOLE);
    const totp = await enrolTotp(user);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polling = client.pollDeviceAuthorizationGrant(config, started);
    const page = await context.newPage();
    await page.goto(started.verification_uri_complete!);
    await password(page, user);
    expect(await page.textContent('h1')).toBe('Enter your code');
    expect(await sessionCookie()).toBeUndefined();
    await enterCode(page, nextCode(totp.secret, totp));
    expect(await page.textContent('#shown-code')).toBe(started.user_code);
    await Promise.all([page.waitForURL(`${server.url}/oauth/device/decision`), page.click('#allow')]);
    const tokens = await polling;
    expect(tokens.claims()).toMatchObject({ sub: user.uuid, acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    await page.close();
  });
});
