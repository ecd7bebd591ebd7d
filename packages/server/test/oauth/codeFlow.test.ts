import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeUrl,
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
  expectError,
  post,
  type TestClient,
  type TestUser,
  type TokenResult,
} from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe.each([{ postgres: false }, { postgres: true }])(
  'authorization-code flow (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let as: oauth.AuthorizationServer;
    let user: TestUser;
    let client: TestClient;
    const redirectUri = 'http://127.0.0.1:9/callback';

    beforeAll(async () => {
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
      const issuer = new URL(server.config.publicUrl);
      as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
      );
      user = await createUser(server.url);
      client = await createClient(server.url, user, [redirectUri, 'https://app.example/cb?x=1']);
    });
    afterAll(() => server?.close());

    const live = (ctx: { skip: () => void }) => {
      if (!server) ctx.skip();
    };

    it('publishes RFC 8414 metadata naming every endpoint', async (ctx) => {
      live(ctx);
      expect(as.issuer).toBe(server.config.publicUrl);
      expect(as).toMatchObject({
        authorization_endpoint: `${server.config.publicUrl}/oauth/authorize`,
        token_endpoint: `${server.config.publicUrl}/oauth/token`,
        device_authorization_endpoint: `${server.config.publicUrl}/oauth/device_authorization`,
        revocation_endpoint: `${server.config.publicUrl}/oauth/revoke`,
        introspection_endpoint: `${server.config.publicUrl}/oauth/introspect`,
        jwks_uri: `${server.config.publicUrl}/.well-known/jwks.json`,
        code_challenge_methods_supported: ['S256'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'urn:ietf:params:oauth:grant-type:device_code',
          'client_credentials',
        ],
        response_types_supported: ['code'],
      });
      expect(as.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
    });

    it('redirects a bearer login JWT at once with code and state, and oauth4webapi exchanges it (PKCE, Basic)', async (ctx) => {
      live(ctx);
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const { location } = await authorizeWithBearer(server.url, user, client, {
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
      expect(location.searchParams.get('state')).toBe(state);

      const oauthClient: oauth.Client = { client_id: client.clientId };
      const params = oauth.validateAuthResponse(as, oauthClient, location, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        oauthClient,
        oauth.ClientSecretBasic(client.clientSecret),
        params,
        redirectUri,
        verifier,
        insecure,
      );
      expect(response.headers.get('cache-control')).toBe('no-store');
      const result = await oauth.processAuthorizationCodeResponse(as, oauthClient, response);
      expect(result.token_type).toBe('bearer');
      expect(result.expires_in).toBe(3600);
      expect(result.user_id).toBe(user.uuid);
      expect(result.success).toBe(true);
      expect(result.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(result).not.toHaveProperty('content_address');

      const validate = await fetch(`${server.url}/v1/oauth/validate`, {
        headers: bearer(result.access_token),
      });
      expect(validate.status).toBe(200);
      const body = (await validate.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        success: true,
        active: true,
        user_id: user.uuid,
        client_id: client.clientId,
      });
      expect(body.exp).toBeGreaterThan(Date.now() / 1000 + 3500);

      // oauth4webapi refresh with client_secret_post.
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        oauthClient,
        await oauth.refreshTokenGrantRequest(
          as,
          oauthClient,
          oauth.ClientSecretPost(client.clientSecret),
          result.refresh_token!,
          insecure,
        ),
      );
      expect(refreshed.refresh_token).not.toBe(result.refresh_token);
      expect(refreshed.user_id).toBe(user.uuid);

      // Introspection and revocation through oauth4webapi.
      const introspected = await oauth.processIntrospectionResponse(
        as,
        oauthClient,
        await oauth.introspectionRequest(
          as,
          oauthClient,
          oauth.ClientSecretBasic(client.clientSecret),
          refreshed.access_token,
          insecure,
        ),
      );
      expect(introspected).toMatchObject({
        active: true,
        client_id: client.clientId,
        sub: user.uuid,
        token_type: 'Bearer',
      });
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(
          as,
          oauthClient,
          oauth.ClientSecretBasic(client.clientSecret),
          refreshed.refresh_token!,
          insecure,
        ),
      );
      // Revoking the refresh token revoked its grant: the access token of the same grant is dead too.
      const after = await fetch(`${server.url}/v1/oauth/validate`, {
        headers: bearer(refreshed.access_token),
      });
      await expectError(after, 401, 'invalid_token');
      const gone = await oauth.processIntrospectionResponse(
        as,
        oauthClient,
        await oauth.introspectionRequest(
          as,
          oauthClient,
          oauth.ClientSecretPost(client.clientSecret),
          refreshed.refresh_token!,
          insecure,
        ),
      );
      expect(gone.active).toBe(false);
    });

    it('accepts a form body with client_secret_post and keeps an existing query in the redirect URI', async (ctx) => {
      live(ctx);
      const second: TestClient = { ...client, redirectUri: 'https://app.example/cb?x=1' };
      const { code, location, state } = await authorizeWithBearer(server.url, user, second);
      expect(location.searchParams.get('x')).toBe('1');
      expect(state).toBeNull();
      const res = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: second.redirectUri,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }).toString(),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as TokenResult).token_type).toBe('Bearer');
    });

    it('adds content_address (the main wallet) for dapp apps only, and only once the user has a wallet', async (ctx) => {
      live(ctx);
      const dapp = await createClient(server.url, user, [redirectUri], { dapp: true });
      const { code } = await authorizeWithBearer(server.url, user, dapp);
      const first = (await (await exchange(server.url, dapp, code)).json()) as TokenResult;
      expect(first.user_id).toBe(user.uuid);
      expect(first).not.toHaveProperty('content_address');

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
      const refreshed = await post(`${server.url}/oauth/token`, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: dapp.clientId,
        client_secret: dapp.clientSecret,
      });
      expect(((await refreshed.json()) as TokenResult).content_address).toBe(address);
      // A plain app of the same user still gets none.
      const { code: plainCode } = await authorizeWithBearer(server.url, user, client);
      expect(await (await exchange(server.url, client, plainCode)).json()).not.toHaveProperty(
        'content_address',
      );
    });

    it('refuses an unknown client_id or an unregistered redirect_uri with 401 and never redirects', async (ctx) => {
      live(ctx);
      const cases = [
        { client_id: client.clientId, redirect_uri: `${redirectUri}/` },
        { client_id: client.clientId, redirect_uri: 'http://127.0.0.1:9/Callback' },
        { client_id: client.clientId, redirect_uri: 'http://evil.example/callback' },
        { client_id: 'no-such-client', redirect_uri: redirectUri },
      ];
      for (const c of cases) {
        const res = await fetch(authorizeUrl(server.url, { ...c, response_type: 'code', state: 's' }), {
          headers: bearer(user.loginToken),
          redirect: 'manual',
        });
        expect(res.headers.get('location')).toBeNull();
        const body = await expectError(res, 401, 'redirect_uri_mismatch');
        expect(body.message).toBe('redirect_uri mismatch');
      }
    });

    it('sends other authorization errors back to the registered redirect URI (RFC 6749 §4.1.2.1)', async (ctx) => {
      live(ctx);
      const res = await fetch(
        authorizeUrl(server.url, {
          client_id: client.clientId,
          redirect_uri: redirectUri,
          response_type: 'token',
          state: 'abc',
        }),
        { headers: bearer(user.loginToken), redirect: 'manual' },
      );
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('unsupported_response_type');
      expect(location.searchParams.get('state')).toBe('abc');
      expect(location.searchParams.get('code')).toBeNull();

      const plain = await fetch(
        authorizeUrl(server.url, {
          client_id: client.clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          code_challenge: 'a'.repeat(43),
          code_challenge_method: 'plain',
        }),
        { headers: bearer(user.loginToken), redirect: 'manual' },
      );
      expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

      const expired = await fetch(
        authorizeUrl(server.url, {
          client_id: client.clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
        }),
        {
          headers: bearer(`${user.loginToken.slice(0, -4)}AAAA`),
          redirect: 'manual',
        },
      );
      await expectError(expired, 401, 'invalid_token');
    });

    it('refuses a wrong secret (401 invalid_client) and leaves the code usable', async (ctx) => {
      live(ctx);
      const { code } = await authorizeWithBearer(server.url, user, client);
      const last = client.clientSecret.slice(-1);
      const wrongSecret = `${client.clientSecret.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
      const wrong = await exchange(server.url, { ...client, clientSecret: wrongSecret }, code);
      const body = await expectError(wrong, 401, 'invalid_client');
      expect(body.error_description).toBe(body.message);
      expect(wrong.headers.get('www-authenticate')).toContain('Basic');
      const basicWrong = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.clientId}:nope`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
        }).toString(),
      });
      await expectError(basicWrong, 401, 'invalid_client');
      // Nothing changed: the code still works once.
      expect((await exchange(server.url, client, code)).status).toBe(200);
    });

    it('binds codes to client, redirect_uri and PKCE verifier without burning them on a mismatch', async (ctx) => {
      live(ctx);
      const other = await createClient(server.url, user, [redirectUri]);
      const verifier = oauth.generateRandomCodeVerifier();
      const { code } = await authorizeWithBearer(server.url, user, client, {
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const byOther = await exchange(server.url, other, code, { code_verifier: verifier });
      expect((await expectError(byOther, 400, 'invalid_grant')).reason).toBe('client_mismatch');
      const wrongRedirect = await exchange(server.url, { ...client, redirectUri: `${redirectUri}?` }, code, {
        code_verifier: verifier,
      });
      expect((await expectError(wrongRedirect, 400, 'invalid_grant')).message).toBe('redirect_uri mismatch');
      const noVerifier = await exchange(server.url, client, code);
      expect((await expectError(noVerifier, 400, 'invalid_grant')).reason).toBe('pkce_failed');
      const badVerifier = await exchange(server.url, client, code, {
        code_verifier: oauth.generateRandomCodeVerifier(),
      });
      expect((await expectError(badVerifier, 400, 'invalid_grant')).reason).toBe('pkce_failed');
      const ok = await exchange(server.url, client, code, { code_verifier: verifier });
      expect(ok.status).toBe(200);

      // A verifier for a code issued without a challenge is refused (no PKCE downgrade games).
      const { code: plainCode } = await authorizeWithBearer(server.url, user, client);
      const unexpected = await exchange(server.url, client, plainCode, { code_verifier: verifier });
      expect((await expectError(unexpected, 400, 'invalid_grant')).reason).toBe('pkce_unexpected');
    });

    it('fails a reused code with invalid_grant and revokes every token issued from it', async (ctx) => {
      live(ctx);
      const { code } = await authorizeWithBearer(server.url, user, client);
      const first = (await (await exchange(server.url, client, code)).json()) as TokenResult;
      expect(
        (await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(first.access_token) })).status,
      ).toBe(200);
      // A refresh happened meanwhile: its successor must die as well.
      const refreshRes = await post(`${server.url}/oauth/token`, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      const second = (await refreshRes.json()) as TokenResult;

      const reuse = await exchange(server.url, client, code);
      expect((await expectError(reuse, 400, 'invalid_grant')).reason).toBe('code_used');
      for (const token of [first.access_token, second.access_token]) {
        await expectError(
          await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(token) }),
          401,
          'invalid_token',
        );
      }
      const refreshAfter = await post(`${server.url}/oauth/token`, {
        grant_type: 'refresh_token',
        refresh_token: second.refresh_token,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      expect((await expectError(refreshAfter, 400, 'invalid_grant')).reason).toBe('grant_revoked');
    });

    it('redeems a code exactly once when two exchanges race', async (ctx) => {
      live(ctx);
      const { code } = await authorizeWithBearer(server.url, user, client);
      const results = await Promise.all([1, 2, 3, 4].map(() => exchange(server.url, client, code)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 400, 400, 400]);
      // The winner's tokens were revoked by the losers' reuse.
      const winner = (await results.find((r) => r.status === 200)!.json()) as TokenResult;
      await expectError(
        await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(winner.access_token) }),
        401,
        'invalid_token',
      );
    });

    it('answers the token endpoint errors of RFC 6749 §5.2', async (ctx) => {
      live(ctx);
      const unsupported = await post(`${server.url}/oauth/token`, {
        grant_type: 'password',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      await expectError(unsupported, 400, 'unsupported_grant_type');
      const missingGrant = await post(`${server.url}/oauth/token`, { client_id: client.clientId });
      expect((await expectError(missingGrant, 400, 'invalid_request')).field).toBe('grant_type');
      const missingCode = await post(`${server.url}/oauth/token`, {
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: redirectUri,
      });
      expect((await expectError(missingCode, 400, 'invalid_request')).field).toBe('code');
      const unknownCode = await exchange(server.url, client, 'x'.repeat(43));
      expect((await expectError(unknownCode, 400, 'invalid_grant')).reason).toBe('code_unknown');
      const twice = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=authorization_code&grant_type=refresh_token&client_id=${client.clientId}`,
      });
      expect((await expectError(twice, 400, 'invalid_request')).field).toBe('grant_type');
      const malformed = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"grant_type": "authorization_code",',
      });
      await expectError(malformed, 400, 'invalid_json');
      const huge = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'authorization_code', pad: 'x'.repeat(1024 * 1024 + 10) }),
      });
      await expectError(huge, 413, 'payload_too_large');
    });
  },
);
