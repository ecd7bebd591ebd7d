import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mapUserinfo,
  OAuth2Provider,
  type OAuth2Settings,
} from '../../src/services/federation/oauth2Provider.js';
import type {
  BrowserFlow,
  ProviderConfig,
  ProviderDeps,
  UpstreamProvider,
} from '../../src/services/federation/upstreamProvider.js';
import {
  discordUser,
  type OAuth2UpstreamServer,
  startOAuth2UpstreamServer,
} from '../helpers/oauth2UpstreamServer.js';

/**
 * The `oauth2` kind against a real OAuth 2.0 server over HTTP (test/helpers/oauth2UpstreamServer.ts,
 * Discord-shaped): the browser leg is a real GET answered with a redirect carrying the code, the code
 * exchange and userinfo are real requests, and the server checks PKCE itself.
 */
const CALLBACK = 'https://dauth.example/v1/federation/discord/callback';

let upstream: OAuth2UpstreamServer;
const deps: ProviderDeps = {
  fetch: globalThis.fetch,
  now: Date.now,
  claimOnce: () => Promise.reject(new Error('the oauth2 kind claims no nonces')),
};

beforeAll(async () => {
  upstream = await startOAuth2UpstreamServer();
});
afterAll(() => upstream.close());

const config = (extra: Partial<ProviderConfig & OAuth2Settings> = {}): ProviderConfig & OAuth2Settings => ({
  id: 'discord',
  kind: 'oauth2',
  name: 'Discord',
  client_id: upstream.clientId,
  client_secret: upstream.clientSecret,
  scopes: ['identify', 'email'],
  authorization_endpoint: upstream.authorizationEndpoint,
  token_endpoint: upstream.tokenEndpoint,
  userinfo_endpoint: upstream.userinfoEndpoint,
  ...extra,
});

const newFlow = (): BrowserFlow => ({
  state: randomBytes(16).toString('base64url'),
  nonce: randomBytes(16).toString('base64url'),
  codeVerifier: randomBytes(32).toString('base64url'),
  callbackUrl: CALLBACK,
});

/** The browser leg: GET the authorization URL; the query the server redirects back to the callback with. */
async function approveAtUpstream(provider: OAuth2Provider, flow: BrowserFlow): Promise<URLSearchParams> {
  const res = await fetch(await provider.authorizationUrl(flow), { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return back.searchParams;
}

describe('oauth2 provider (Discord-shaped upstream)', () => {
  it('signs in with code + PKCE S256 + state and maps Discord userinfo', async () => {
    const provider = new OAuth2Provider(config(), deps);
    expect(provider.kind).toBe('oauth2');
    expect((provider as UpstreamProvider).verifyIdToken).toBeUndefined();
    const flow = newFlow();
    const url = await provider.authorizationUrl(flow);
    expect(`${url.origin}${url.pathname}`).toBe(upstream.authorizationEndpoint);
    const query = Object.fromEntries(url.searchParams);
    expect(query).toMatchObject({
      response_type: 'code',
      client_id: upstream.clientId,
      redirect_uri: CALLBACK,
      scope: 'identify email',
      state: flow.state,
      code_challenge_method: 'S256',
    });
    // The challenge is S256 of the verifier, and the verifier itself never travels through the browser.
    expect(query.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(url.toString()).not.toContain(flow.codeVerifier);
    // Only a step-up asks the provider to show its approval page again (Discord's prompt=consent).
    expect(url.searchParams.has('prompt')).toBe(false);
    const stepUp = await provider.authorizationUrl({ ...flow, reauthenticateSince: Date.now() });
    expect(stepUp.searchParams.get('prompt')).toBe('consent');

    const callback = await approveAtUpstream(provider, flow);
    expect(callback.get('state')).toBe(flow.state);
    const identity = await provider.completeBrowserFlow(callback, flow);
    expect(identity).toEqual({
      subject: discordUser.id,
      email: discordUser.email,
      emailVerified: true,
      displayName: 'Nelly',
    });
    const exchange = upstream.tokenRequests.at(-1)!;
    expect(exchange.status).toBe(200);
    expect(exchange.clientAuth).toBe('post');
    expect(exchange.form.get('code_verifier')).toBe(flow.codeVerifier);
    expect(exchange.form.get('redirect_uri')).toBe(CALLBACK);
  });

  it('authenticates with HTTP Basic when configured so', async () => {
    const provider = new OAuth2Provider(config({ token_endpoint_auth_method: 'client_secret_basic' }), deps);
    const flow = newFlow();
    await expect(
      provider.completeBrowserFlow(await approveAtUpstream(provider, flow), flow),
    ).resolves.toMatchObject({
      subject: discordUser.id,
    });
    const exchange = upstream.tokenRequests.at(-1)!;
    expect(exchange.clientAuth).toBe('basic');
    expect(exchange.form.get('client_secret')).toBeNull();
  });

  it('surfaces the server refusing a wrong PKCE verifier as UpstreamRejected, and asks no userinfo', async () => {
    const provider = new OAuth2Provider(config(), deps);
    const flow = newFlow();
    const callback = await approveAtUpstream(provider, flow);
    const userinfoBefore = upstream.userinfoRequests;
    const otherVerifier = { ...flow, codeVerifier: randomBytes(32).toString('base64url') };
    await expect(provider.completeBrowserFlow(callback, otherVerifier)).rejects.toMatchObject({
      name: 'UpstreamRejected',
      reason: 'token_refused',
    });
    expect(upstream.tokenRequests.at(-1)).toMatchObject({ status: 400 });
    expect(upstream.userinfoRequests).toBe(userinfoBefore);
  });

  it('refuses a code used twice, a state that is not the flow’s, and an upstream error', async () => {
    const provider = new OAuth2Provider(config(), deps);
    const flow = newFlow();
    const callback = await approveAtUpstream(provider, flow);
    await provider.completeBrowserFlow(callback, flow);
    await expect(provider.completeBrowserFlow(callback, flow)).rejects.toMatchObject({
      reason: 'token_refused',
    });

    const tokenRequests = upstream.tokenRequests.length;
    const another = newFlow();
    const forged = await approveAtUpstream(provider, another);
    await expect(provider.completeBrowserFlow(forged, newFlow())).rejects.toMatchObject({
      reason: 'state_mismatch',
    });
    const denied = new URLSearchParams({ error: 'access_denied', state: another.state });
    await expect(provider.completeBrowserFlow(denied, another)).rejects.toMatchObject({
      reason: 'cancelled',
    });
    expect(upstream.tokenRequests.length).toBe(tokenRequests);
  });

  it('maps an unverified Discord e-mail as unverified, and a missing global name to the username', async () => {
    const provider = new OAuth2Provider(config(), deps);
    upstream.userinfo = { ...discordUser, verified: false, global_name: null };
    try {
      const flow = newFlow();
      await expect(
        provider.completeBrowserFlow(await approveAtUpstream(provider, flow), flow),
      ).resolves.toEqual({
        subject: discordUser.id,
        email: discordUser.email,
        emailVerified: false,
        displayName: 'nelly',
      });
    } finally {
      upstream.userinfo = { ...discordUser };
    }
  });

  it('maps generic OIDC-shaped userinfo (sub, email, email_verified, name)', async () => {
    const generic = await startOAuth2UpstreamServer({
      userinfo: { sub: 'u-42', email: 'ada@example.org', email_verified: true, name: 'Ada' },
    });
    try {
      const provider = new OAuth2Provider(
        config({
          client_id: generic.clientId,
          client_secret: generic.clientSecret,
          authorization_endpoint: generic.authorizationEndpoint,
          token_endpoint: generic.tokenEndpoint,
          userinfo_endpoint: generic.userinfoEndpoint,
        }),
        deps,
      );
      const flow = newFlow();
      await expect(
        provider.completeBrowserFlow(await approveAtUpstream(provider, flow), flow),
      ).resolves.toEqual({
        subject: 'u-42',
        email: 'ada@example.org',
        emailVerified: true,
        displayName: 'Ada',
      });
    } finally {
      await generic.close();
    }
    expect(mapUserinfo({ sub: 'x', email: 'a@b.c', email_verified: 'false' })).toMatchObject({
      emailVerified: false,
    });
    expect(mapUserinfo({ sub: 'x', email_verified: true })).toMatchObject({
      email: null,
      emailVerified: false,
    });
    expect(() => mapUserinfo({ email: 'a@b.c', verified: true })).toThrow(/did not say who signed in/);
  });

  it('answers UpstreamUnavailable when the token endpoint cannot be reached', async () => {
    const provider = new OAuth2Provider(config({ token_endpoint: 'http://127.0.0.1:9/token' }), deps);
    const flow = newFlow();
    await expect(
      provider.completeBrowserFlow(await approveAtUpstream(provider, flow), flow),
    ).rejects.toMatchObject({
      name: 'UpstreamUnavailable',
    });
  });
});
