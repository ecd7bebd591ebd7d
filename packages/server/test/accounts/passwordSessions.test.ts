import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeUrl,
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
  post,
  type TestClient,
  type TestUser,
  type TokenResult,
} from '../oauth/support.js';

/**
 * Decisions §8: a password reset ends everything the old password opened (login JWTs, login-page
 * sessions, every app's refresh and access tokens); a change while signed in ends every other session
 * and keeps the login JWT that made it. The reset mail's link cannot be blocked by a stranger.
 */
const backends = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

/** The cookies a `Set-Cookie` list sets, as `name=value` pairs. */
const cookiesOf = (res: Response) =>
  Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(';')[0]!.split('=') as [string, string]));
const cookieHeader = (jar: Record<string, string>) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');

/** A browser of the login page: its cookie jar and the page's CSRF token. */
interface PageBrowser {
  jar: Record<string, string>;
  csrf: string;
}

describe.each(backends)('password reset and change end sessions on %s', (backend) => {
  let server: TestServer;
  let dev: TestUser;
  let app: TestClient;
  beforeAll(async () => {
    // Many resets from one loopback address: the per-address limit is not what this suite tests.
    server = await startTestServer({
      postgres: backend === 'postgres',
      env: { RATE_LIMITS: 'login_address=1000/1m,password_reset=1000/1m' },
    });
    dev = await createUser(server.url);
    app = await createClient(server.url, dev, ['http://127.0.0.1:9/cb']);
  });
  afterAll(async () => server?.close());

  const request = (extra: Record<string, string> = {}) => ({
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    response_type: 'code',
    state: 's1',
    ...extra,
  });

  /** Signs in on the login page and approves the app: the browser now holds a session cookie. */
  async function signInOnPage(user: TestUser): Promise<PageBrowser> {
    const first = await fetch(authorizeUrl(server.url, request()), { redirect: 'manual' });
    expect(first.status).toBe(200);
    const jar = cookiesOf(first);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await first.text())![1]!;
    const login = await fetch(`${server.url}/oauth/authorize/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
      body: new URLSearchParams({
        ...request(),
        csrf_token: csrf,
        email: user.email,
        password: user.password,
      }),
    });
    expect(login.status).toBe(303);
    Object.assign(jar, cookiesOf(login));
    expect(jar.dauth_session).toBeDefined();
    const browser = { jar, csrf };
    expect(await consent(browser)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return browser;
  }

  /** `POST /oauth/authorize/consent` allow: the code the redirect carries, or null. */
  async function consent(browser: PageBrowser): Promise<string | null> {
    const res = await fetch(`${server.url}/oauth/authorize/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(browser.jar) },
      body: new URLSearchParams({ ...request(), csrf_token: browser.csrf, decision: 'allow' }),
    });
    const location = res.headers.get('location');
    if (res.status !== 303 || !location?.startsWith(app.redirectUri)) return null;
    return new URL(location).searchParams.get('code');
  }

  /** `GET /oauth/authorize` with `prompt=none`: the redirect's `code`, or its `error`. */
  async function silentAuthorize(
    browser: PageBrowser,
  ): Promise<{ code: string | null; error: string | null }> {
    const res = await fetch(authorizeUrl(server.url, request({ scope: 'openid', prompt: 'none' })), {
      redirect: 'manual',
      headers: { cookie: cookieHeader(browser.jar) },
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    return { code: location.searchParams.get('code'), error: location.searchParams.get('error') };
  }

  const refresh = (token: string) =>
    post(`${server.url}/oauth/token`, {
      grant_type: 'refresh_token',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      refresh_token: token,
    });
  /** An access token at `/v1/oauth/validate`. */
  const validate = async (token: string) =>
    (await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(token) })).status;
  /** A login JWT at a route that takes one. */
  const signedIn = async (token: string) =>
    (await fetch(`${server.url}/v1/dev-user/clients`, { headers: bearer(token) })).status;

  async function appTokens(user: TestUser): Promise<TokenResult> {
    const res = await exchange(server.url, app, (await authorizeWithBearer(server.url, user, app)).code);
    expect(res.status).toBe(200);
    return (await res.json()) as TokenResult;
  }

  /** The code and link token of the newest reset mail to `email` (the embedded mailer writes .eml files). */
  async function resetMail(email: string): Promise<{ code: string; link: string }> {
    const { text } = await waitForMail(server.dataDir, email, { includes: 'reset code' });
    return {
      code: /reset code is (\d{8})/.exec(text)![1]!,
      link: /#\/reset\/confirm\?email=[^&\s]+&code=([A-Za-z0-9_-]+)/.exec(text)![1]!,
    };
  }

  async function resetPassword(user: TestUser, newPassword: string): Promise<void> {
    expect(
      (await post(`${server.url}/v1/dev-user/password/reset-request`, { email: user.email })).status,
    ).toBe(200);
    const { code } = await resetMail(user.email);
    const res = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code,
      new_password: newPassword,
    });
    expect(res.status).toBe(200);
  }

  it('a reset ends the login-page session: the old cookie gets no code from the consent form or prompt=none', async () => {
    const user = await createUser(server.url);
    const browser = await signInOnPage(user);
    // Before: the session answers silently and through the consent form.
    expect((await silentAuthorize(browser)).code).not.toBeNull();
    expect(await consent(browser)).not.toBeNull();

    await resetPassword(user, 'a brand new passphrase');

    expect(await silentAuthorize(browser)).toEqual({ code: null, error: 'login_required' });
    expect(await consent(browser)).toBeNull();
    expect(await signedIn(user.loginToken)).toBe(401);
  });

  it('a reset revokes every refresh token of the account and the access tokens they minted', async () => {
    const user = await createUser(server.url);
    const first = await appTokens(user);
    const second = await appTokens(user);
    expect(await validate(first.access_token)).toBe(200);

    await resetPassword(user, 'another new passphrase');

    for (const tokens of [first, second]) {
      expect(await validate(tokens.access_token)).toBe(401);
      const res = await refresh(tokens.refresh_token);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    }
    // Another user's tokens are untouched.
    const other = await appTokens(dev);
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it('a change while signed in keeps the login JWT that made it and ends every other session', async () => {
    const user = await createUser(server.url);
    const browser = await signInOnPage(user);
    const tokens = await appTokens(user);
    const other = (await (
      await post(`${server.url}/v1/dev-user/login_devuser`, { email: user.email, password: user.password })
    ).json()) as { token: string };

    const res = await post(
      `${server.url}/v1/dev-user/password`,
      { current_password: user.password, new_password: 'changed passphrase' },
      bearer(user.loginToken),
    );
    expect(res.status).toBe(200);

    // The current session goes on.
    expect(await signedIn(user.loginToken)).toBe(200);
    // Every other one ended: the second login JWT, the login page's cookie, the app's tokens.
    expect(await signedIn(other.token)).toBe(401);
    expect(await silentAuthorize(browser)).toEqual({ code: null, error: 'login_required' });
    expect(await validate(tokens.access_token)).toBe(401);
    expect((await refresh(tokens.refresh_token)).status).toBe(400);

    // A later reset ends the kept session too.
    await resetPassword({ ...user, password: 'changed passphrase' }, 'reset after change');
    expect(await signedIn(user.loginToken)).toBe(401);
  });

  it('a stranger who knows the address cannot block the reset: wrong guesses and extra requests leave the mailed link working', async () => {
    const user = await createUser(server.url);
    expect(
      (await post(`${server.url}/v1/dev-user/password/reset-request`, { email: user.email })).status,
    ).toBe(200);
    const mail = await resetMail(user.email);
    expect(mail.link).toMatch(/^[A-Za-z0-9_-]{32}$/);

    // The attacker requests more mails (dropped within the resend interval) and burns the code.
    for (let i = 0; i < 3; i++) {
      await post(`${server.url}/v1/dev-user/password/reset-request`, { email: user.email });
    }
    let burned = false;
    for (let i = 0; i < 6; i++) {
      const guess = await post(`${server.url}/v1/dev-user/password/reset`, {
        email: user.email,
        code: String(10_000_000 + i),
        new_password: 'attacker passphrase',
      });
      expect([400, 429]).toContain(guess.status);
      if (guess.status === 429) burned = true;
    }
    expect(burned).toBe(true);
    // The code itself is dead now…
    const byCode = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code: mail.code,
      new_password: 'owner passphrase',
    });
    expect(byCode.status).toBe(429);
    // …a wrong link token costs nothing and changes nothing…
    const forged = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code: 'A'.repeat(32),
      new_password: 'attacker passphrase',
    });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ success: false, error: 'invalid_reset_code' });
    // …and the owner's link still works, once.
    const owner = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code: mail.link,
      new_password: 'owner passphrase',
    });
    expect(owner.status).toBe(200);
    const again = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code: mail.link,
      new_password: 'second use',
    });
    expect(again.status).toBe(400);
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: 'owner passphrase',
    });
    expect(login.status).toBe(200);
  });
});
