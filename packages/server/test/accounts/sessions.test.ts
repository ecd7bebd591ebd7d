import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PageBrowser } from '../oauth/pageBrowser.js';
import {
  authorizeUrl,
  bearer,
  createClient,
  createUser,
  exchange,
  expectError,
  post,
  type TestUser,
  type TokenResult,
} from '../oauth/support.js';

/** The console's first-party binding: only its fresh login JWTs see and end the account's sessions. */
const CONSOLE = { clientId: 'dauth:console' };
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

interface Listed {
  id: string;
  kind: 'browser' | 'app';
  app: { client_id: string; name: string } | null;
  created_at: string;
  last_seen_at: string;
  device: string | null;
  user_agent: string | null;
  network: string | null;
}

/**
 * The account's sessions (decisions §9, docs/account.md "Sessions"): the Security page lists the login
 * page's browser sessions and the apps' grants with device, network and last use, and ends each; only
 * the console's fresh login JWT may.
 */
const backends = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(backends)('account sessions on %s', (backend) => {
  let server: TestServer;
  let dev: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ postgres: backend === 'postgres' });
    dev = await createUser(server.url);
  });
  afterAll(async () => server?.close());

  const call = (method: string, path: string, token: string) =>
    fetch(`${server.url}${path}`, { method, headers: bearer(token) });
  const list = async (token: string) => {
    const res = await call('GET', '/v1/dev-user/sessions', token);
    expect(res.status).toBe(200);
    return ((await res.json()) as { sessions: Listed[] }).sessions;
  };
  const refresh = (app: { clientId: string; clientSecret: string }, token: string) =>
    post(`${server.url}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });

  /** A user signed in on the login page in a Firefox browser, who approved an app that holds tokens. */
  async function signedInWithAnApp() {
    const user = await createUser(server.url, undefined, CONSOLE);
    const app = await createClient(server.url, dev, ['http://127.0.0.1:9/cb'], { name: 'Session game' });
    const browser = new PageBrowser(server.url, FIREFOX);
    const url = authorizeUrl(server.url, {
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: 'code',
    });
    const consent = await browser.signIn(url, user);
    expect(consent.status).toBe(200);
    const code = (await browser.allow(await consent.text())).searchParams.get('code')!;
    const first = (await (await exchange(server.url, app, code)).json()) as TokenResult;
    // One rotation: the grant's last use.
    const rotated = await refresh(app, first.refresh_token);
    expect(rotated.status).toBe(200);
    const tokens = (await rotated.json()) as TokenResult;
    return { user, app, browser, url, tokens };
  }

  it('lists the browser session and the app grant with device, network and last use', async () => {
    const before = Date.now();
    const { user, app } = await signedInWithAnApp();
    const sessions = await list(user.loginToken);
    expect(sessions.map((s) => s.kind).sort()).toEqual(['app', 'browser']);
    for (const s of sessions) {
      expect(s.device).toBe('Firefox on Linux');
      expect(s.user_agent).toBe(FIREFOX);
      expect(s.network).toBe('127.0.0.0/24');
      expect(Date.parse(s.created_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(s.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
    }
    const grant = sessions.find((s) => s.kind === 'app')!;
    expect(grant.app).toEqual({ client_id: app.clientId, name: 'Session game' });
    expect(Date.parse(grant.last_seen_at)).toBeGreaterThan(Date.parse(grant.created_at) - 1);
    // Nobody else's sessions show.
    const other = await createUser(server.url, undefined, CONSOLE);
    expect(await list(other.loginToken)).toEqual([]);
  });

  it("ending the app's grant stops its refresh and access tokens; ending the browser session signs it out", async () => {
    const { user, app, browser, url, tokens } = await signedInWithAnApp();
    const sessions = await list(user.loginToken);
    const grant = sessions.find((s) => s.kind === 'app')!;
    const page = sessions.find((s) => s.kind === 'browser')!;

    // Another account cannot end them, nor can an unknown id be ended.
    const other = await createUser(server.url, undefined, CONSOLE);
    for (const id of [grant.id, page.id, 'app_nothing', 'browser_nothing', 'x']) {
      await expectError(
        await call('DELETE', `/v1/dev-user/sessions/${id}`, other.loginToken),
        404,
        'session_not_found',
      );
    }
    expect((await list(user.loginToken)).length).toBe(2);

    const ended = await call('DELETE', `/v1/dev-user/sessions/${grant.id}`, user.loginToken);
    expect(ended.status).toBe(200);
    expect(await ended.json()).toEqual({ success: true, kind: 'app' });
    await expectError(await refresh(app, tokens.refresh_token), 400, 'invalid_grant');
    expect((await call('GET', '/v1/oauth/validate', tokens.access_token)).status).toBe(401);
    await expectError(
      await call('DELETE', `/v1/dev-user/sessions/${grant.id}`, user.loginToken),
      404,
      'session_not_found',
    );

    // The browser still holds its session: the app is authorized again without the sign-in form (a new grant).
    expect((await browser.get(url)).status).toBe(302);
    const signedOut = await call('DELETE', `/v1/dev-user/sessions/${page.id}`, user.loginToken);
    expect(await signedOut.json()).toEqual({ success: true, kind: 'browser' });
    const again = await browser.get(url);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('name="password"');
    // Left: only the grant that silent authorization opened before the sign-out.
    const left = await list(user.loginToken);
    expect(left.map((s) => s.kind)).toEqual(['app']);
    expect(left[0]!.id).not.toBe(grant.id);
  });

  it('a relayed unbound or app-bound login JWT neither lists nor ends sessions: 403 first_party_required', async () => {
    const { user, app } = await signedInWithAnApp();
    const unbound = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
    });
    const appBound = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
      client_id: app.clientId,
    });
    const sessions = await list(user.loginToken);
    for (const res of [unbound, appBound]) {
      const { token } = (await res.json()) as { token: string };
      await expectError(await call('GET', '/v1/dev-user/sessions', token), 403, 'first_party_required');
      for (const s of sessions) {
        await expectError(
          await call('DELETE', `/v1/dev-user/sessions/${s.id}`, token),
          403,
          'first_party_required',
        );
      }
    }
    expect(await list(user.loginToken)).toEqual(sessions);
  });

  it('lists each way in with its last use: the password as of its last sign-in', async () => {
    const user = await createUser(server.url, undefined, CONSOLE);
    const res = await call('GET', '/v1/dev-user/ways-in', user.loginToken);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      password: { set: boolean; last_used_at: string | null };
      passkeys: unknown[];
      identities: unknown[];
      totp: { enabled: boolean; recovery_codes_left: number };
    };
    expect(body.password.set).toBe(true);
    expect(Date.parse(body.password.last_used_at!)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.passkeys).toEqual([]);
    expect(body.identities).toEqual([]);
    expect(body.totp).toEqual({ enabled: false, recovery_codes_left: 0 });
  });
});
