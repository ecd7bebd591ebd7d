import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeUrl, bearer, createUser, exchange, post, type TestUser } from '../oauth/support.js';
import { authorizeAsBackend, createOidcClient, jwtPayload, type OidcTestClient } from './support.js';

/**
 * The OAuth 2.0 contract stays as it was, and the OpenID Connect parameters of the authorize
 * request (prompt, max_age, nonce) behave as OIDC Core §3.1.2.1 says. Over real HTTP.
 */
describe('OpenID Connect parameters and the unchanged OAuth 2.0 answer', () => {
  let server: TestServer;
  let user: TestUser;
  let app: OidcTestClient;
  let dapp: OidcTestClient;
  const redirectUri = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.url);
    app = await createOidcClient(server.url, user, [redirectUri]);
    dapp = await createOidcClient(server.url, user, [redirectUri], { dapp: true });
  });
  afterAll(() => server?.close());

  const url = (client: OidcTestClient, extra: Record<string, string> = {}) =>
    new URL(
      authorizeUrl(server.url, {
        client_id: client.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        state: 'st',
        ...extra,
      }),
    );

  it('answers a plain OAuth 2.0 exchange exactly as before: no id_token, same keys in the same order', async () => {
    const address = '0x00000000000000000000000000000000000000a1' as const;
    await server.services.wallets.insert({
      address,
      userUuid: Number(user.uuid),
      kind: 'main',
      salt: 0n,
      initialOwner: '0x000000000000000000000000000000000000dEaD',
      owner: '0x000000000000000000000000000000000000dEaD',
      deployed: false,
      createdAt: Date.now(),
    });
    const plainKeys = ['success', 'access_token', 'token_type', 'expires_in', 'user_id', 'refresh_token'];
    // No scope, and scopes without openid (a client that sends scope out of habit).
    for (const [client, extra, keys] of [
      [app, {}, plainKeys],
      [app, { scope: 'profile email offline_access' }, plainKeys],
      [app, { scope: 'openidx' }, plainKeys],
      [dapp, {}, [...plainKeys, 'content_address']],
    ] as const) {
      const code = (await authorizeAsBackend(url(client, extra), user)).searchParams.get('code')!;
      const res = await exchange(server.url, client, code);
      expect(res.status).toBe(200);
      const text = await res.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(keys);
      // Byte for byte: the answer is exactly these fields serialised in this order.
      expect(text).toBe(JSON.stringify(Object.fromEntries(keys.map((k) => [k, body[k]]))));
      expect(body).toMatchObject({
        success: true,
        token_type: 'Bearer',
        expires_in: 3600,
        user_id: user.uuid,
      });
      // Its access token carries no scope either.
      const access = JSON.parse(
        Buffer.from((body.access_token as string).split('.')[1]!, 'base64url').toString(),
      ) as Record<string, unknown>;
      expect(access).not.toHaveProperty('scope');

      const refreshed = await post(`${server.url}/oauth/token`, {
        grant_type: 'refresh_token',
        refresh_token: body.refresh_token,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      expect(Object.keys((await refreshed.json()) as object)).toEqual(keys);
    }
  });

  it('adds id_token only with openid, last, after every field of the plain answer', async () => {
    const code = (await authorizeAsBackend(url(dapp, { scope: 'openid' }), user)).searchParams.get('code')!;
    const body = (await (await exchange(server.url, dapp, code)).json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      'success',
      'access_token',
      'token_type',
      'expires_in',
      'user_id',
      'refresh_token',
      'content_address',
      'id_token',
    ]);
  });

  it('a refresh of an openid grant returns an id_token, also from the grace window of a concurrent refresh', async () => {
    const code = (
      await authorizeAsBackend(url(app, { scope: 'openid email', nonce: 'n1' }), user)
    ).searchParams.get('code')!;
    const first = (await (await exchange(server.url, app, code)).json()) as {
      refresh_token: string;
      id_token: string;
    };
    const refresh = () =>
      post(`${server.url}/oauth/token`, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      });
    // Two workers refresh the same token at once: one rotates, the other gets the same successor.
    const answers = (await Promise.all([refresh(), refresh()].map(async (r) => (await r).json()))) as {
      access_token: string;
      id_token: string;
    }[];
    expect(answers[0]!.access_token).toBe(answers[1]!.access_token);
    const decode = (t: string) =>
      JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const original = decode(first.id_token);
    for (const answer of answers) {
      const claims = decode(answer.id_token);
      expect(claims).toMatchObject({
        sub: user.uuid,
        aud: app.clientId,
        auth_time: original.auth_time,
        email: user.email,
      });
      expect(claims).not.toHaveProperty('nonce');
    }
  });

  it('prompt=none without a browser session sends login_required back to the app with state', async () => {
    const res = await fetch(url(app, { scope: 'openid', prompt: 'none' }), { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe('login_required');
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.has('code')).toBe(false);
    // Without prompt=none the same request shows the sign-in page instead.
    const page = await fetch(url(app, { scope: 'openid' }), { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign in to dauth');
  });

  it('the bearer path ignores prompt but enforces max_age against the login JWT', async () => {
    const code = (
      await authorizeAsBackend(url(app, { scope: 'openid', prompt: 'none' }), user)
    ).searchParams.get('code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(
      (await authorizeAsBackend(url(app, { scope: 'openid', max_age: '3600' }), user)).searchParams.has(
        'code',
      ),
    ).toBe(true);
    // The login JWT was issued at least a second ago by now: max_age=0 asks for a newer sign-in.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const stale = await authorizeAsBackend(url(app, { scope: 'openid', max_age: '0' }), user);
    expect(stale.searchParams.get('error')).toBe('login_required');
    expect(stale.searchParams.get('state')).toBe('st');
    expect(stale.searchParams.has('code')).toBe(false);
  });

  it("the bearer path checks max_age against the login JWT's auth_time (when a credential was proven), not its iat, and issues that auth_time", async () => {
    // A fresh JWT carrying an hour-old proof (a federated sign-in the upstream answered silently).
    const authTime = Math.floor(Date.now() / 1000) - 3600;
    const { token } = await server.services.tokens.issueLoginToken(user.uuid, {
      authTime,
      clientId: app.clientId,
      amr: ['fed'],
    });
    const authorize = async (extra: Record<string, string>) => {
      const res = await fetch(url(app, { scope: 'openid', ...extra }), {
        headers: bearer(token),
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      return new URL(res.headers.get('location')!);
    };
    const stale = await authorize({ max_age: '60' });
    expect(stale.searchParams.get('error')).toBe('login_required');
    expect(stale.searchParams.has('code')).toBe(false);

    const code = (await authorize({})).searchParams.get('code')!;
    const body = (await (await exchange(server.url, app, code)).json()) as { id_token: string };
    expect(jwtPayload(body.id_token).auth_time).toBe(authTime);
  });

  it('refuses malformed OpenID parameters back to the app with invalid_request', async () => {
    for (const extra of [
      { prompt: 'none login' },
      { prompt: 'select_account' },
      { max_age: '-1' },
      { max_age: 'soon' },
      { nonce: 'n'.repeat(513) },
    ] as Record<string, string>[]) {
      const res = await fetch(url(app, { scope: 'openid', ...extra }), {
        headers: bearer(user.loginToken),
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect([extra, location.searchParams.get('error')]).toEqual([extra, 'invalid_request']);
      expect(location.searchParams.get('state')).toBe('st');
    }
  });

  it('echoes the nonce exactly, including characters that need encoding', async () => {
    const nonce = 'n+/= ü&<>"\'';
    const code = (await authorizeAsBackend(url(app, { scope: 'openid', nonce }), user)).searchParams.get(
      'code',
    )!;
    const body = (await (await exchange(server.url, app, code)).json()) as { id_token: string };
    const claims = JSON.parse(Buffer.from(body.id_token.split('.')[1]!, 'base64url').toString()) as {
      nonce: string;
    };
    expect(claims.nonce).toBe(nonce);
  });

  it('validates post_logout_redirect_uris at registration like redirect URIs', async () => {
    const res = await post(
      `${server.url}/v1/dev-user/clients`,
      {
        name: 'x',
        redirect_uris: [redirectUri],
        post_logout_redirect_uris: ['https://app.example/bye#frag'],
      },
      bearer(user.loginToken),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid_redirect_uri',
      field: 'post_logout_redirect_uris',
    });
  });

  it('asks for confirmation before a logout without id_token_hint, and refuses a forged confirmation', async () => {
    const withApp = await createOidcClient(server.url, user, [redirectUri], {
      postLogoutRedirectUris: ['http://127.0.0.1:9/bye'],
    });
    const page = await fetch(
      `${server.url}/oauth/end_session?client_id=${withApp.clientId}&post_logout_redirect_uri=${encodeURIComponent('http://127.0.0.1:9/bye')}&state=s1`,
      { redirect: 'manual' },
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9");
    const html = await page.text();
    expect(html).toContain('Sign out of dauth?');
    expect(html).toContain('action="/oauth/end_session/confirm"');

    const forged = await fetch(`${server.url}/oauth/end_session/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: withApp.clientId, csrf_token: 'x' }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ error: 'invalid_csrf_token' });

    // An unregistered target is refused before any page is shown.
    const wrong = await fetch(
      `${server.url}/oauth/end_session?client_id=${withApp.clientId}&post_logout_redirect_uri=${encodeURIComponent('http://evil.example/')}`,
      { redirect: 'manual' },
    );
    expect(wrong.status).toBe(400);
  });
});
