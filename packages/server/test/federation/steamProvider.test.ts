import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { SteamProvider } from '../../src/services/federation/steam/steamProvider.js';
import type {
  BrowserFlow,
  ProviderConfig,
  ProviderDeps,
  UpstreamProvider,
} from '../../src/services/federation/upstreamProvider.js';
import { FederationNonceStore } from '../../src/stores/federationNonceStore.js';
import { testDatabases } from '../helpers/databases.js';
import {
  type OpenIdSteamServer,
  type SteamWebApiServer,
  startOpenIdSteamServer,
  startSteamWebApiServer,
} from '../helpers/openIdSteamServer.js';

/**
 * The `steam` kind against a real OpenID 2.0 OP over HTTP (test/helpers/openIdSteamServer.ts): the
 * browser leg is a real GET that the OP answers with a redirect carrying the signed assertion, and
 * direct verification is a real POST. Replays are caught by the real nonce store (SQLite).
 */
const CALLBACK = 'https://dauth.example/v1/federation/steam/callback';
const STEAM_ID = '76561197960287930';

let handle: DatabaseHandle;
let disposeDb: () => Promise<void>;
let deps: ProviderDeps;
let steam: OpenIdSteamServer;
let attacker: OpenIdSteamServer;
let webApi: SteamWebApiServer;

beforeAll(async () => {
  ({ handle, dispose: disposeDb } = await testDatabases[0]!.open());
  const nonces = new FederationNonceStore(handle.db);
  deps = { fetch: globalThis.fetch, now: Date.now, claimOnce: (key, ttlMs) => nonces.claimOnce(key, ttlMs) };
  steam = await startOpenIdSteamServer({ steamId: STEAM_ID });
  attacker = await startOpenIdSteamServer({ steamId: STEAM_ID, alwaysValid: true });
  webApi = await startSteamWebApiServer({ key: 'web-api-key-1', personaNames: { [STEAM_ID]: 'Gordon' } });
});
afterAll(async () => {
  await Promise.all([steam.close(), attacker.close(), webApi.close()]);
  await disposeDb();
});

const config = (extra: Partial<ProviderConfig> = {}): ProviderConfig => ({
  id: 'steam',
  kind: 'steam',
  name: 'Steam',
  client_id: 'steam',
  op_endpoint: steam.endpoint,
  ...extra,
});

const newFlow = (): BrowserFlow => ({
  state: randomBytes(16).toString('base64url'),
  nonce: randomBytes(16).toString('base64url'),
  codeVerifier: randomBytes(32).toString('base64url'),
  callbackUrl: CALLBACK,
});

/** Follows the browser leg: GET the authorization URL, return the query the OP redirects back with. */
async function signInAtOp(provider: SteamProvider, flow: BrowserFlow): Promise<URLSearchParams> {
  const res = await fetch(await provider.authorizationUrl(flow), { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  expect(back.searchParams.get('state')).toBe(flow.state);
  return back.searchParams;
}

const rejected = (reason: string) => ({ name: 'UpstreamRejected', reason });

describe('steam provider (OpenID 2.0)', () => {
  it('sends checkid_setup to the OP and gives the Steam id of a verified assertion', async () => {
    const provider = new SteamProvider(config(), deps);
    expect(provider.kind).toBe('steam');
    expect((provider as UpstreamProvider).verifyIdToken).toBeUndefined();
    const flow = newFlow();
    const url = await provider.authorizationUrl(flow);
    expect(`${url.origin}${url.pathname}`).toBe(steam.endpoint);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      'openid.ns': 'http://specs.openid.net/auth/2.0',
      'openid.mode': 'checkid_setup',
      'openid.claimed_id': 'http://specs.openid.net/auth/2.0/identifier_select',
      'openid.identity': 'http://specs.openid.net/auth/2.0/identifier_select',
      'openid.return_to': `${CALLBACK}?state=${flow.state}`,
      'openid.realm': 'https://dauth.example',
    });

    const checksBefore = steam.checks.length;
    const identity = await provider.completeBrowserFlow(await signInAtOp(provider, flow), flow);
    expect(identity).toEqual({ subject: STEAM_ID, email: null, emailVerified: false, displayName: null });
    // Verified directly with the OP, which confirmed it.
    expect(steam.checks.slice(checksBefore).map((c) => c.isValid)).toEqual([true]);
    expect(steam.checks.at(-1)!.fields.get('openid.mode')).toBe('check_authentication');
    expect(steam.checks.at(-1)!.fields.get('state')).toBeNull();
  });

  it('refuses a replayed assertion without asking the OP again', async () => {
    const provider = new SteamProvider(config(), deps);
    const flow = newFlow();
    const assertion = await signInAtOp(provider, flow);
    await expect(provider.completeBrowserFlow(assertion, flow)).resolves.toMatchObject({ subject: STEAM_ID });
    const checksBefore = steam.checks.length;
    await expect(provider.completeBrowserFlow(assertion, flow)).rejects.toMatchObject(
      rejected('replayed_nonce'),
    );
    // A second provider instance (another replica) shares the marker through the database.
    await expect(
      new SteamProvider(config(), deps).completeBrowserFlow(assertion, flow),
    ).rejects.toMatchObject(rejected('replayed_nonce'));
    expect(steam.checks.length).toBe(checksBefore);
  });

  it('refuses an assertion from another OP that confirms anything, without calling that OP', async () => {
    const provider = new SteamProvider(config(), deps);
    // The attacker's OP asserts a victim's Steam id, signed under its own association.
    const flow = newFlow();
    const viaAttacker = new SteamProvider(config({ op_endpoint: attacker.endpoint }), deps);
    const forged = await signInAtOp(viaAttacker, flow);
    expect(forged.get('openid.op_endpoint')).toBe(attacker.endpoint);
    const steamChecks = steam.checks.length;
    await expect(provider.completeBrowserFlow(forged, flow)).rejects.toMatchObject(
      rejected('wrong_op_endpoint'),
    );
    expect(attacker.checks).toHaveLength(0);
    expect(steam.checks.length).toBe(steamChecks);

    // Rewriting op_endpoint to Steam's: the real OP is asked and does not know the signature.
    const second = newFlow();
    const rewritten = await signInAtOp(viaAttacker, second);
    rewritten.set('openid.op_endpoint', steam.endpoint);
    await expect(provider.completeBrowserFlow(rewritten, second)).rejects.toMatchObject(
      rejected('invalid_signature'),
    );
    expect(attacker.checks).toHaveLength(0);
    expect(steam.checks.at(-1)!.isValid).toBe(false);
  });

  it('refuses a tampered claimed id: direct verification fails', async () => {
    const provider = new SteamProvider(config(), deps);
    const flow = newFlow();
    const assertion = await signInAtOp(provider, flow);
    const victim = 'https://steamcommunity.com/openid/id/76561198000000001';
    assertion.set('openid.claimed_id', victim);
    assertion.set('openid.identity', victim);
    await expect(provider.completeBrowserFlow(assertion, flow)).rejects.toMatchObject(
      rejected('invalid_signature'),
    );
    expect(steam.checks.at(-1)!.isValid).toBe(false);
    expect(steam.checks.at(-1)!.fields.get('openid.claimed_id')).toBe(victim);
  });

  it('refuses an assertion made for another flow (return_to mismatch)', async () => {
    const provider = new SteamProvider(config(), deps);
    const started = newFlow();
    const assertion = await signInAtOp(provider, started);
    const checksBefore = steam.checks.length;
    const other = newFlow();
    await expect(provider.completeBrowserFlow(assertion, other)).rejects.toMatchObject(
      rejected('return_to_mismatch'),
    );
    const elsewhere = { ...started, callbackUrl: 'https://evil.example/v1/federation/steam/callback' };
    await expect(provider.completeBrowserFlow(assertion, elsewhere)).rejects.toMatchObject(
      rejected('return_to_mismatch'),
    );
    expect(steam.checks.length).toBe(checksBefore);
    // The assertion itself was good: refused for the wrong flow only, it is still accepted for its own.
    await expect(provider.completeBrowserFlow(assertion, started)).resolves.toMatchObject({
      subject: STEAM_ID,
    });
  });

  it('refuses a stale response nonce', async () => {
    const provider = new SteamProvider(config(), deps);
    steam.nonceClockOffsetMs = -6 * 60_000;
    try {
      const flow = newFlow();
      const assertion = await signInAtOp(provider, flow);
      const checksBefore = steam.checks.length;
      await expect(provider.completeBrowserFlow(assertion, flow)).rejects.toMatchObject(
        rejected('stale_nonce'),
      );
      expect(steam.checks.length).toBe(checksBefore);
    } finally {
      steam.nonceClockOffsetMs = 0;
    }
    // Four minutes old is still inside the window.
    steam.nonceClockOffsetMs = -4 * 60_000;
    try {
      const flow = newFlow();
      await expect(
        provider.completeBrowserFlow(await signInAtOp(provider, flow), flow),
      ).resolves.toMatchObject({
        subject: STEAM_ID,
      });
    } finally {
      steam.nonceClockOffsetMs = 0;
    }
  });

  it('refuses assertions that leave a required field unsigned, repeat a field, or name no Steam id', async () => {
    const provider = new SteamProvider(config(), deps);
    const checksBefore = steam.checks.length;

    let flow = newFlow();
    let assertion = await signInAtOp(provider, flow);
    assertion.set('openid.signed', 'signed,op_endpoint,claimed_id,identity,return_to,assoc_handle');
    await expect(provider.completeBrowserFlow(assertion, flow)).rejects.toMatchObject(
      rejected('unsigned_fields'),
    );

    flow = newFlow();
    assertion = await signInAtOp(provider, flow);
    assertion.append('openid.claimed_id', 'https://steamcommunity.com/openid/id/76561198000000001');
    await expect(provider.completeBrowserFlow(assertion, flow)).rejects.toMatchObject(
      rejected('duplicate_field'),
    );

    steam.steamId = '123';
    try {
      flow = newFlow();
      assertion = await signInAtOp(provider, flow);
      await expect(provider.completeBrowserFlow(assertion, flow)).rejects.toMatchObject(
        rejected('not_a_steam_id'),
      );
    } finally {
      steam.steamId = STEAM_ID;
    }

    flow = newFlow();
    const cancel = new URLSearchParams({
      'openid.ns': 'http://specs.openid.net/auth/2.0',
      'openid.mode': 'cancel',
    });
    await expect(provider.completeBrowserFlow(cancel, flow)).rejects.toMatchObject(rejected('cancelled'));
    expect(steam.checks.length).toBe(checksBefore);
  });

  it('answers UpstreamUnavailable when the OP cannot be reached for direct verification', async () => {
    const gone = await startOpenIdSteamServer({ steamId: STEAM_ID });
    const provider = new SteamProvider(config({ op_endpoint: gone.endpoint }), deps);
    const flow = newFlow();
    const assertion = await signInAtOp(provider, flow);
    await gone.close();
    await expect(provider.completeBrowserFlow(assertion, flow)).rejects.toMatchObject({
      name: 'UpstreamUnavailable',
    });
  });

  it('takes the display name from the Steam Web API when a key is set, and never fails on it', async () => {
    const named = new SteamProvider(config({ web_api_key: 'web-api-key-1', web_api_url: webApi.url }), deps);
    let flow = newFlow();
    await expect(named.completeBrowserFlow(await signInAtOp(named, flow), flow)).resolves.toEqual({
      subject: STEAM_ID,
      email: null,
      emailVerified: false,
      displayName: 'Gordon',
    });
    expect(Object.fromEntries(webApi.requests.at(-1)!)).toEqual({ key: 'web-api-key-1', steamids: STEAM_ID });

    // A wrong key (403) or an unreachable Web API: the sign-in stands, without a name.
    const wrongKey = new SteamProvider(config({ web_api_key: 'wrong', web_api_url: webApi.url }), deps);
    flow = newFlow();
    await expect(wrongKey.completeBrowserFlow(await signInAtOp(wrongKey, flow), flow)).resolves.toMatchObject(
      {
        subject: STEAM_ID,
        displayName: null,
      },
    );
    const down = new SteamProvider(
      config({ web_api_key: 'web-api-key-1', web_api_url: 'http://127.0.0.1:9' }),
      deps,
    );
    flow = newFlow();
    await expect(down.completeBrowserFlow(await signInAtOp(down, flow), flow)).resolves.toMatchObject({
      subject: STEAM_ID,
      displayName: null,
    });
  });
});
