import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/** What an upstream account says about itself (the dev login's name is its `sub`). */
export interface UpstreamClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** A signing key as the tests hold it: the private JWK (kid set) and its public half. */
export interface TestSigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function newSigningKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<TestSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
  };
}

/** Signs an id_token with `key` (RS256 or ES256 per the key), `iat` now unless given. */
export async function signIdToken(key: TestSigningKey, claims: JWTPayload): Promise<string> {
  const alg = key.privateJwk.alg as string;
  const { importJWK } = await import('jose');
  const privateKey = await importJWK(key.privateJwk, alg);
  return new SignJWT({ iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg, kid: key.kid, typ: 'JWT' })
    .sign(privateKey);
}

export interface OidcUpstream {
  issuer: string;
  /** The key the upstream signs its id_tokens with (its JWKS publishes the public half). */
  key: TestSigningKey;
  clientId: string;
  clientSecret: string;
  /** Claims of the dev login `login`; unlisted logins get `{login}@upstream.example`, verified. */
  accounts: Map<string, UpstreamClaims>;
  close(): Promise<void>;
}

/** The `IDENTITY_PROVIDERS` entry of `upstream` as dauth's provider `upstream` ("Upstream ID", kind oidc). */
export const providerEntry = (upstream: OidcUpstream) => ({
  id: 'upstream',
  kind: 'oidc',
  name: 'Upstream ID',
  client_id: upstream.clientId,
  client_secret: upstream.clientSecret,
  issuer: upstream.issuer,
});

/**
 * A real OpenID Provider: panva's `oidc-provider` (npm) on a loopback port, with its development
 * interactions (a login form taking any name, then a consent page), one confidential client registered
 * with dauth's callback URL, RS256 id_tokens carrying the e-mail claims, and PKCE required.
 */
export async function startOidcUpstream(options: {
  port: number;
  redirectUris: string[];
  clientId?: string;
}): Promise<OidcUpstream> {
  // oidc-provider ships no type declarations; it is used through its documented API only.
  const oidcModule = 'oidc-provider';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const { default: Provider } = (await import(oidcModule)) as { default: any };
  const issuer = `http://127.0.0.1:${options.port}`;
  const key = await newSigningKey('upstream-1');
  const clientId = options.clientId ?? 'dauth-web';
  const clientSecret = 'upstream-client-secret-0123456789';
  const accounts = new Map<string, UpstreamClaims>();
  const provider = new Provider(issuer, {
    jwks: { keys: [key.privateJwk] },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The e-mail claims in the id_token of the code flow (dauth reads the id_token only).
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, accountId: string) => ({
      accountId,
      claims: async () => ({
        sub: accountId,
        email: `${accountId}@upstream.example`,
        email_verified: true,
        ...accounts.get(accountId),
      }),
    }),
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['upstream-cookie-key-0123456789'] },
  } as never);
  const server = http.createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  return {
    issuer,
    key,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface StaticIssuer {
  issuer: string;
  /** The keys the JWKS publishes now (the first one signs). */
  keys: TestSigningKey[];
  /** How many times the JWKS was fetched. */
  jwksFetches: number;
  discoveryFetches: number;
  /** What its token endpoint answers a code exchange with (set by the test; 400 while unset). */
  tokenResponse?: () => Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A minimal OpenID issuer for id_token tests: discovery and a JWKS whose keys the test rotates, counting
 * every fetch (the JWKS cache and its refresh on an unknown kid are observable), and a token endpoint that
 * answers what the test scripts (an id_token a real provider would not issue).
 */
export async function startStaticIssuer(): Promise<StaticIssuer> {
  const state: StaticIssuer = {
    issuer: '',
    keys: [await newSigningKey('static-1')],
    jwksFetches: 0,
    discoveryFetches: 0,
    close: async () => undefined,
  };
  const server = http.createServer((request, response) => {
    const json = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/.well-known/openid-configuration') {
      state.discoveryFetches++;
      return json({
        issuer: state.issuer,
        authorization_endpoint: `${state.issuer}/authorize`,
        token_endpoint: `${state.issuer}/token`,
        jwks_uri: `${state.issuer}/jwks`,
      });
    }
    if (request.url === '/jwks') {
      state.jwksFetches++;
      return json({ keys: state.keys.map((k) => k.publicJwk) });
    }
    if (request.url === '/token' && request.method === 'POST') {
      request.resume();
      if (!state.tokenResponse) return void response.writeHead(400).end();
      return void state.tokenResponse().then(json, () => response.writeHead(500).end());
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
