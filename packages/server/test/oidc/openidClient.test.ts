import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, createUser, exchange, post, type TestUser } from '../oauth/support.js';
import {
  authorizeAsBackend,
  boundLoginToken,
  createOidcClient,
  discover,
  jwtPayload,
  type OidcTestClient,
  rejection,
  startAuthorization,
} from './support.js';

/**
 * openid-client (panva), unchanged, against a live dauth: discovery, the code flow with PKCE and a
 * nonce, the library's own ID token checks, userinfo, refresh and the end-session URL; and the
 * library refusing a wrong nonce, an expired ID token and one issued for another app.
 */
describe.each([{ postgres: false }, { postgres: true }])(
  'openid-client against dauth (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let user: TestUser;
    let app: OidcTestClient;
    let other: OidcTestClient;
    let config: client.Configuration;
    const redirectUri = 'http://127.0.0.1:9/callback';
    const loggedOutUri = 'http://127.0.0.1:9/logged-out';

    beforeAll(async () => {
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
      user = await createUser(server.url);
      app = await createOidcClient(server.url, user, [redirectUri], {
        postLogoutRedirectUris: [loggedOutUri],
      });
      other = await createOidcClient(server.url, user, [redirectUri]);
      config = await discover(server.url, app);
    });
    afterAll(() => server?.close());

    /** The library's code grant for a started authorization, approved as the user's backend would. */
    async function signIn(cfg: client.Configuration, start: Awaited<ReturnType<typeof startAuthorization>>) {
      return client.authorizationCodeGrant(cfg, await authorizeAsBackend(start.url, user), {
        pkceCodeVerifier: start.verifier,
        expectedNonce: start.nonce,
        expectedState: start.state,
      });
    }

    const live = (ctx: { skip: () => void }) => {
      if (!server) ctx.skip();
    };

    /** A configuration of the same app whose token answers pass through `rewrite` first. */
    async function tamperedConfig(
      rewrite: (body: Record<string, unknown>) => Promise<Record<string, unknown>>,
    ): Promise<client.Configuration> {
      const tampered = await discover(server.url, app);
      tampered[client.customFetch] = async (url, options) => {
        const res = await fetch(url, options as RequestInit);
        if (!url.endsWith('/oauth/token') || res.status !== 200) return res;
        const body = await rewrite((await res.json()) as Record<string, unknown>);
        return new Response(JSON.stringify(body), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      };
      return tampered;
    }

    it('discovers the provider: endpoints, ES256, scopes, claims, consistent with RFC 8414', async (ctx) => {
      live(ctx);
      const issuer = server.config.publicUrl;
      const meta = config.serverMetadata();
      expect(meta).toMatchObject({
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/oauth/token`,
        device_authorization_endpoint: `${issuer}/oauth/device_authorization`,
        userinfo_endpoint: `${issuer}/oauth/userinfo`,
        end_session_endpoint: `${issuer}/oauth/end_session`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
        code_challenge_methods_supported: ['S256'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'urn:ietf:params:oauth:grant-type:device_code',
          'client_credentials',
        ],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
      expect(meta.scopes_supported).toEqual(
        expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']),
      );
      expect(meta.claims_supported).toEqual(
        expect.arrayContaining(['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'name']),
      );
      // Every field the RFC 8414 document has, the OpenID one has with the same value.
      const rfc8414 = (await (
        await fetch(`${issuer}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      for (const [key, value] of Object.entries(rfc8414)) expect([key, meta[key]]).toEqual([key, value]);
    });

    it('signs a user in: code + PKCE + nonce, ID token checked by the library, userinfo, refresh', async (ctx) => {
      live(ctx);
      const start = await startAuthorization(config, redirectUri, {
        scope: 'openid profile email offline_access',
      });
      const callback = await authorizeAsBackend(start.url, user);
      expect(callback.searchParams.get('state')).toBe(start.state);

      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: start.verifier,
        expectedNonce: start.nonce,
        expectedState: start.state,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      // The ID token's auth_time is the sign-in's: the login JWT's own auth_time (when the password was
      // checked), which is its iat or, when the hashing straddled a second, the second before.
      const loginAuthTime = jwtPayload(await boundLoginToken(server.url, user, app.clientId))
        .auth_time as number;
      expect(claims).toMatchObject({
        iss: server.config.publicUrl,
        sub: user.uuid,
        aud: app.clientId,
        nonce: start.nonce,
        auth_time: loginAuthTime,
        email: user.email,
        email_verified: false,
        name: user.nickname,
      });
      expect(claims.exp - claims.iat).toBe(3600);
      expect(typeof jwtPayload(tokens.id_token!).at_hash).toBe('string');
      // The header names the published key.
      const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as {
        alg: string;
        kid: string;
      };
      const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as {
        keys: { kid: string }[];
      };
      expect(header.alg).toBe('ES256');
      expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);

      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      expect(info).toEqual({ sub: user.uuid, name: user.nickname, email: user.email, email_verified: false });

      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      const again = refreshed.claims()!;
      expect(again).toMatchObject({
        iss: claims.iss,
        sub: claims.sub,
        aud: claims.aud,
        auth_time: claims.auth_time,
      });
      // OIDC Core §12.2: a refreshed ID token keeps auth_time and carries no nonce.
      expect(again).not.toHaveProperty('nonce');
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect((await client.fetchUserInfo(config, refreshed.access_token, claims.sub)).sub).toBe(user.uuid);
    });

    it('releases only what the scope asks: openid alone gives sub; wallet gives wallet_address', async (ctx) => {
      live(ctx);
      const start = await startAuthorization(config, redirectUri, { scope: 'openid wallet unknown_scope' });
      const tokens = await signIn(config, start);
      const claims = tokens.claims()!;
      expect(claims).not.toHaveProperty('email');
      expect(claims).not.toHaveProperty('name');
      expect(await client.fetchUserInfo(config, tokens.access_token, user.uuid)).toEqual({ sub: user.uuid });

      const address = '0x1234567890AbcdEF1234567890aBcdef12345678' as const;
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
      expect(await client.fetchUserInfo(config, tokens.access_token, user.uuid)).toEqual({
        sub: user.uuid,
        wallet_address: address,
      });
    });

    it('the library rejects a wrong nonce', async (ctx) => {
      live(ctx);
      const start = await startAuthorization(config, redirectUri);
      const callback = await authorizeAsBackend(start.url, user);
      expect(
        await rejection(
          client.authorizationCodeGrant(config, callback, {
            pkceCodeVerifier: start.verifier,
            expectedNonce: client.randomNonce(),
            expectedState: start.state,
          }),
        ),
      ).toEqual({ code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', claim: 'nonce' });
    });

    it('the library rejects an expired ID token (signed with the service key, exp in the past)', async (ctx) => {
      live(ctx);
      const start = await startAuthorization(config, redirectUri);
      const expired = await tamperedConfig(async (body) => ({
        ...body,
        id_token: await server.services.oidc.idTokens.issue({
          userUuid: Number(user.uuid),
          clientId: app.clientId,
          grant: { scope: 'openid', nonce: start.nonce, authTime: Date.now() - 7200_000 },
          accessToken: body.access_token as string,
          ttlSeconds: -3600,
        }),
      }));
      expect(await rejection(signIn(expired, start))).toEqual({
        code: 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
        claim: 'exp',
      });
    });

    it('the library rejects an ID token issued for another app', async (ctx) => {
      live(ctx);
      const start = await startAuthorization(config, redirectUri);
      const foreign = await tamperedConfig(async (body) => ({
        ...body,
        id_token: await server.services.oidc.idTokens.issue({
          userUuid: Number(user.uuid),
          clientId: other.clientId,
          grant: { scope: 'openid', nonce: start.nonce, authTime: Date.now() },
          accessToken: body.access_token as string,
        }),
      }));
      expect(await rejection(signIn(foreign, start))).toEqual({
        code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
        claim: 'aud',
      });
    });

    it('the library rejects an ID token when its clock is past exp (clockSkew)', async (ctx) => {
      live(ctx);
      // The library's clock two hours ahead of the server's: the fresh token reads as expired.
      const late = await discover(server.url, app, { [client.clockSkew]: 2 * 3600 });
      const start = await startAuthorization(late, redirectUri);
      expect(await rejection(signIn(late, start))).toEqual({
        code: 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
        claim: 'exp',
      });
    });

    it('ends the session: the library’s end-session URL returns to the registered URI with state and logs the app out', async (ctx) => {
      live(ctx);
      const start = await startAuthorization(config, redirectUri);
      const tokens = await signIn(config, start);
      const status = await post(
        `${server.url}/v1/oauth/status/login`,
        { user_id: user.uuid, client_id: app.clientId },
        bearer(tokens.access_token),
      );
      expect(((await status.json()) as { status: string }).status).toBe('logged_in');

      const url = client.buildEndSessionUrl(config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: loggedOutUri,
        state: 'bye',
      });
      expect(url.href.startsWith(`${server.config.publicUrl}/oauth/end_session?`)).toBe(true);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`${loggedOutUri}?state=bye`);
      expect((await server.services.loginStatus.getStatus(user.uuid, app.clientId)).status).toBe(
        'logged_out',
      );

      // An unregistered post_logout_redirect_uri is refused and changes nothing.
      await post(
        `${server.url}/v1/oauth/status/login`,
        { user_id: user.uuid, client_id: app.clientId },
        bearer(tokens.access_token),
      );
      const refused = await fetch(
        client.buildEndSessionUrl(config, {
          id_token_hint: tokens.id_token!,
          post_logout_redirect_uri: `${loggedOutUri}/`,
        }),
        { redirect: 'manual' },
      );
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: 'invalid_request',
        field: 'post_logout_redirect_uri',
      });
      expect((await server.services.loginStatus.getStatus(user.uuid, app.clientId)).status).toBe('logged_in');
    });

    it('refuses an access token or a login JWT as id_token_hint, and an ID token as a bearer token', async (ctx) => {
      live(ctx);
      const start = await startAuthorization(config, redirectUri);
      const tokens = await signIn(config, start);
      for (const hint of [tokens.access_token, user.loginToken, `${tokens.id_token!.slice(0, -4)}AAAA`]) {
        const res = await fetch(`${server.url}/oauth/end_session?id_token_hint=${hint}`, {
          redirect: 'manual',
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'invalid_request', field: 'id_token_hint' });
      }
      const validate = await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(tokens.id_token!) });
      expect(validate.status).toBe(401);
      const userinfo = await fetch(`${server.url}/oauth/userinfo`, { headers: bearer(tokens.id_token!) });
      expect(userinfo.status).toBe(401);
      expect(userinfo.headers.get('www-authenticate')).toBe('Bearer realm="dauth", error="invalid_token"');
    });

    it('userinfo follows RFC 6750: no token, a token without openid, a revoked token', async (ctx) => {
      live(ctx);
      const none = await fetch(`${server.url}/oauth/userinfo`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="dauth"');

      // A plain OAuth 2.0 token (no openid) may not read userinfo.
      const plain = await authorizeAsBackend(
        new URL(
          `${server.url}/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: redirectUri, response_type: 'code' })}`,
        ),
        user,
      );
      const plainTokens = (await (
        await exchange(server.url, app, plain.searchParams.get('code')!)
      ).json()) as {
        access_token: string;
      };
      const res = await fetch(`${server.url}/oauth/userinfo`, {
        method: 'POST',
        headers: bearer(plainTokens.access_token),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="dauth", error="insufficient_scope", scope="openid"',
      );
      expect(await res.json()).toMatchObject({ success: false, error: 'insufficient_scope' });

      const start = await startAuthorization(config, redirectUri);
      const tokens = await signIn(config, start);
      await client.tokenRevocation(config, tokens.refresh_token!);
      const revoked = await fetch(`${server.url}/oauth/userinfo`, { headers: bearer(tokens.access_token) });
      expect(revoked.status).toBe(401);
      expect(revoked.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    });
  },
);
