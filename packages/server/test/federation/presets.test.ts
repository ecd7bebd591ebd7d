import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { OAuth2Provider } from '../../src/services/federation/oauth2Provider.js';
import {
  APPLE_CLIENT_SECRET_MAX_SECONDS,
  appleClientSecret,
  applyPreset,
  applyPresets,
  ProviderConfigError,
} from '../../src/services/federation/presets.js';
import { SteamProvider } from '../../src/services/federation/steam/steamProvider.js';
import type { ProviderDeps } from '../../src/services/federation/upstreamProvider.js';

const appleKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const appleP8 = appleKey.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const deps: ProviderDeps = { fetch: globalThis.fetch, now: Date.now, claimOnce: () => Promise.resolve(true) };

/** The problems a configuration error lists (fails the test if nothing is thrown). */
function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderConfigError);
    return (err as ProviderConfigError).problems;
  }
  throw new Error('expected a ProviderConfigError');
}

describe('identity provider presets', () => {
  it('google needs only its credentials', () => {
    expect(
      applyPreset({ id: 'google', client_id: 'web.apps.googleusercontent.com', client_secret: 's' }),
    ).toEqual({
      id: 'google',
      preset: 'google',
      kind: 'oidc',
      name: 'Google',
      issuer: 'https://accounts.google.com',
      scopes: ['openid', 'email', 'profile'],
      client_id: 'web.apps.googleusercontent.com',
      client_ids: ['web.apps.googleusercontent.com'],
      client_secret: 's',
    });
    // The native audiences join the web one.
    expect(
      applyPreset({
        id: 'google',
        client_id: 'web',
        client_secret: 's',
        client_ids: ['ios', 'android', 'web'],
      }).client_ids,
    ).toEqual(['web', 'ios', 'android']);
  });

  it('apple: Services ID, team id, key id and .p8 key; form_post; scopes name email', () => {
    // A key pasted into JSON with literal "\n" works too.
    const escaped = appleP8.replace(/\n/g, '\\n');
    const config = applyPreset({
      id: 'apple',
      client_id: 'com.example.game.signin',
      team_id: 'TEAM123456',
      key_id: 'KEY1234567',
      private_key: escaped,
    });
    expect(config).toMatchObject({
      kind: 'oidc',
      name: 'Apple',
      issuer: 'https://appleid.apple.com',
      scopes: ['name', 'email'],
      response_mode: 'form_post',
      client_id: 'com.example.game.signin',
      client_ids: ['com.example.game.signin'],
    });
    expect(config.client_secret).toBeUndefined();
    expect(config.private_key).toBe(appleP8.trim());
  });

  it('appleClientSecret is an ES256 JWT Apple accepts, verifiable with the public key', async () => {
    const cfg = {
      client_id: 'com.example.game.signin',
      team_id: 'TEAM123456',
      key_id: 'KEY1234567',
      private_key: appleP8,
    };
    const now = Date.UTC(2026, 10, 26, 19, 0, 0);
    const secret = await appleClientSecret(cfg, now);
    expect(decodeProtectedHeader(secret)).toEqual({ alg: 'ES256', kid: 'KEY1234567' });
    const { payload } = await jwtVerify(secret, appleKey.publicKey, {
      algorithms: ['ES256'],
      issuer: 'TEAM123456',
      audience: 'https://appleid.apple.com',
      subject: 'com.example.game.signin',
      currentDate: new Date(now + 1_000),
    });
    expect(payload.iat).toBe(now / 1000);
    expect(payload.exp! - payload.iat!).toBe(3_600);
    // Never longer than Apple's six months, whatever is asked.
    const long = await appleClientSecret(cfg, now, 10 * APPLE_CLIENT_SECRET_MAX_SECONDS);
    const { payload: longPayload } = await jwtVerify(long, appleKey.publicKey, {
      currentDate: new Date(now),
    });
    expect(longPayload.exp! - longPayload.iat!).toBe(APPLE_CLIENT_SECRET_MAX_SECONDS);
    // Another key does not verify it.
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await expect(jwtVerify(secret, other.publicKey, { currentDate: new Date(now) })).rejects.toThrow();
  });

  it('discord: the three discord.com endpoints, scopes identify email; explicit fields override', () => {
    const config = applyPreset({ id: 'discord', client_id: '1100000000000000001', client_secret: 'shh' });
    expect(config).toEqual({
      id: 'discord',
      preset: 'discord',
      kind: 'oauth2',
      name: 'Discord',
      client_id: '1100000000000000001',
      client_secret: 'shh',
      authorization_endpoint: 'https://discord.com/oauth2/authorize',
      token_endpoint: 'https://discord.com/api/oauth2/token',
      userinfo_endpoint: 'https://discord.com/api/users/@me',
      scopes: ['identify', 'email'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    const custom = applyPreset({
      id: 'discord-eu',
      preset: 'discord',
      name: 'Discord (EU)',
      client_id: '1',
      client_secret: 's',
      scopes: ['identify'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(custom).toMatchObject({
      id: 'discord-eu',
      name: 'Discord (EU)',
      scopes: ['identify'],
      kind: 'oauth2',
    });
    expect(custom.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(new OAuth2Provider(custom, deps).kind).toBe('oauth2');
  });

  it("steam: nothing required; Steam's OP endpoint; the Web API key from STEAM_WEB_API_KEY", () => {
    expect(applyPreset({ id: 'steam' })).toEqual({
      id: 'steam',
      preset: 'steam',
      kind: 'steam',
      name: 'Steam',
      client_id: '',
      op_endpoint: 'https://steamcommunity.com/openid/login',
      web_api_url: 'https://api.steampowered.com',
    });
    expect(applyPreset({ id: 'steam' }, { steamWebApiKey: 'ENVKEY' }).web_api_key).toBe('ENVKEY');
    expect(applyPreset({ id: 'steam', web_api_key: 'OWN' }, { steamWebApiKey: 'ENVKEY' }).web_api_key).toBe(
      'OWN',
    );
    const provider = new SteamProvider(applyPreset({ id: 'steam' }), deps);
    expect(provider.name).toBe('Steam');
  });

  it('a generic oidc or oauth2 entry works without a preset', () => {
    expect(
      applyPreset({ id: 'corp', kind: 'oidc', issuer: 'https://id.example.com', client_id: 'c' }),
    ).toMatchObject({
      id: 'corp',
      kind: 'oidc',
      name: 'corp',
      issuer: 'https://id.example.com',
      client_ids: ['c'],
    });
    // `kind` given: the id "google" no longer implies the preset.
    expect(
      applyPreset({ id: 'google', kind: 'oidc', issuer: 'http://127.0.0.1:4000', client_id: 'c' }).preset,
    ).toBeUndefined();
  });

  it('refuses bad entries with clear problems naming the entry and the field', () => {
    expect(problemsOf(() => applyPreset({ id: 'google', client_id: 'c' }))).toEqual([
      'identity provider "google": client_secret is required for google',
    ]);
    expect(problemsOf(() => applyPreset({ id: 'discord', client_id: 'c', client_secert: 's' }))).toEqual([
      expect.stringMatching(/^identity provider "discord": Unrecognized key.*client_secert/),
    ]);
    expect(
      problemsOf(() =>
        applyPreset({ id: 'x', kind: 'oidc', issuer: 'http://id.example.com', client_id: 'c' }),
      ),
    ).toEqual(['identity provider "x": issuer: must use https (http only to localhost)']);
    expect(problemsOf(() => applyPreset({ id: 'Bad/Id', preset: 'steam' }))[0]).toMatch(
      /^identity provider "Bad\/Id": id: /,
    );
    expect(problemsOf(() => applyPreset({ id: 'mystery', client_id: 'c' }))).toEqual([
      'identity provider "mystery": kind is required (oidc, oauth2, steam, steam_ticket, epic, game_center or google_play_games), or a preset (google, apple, discord, steam)',
    ]);
    expect(
      problemsOf(() => applyPreset({ id: 'gh', kind: 'oauth2', client_id: 'c', client_secret: 's' })),
    ).toEqual([
      'identity provider "gh": authorization_endpoint is required for oauth2',
      'identity provider "gh": token_endpoint is required for oauth2',
      'identity provider "gh": userinfo_endpoint is required for oauth2',
    ]);
    expect(problemsOf(() => applyPreset({ id: 'apple', client_id: 'c', team_id: 'TEAM123456' }))).toEqual([
      'identity provider "apple": key_id is required for apple',
      'identity provider "apple": private_key is required for apple',
    ]);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    });
    expect(
      problemsOf(() =>
        applyPreset({
          id: 'apple',
          client_id: 'c',
          team_id: 'TEAM123456',
          key_id: 'KEY1234567',
          private_key: rsa,
        }),
      ),
    ).toEqual(['identity provider "apple": private_key must be the P-256 (ES256) key Apple issues (.p8)']);
    expect(
      problemsOf(() =>
        applyPreset({
          id: 'apple',
          client_id: 'c',
          team_id: 'TEAM123456',
          key_id: 'KEY1234567',
          private_key: 'nope',
        }),
      ),
    ).toEqual([
      'identity provider "apple": private_key must be the PEM contents of the .p8 key file Apple issues',
    ]);
  });

  it('applyPresets resolves the list, refusing a repeated id and reporting every entry', () => {
    expect(
      applyPresets([{ id: 'steam' }, { id: 'discord', client_id: '1', client_secret: 's' }]).map((c) => c.id),
    ).toEqual(['steam', 'discord']);
    expect(problemsOf(() => applyPresets({ id: 'steam' }))).toEqual([
      'IDENTITY_PROVIDERS must be a JSON array',
    ]);
    expect(problemsOf(() => applyPresets([{ id: 'steam' }, { id: 'steam' }, { id: 'google' }]))).toEqual([
      'identity provider "steam": id is used twice',
      'IDENTITY_PROVIDERS[2] identity provider "google": client_id is required for google',
      'IDENTITY_PROVIDERS[2] identity provider "google": client_secret is required for google',
    ]);
    // The message is one line, so the configuration's error can list it beside its other problems.
    expect(() => applyPreset({ id: 'gh', kind: 'oauth2', client_id: 'c', client_secret: 's' })).toThrow(
      /^identity provider "gh": authorization_endpoint is required for oauth2; identity provider "gh": token_endpoint/,
    );
  });
});
