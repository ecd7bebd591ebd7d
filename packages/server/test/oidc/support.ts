import * as client from 'openid-client';
import { expect } from 'vitest';
import { bearer, post, type TestClient, type TestUser } from '../helpers/http.js';

/** Helpers the OpenID Connect suites share. Everything goes over real HTTP to a real dauth. */

export interface OidcTestClient extends TestClient {
  postLogoutRedirectUri: string | undefined;
}

/** Registers an app through the API, with RP-initiated logout targets when given. */
export async function createOidcClient(
  baseUrl: string,
  owner: TestUser,
  redirectUris: string[],
  extra: { postLogoutRedirectUris?: string[]; dapp?: boolean; name?: string } = {},
): Promise<OidcTestClient> {
  const res = await post(
    `${baseUrl}/v1/dev-user/clients`,
    {
      name: extra.name ?? 'OIDC app',
      redirect_uris: redirectUris,
      ...(extra.postLogoutRedirectUris ? { post_logout_redirect_uris: extra.postLogoutRedirectUris } : {}),
      ...(extra.dapp ? { dapp: true } : {}),
    },
    bearer(owner.loginToken),
  );
  expect(res.status).toBe(201);
  const body = (await res.json()) as { client_id: string; client_secret: string };
  return {
    clientId: body.client_id,
    clientSecret: body.client_secret,
    redirectUri: redirectUris[0]!,
    postLogoutRedirectUri: extra.postLogoutRedirectUris?.[0],
  };
}

/**
 * openid-client's own discovery against the test server. The test server speaks plain http on
 * loopback, which openid-client v6 refuses unless told (`allowInsecureRequests`).
 */
export function discover(
  baseUrl: string,
  app: TestClient,
  metadata: Partial<client.ClientMetadata> = {},
): Promise<client.Configuration> {
  return client.discovery(
    new URL(baseUrl),
    app.clientId,
    { client_secret: app.clientSecret, ...metadata },
    undefined,
    { execute: [client.allowInsecureRequests] },
  );
}

/** The library's error for a rejected ID token: which check failed and on which claim. */
export async function rejection(promise: Promise<unknown>): Promise<{ code: string; claim: unknown }> {
  const err = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code?: string; cause?: unknown } | undefined;
  expect(err, 'the library accepted the answer').toBeDefined();
  // openid-client wraps oauth4webapi's error; the failed claim is on the innermost cause.
  let claim: unknown;
  for (let cause = err!.cause as { claim?: unknown; cause?: unknown } | undefined; cause;) {
    if (cause.claim !== undefined) claim = cause.claim;
    cause = cause.cause as typeof cause;
  }
  return { code: String(err!.code), claim };
}

export interface AuthorizationStart {
  url: URL;
  verifier: string;
  nonce: string;
  state: string;
}

/** An authorization URL built by the library: PKCE S256, a nonce and a state. */
export async function startAuthorization(
  config: client.Configuration,
  redirectUri: string,
  params: Record<string, string> = {},
): Promise<AuthorizationStart> {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...params,
  });
  return { url, verifier, nonce, state };
}

const boundTokens = new Map<string, string>();

/**
 * The user's login JWT bound to an app (`azp`), as that app's backend holds it: the SDKs bind every
 * login (decisions §8). One per server, user and app, so its `iat` stays put across calls.
 */
export async function boundLoginToken(baseUrl: string, user: TestUser, clientId: string): Promise<string> {
  const key = `${baseUrl}|${user.email}|${user.password}|${clientId}`;
  let token = boundTokens.get(key);
  if (!token) {
    const res = await post(`${baseUrl}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
      client_id: clientId,
    });
    expect(res.status).toBe(200);
    token = ((await res.json()) as { token: string }).token;
    boundTokens.set(key, token);
  }
  return token;
}

/**
 * Drives the authorize step as the app's backend would: the user's login JWT bound to that app as a
 * bearer header (an unbound one gets no code for an OpenID request without consent).
 */
export async function authorizeAsBackend(url: URL, user: TestUser): Promise<URL> {
  const token = await boundLoginToken(url.origin, user, url.searchParams.get('client_id')!);
  const res = await fetch(url, { headers: bearer(token), redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

/** Decodes a JWT's payload without checking anything (for assertions on what was issued). */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}
